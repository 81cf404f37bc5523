/**
 * The scripted front-end journey of the benchmark, as Weft's GraphQL queries and as the REST calls
 * a naive client makes for the same screens. Every screen is visited, then revisited.
 */
import { request } from 'undici';

const STORE = '11111111-1111-4111-8111-111111111111';

export interface Screen {
  readonly name: string;
  /** The screen as one GraphQL request to Weft. */
  readonly query: string;
  /** The same screen as a naive REST client loads it: a call per resource, nothing remembered. */
  naive(rest: RestClient): Promise<void>;
}

export interface RestClient {
  get<T = any>(path: string): Promise<T>;
  post<T = any>(path: string, body: unknown, headers?: Record<string, string>): Promise<T>;
  /** Every call made, as `METHOD path [body]` (to count the distinct ones). */
  readonly log: string[];
}

export function createRestClient(baseUrl: string, token = 'demo-token'): RestClient {
  const log: string[] = [];
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown, headers = {}) => {
    log.push(`${method} ${path}${body === undefined ? '' : ` ${JSON.stringify(body)}`}`);
    const res = await request(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  return {
    get: (path) => send('GET', path),
    post: (path, body, headers) => send('POST', path, body, headers),
    log,
  };
}

const CERT_PAGE = { offset: 4, limit: 8 };
const SKU_QUERY = 'query Sku($id: String!) { sku(id: $id) { id name status } }';

export const SCREENS: readonly Screen[] = [
  {
    name: `certificate list (${CERT_PAGE.limit}, details + verifications)`,
    query: `{ certificateCustomer(customerId: "demo-customer") {
      certificates(first: ${CERT_PAGE.limit}, offset: ${CERT_PAGE.offset}) { totalCount edges { node {
        certificateId commonName status validEnd csr contact { email }
        domainVerifications { domain status type } } } } } }`,
    async naive(rest) {
      const page = await rest.get<{ certificates: { certificateId: string }[] }>(
        `/v2/customers/demo-customer/certificates?offset=${CERT_PAGE.offset}&limit=${CERT_PAGE.limit}`,
      );
      for (const { certificateId } of page.certificates) {
        await rest.get(`/v2/customers/demo-customer/certificates/${certificateId}`);
        await rest.get(
          `/v2/customers/demo-customer/certificates/${certificateId}/domainVerifications`,
        );
      }
    },
  },
  {
    name: 'apps dashboard (runtime status + deployments)',
    query: `{ apps { appId name status urls { publish }
      runtimeStatus { __typename } deployments(limit: 3) { __typename } } }`,
    async naive(rest) {
      const list = await rest.get<{ apps: { id: string }[] }>('/v1/hosting/nodejs/apps');
      for (const app of list.apps) {
        await rest.get(`/v1/hosting/nodejs/apps/${app.id}/status`);
        await rest.get(`/v1/hosting/nodejs/apps/${app.id}/deployments?limit=3`);
      }
    },
  },
  {
    name: 'store overview (transactions, stitched SKU)',
    query: `{ store(storeId: "${STORE}") { storeId raw channels { channelId }
        customers(first: 5) { edges { node { customerId } } }
        transactions(first: 10) { edges { node { transactionId status } } } }
      sku(id: "sku_0001", storeId: "${STORE}") { id name status } }`,
    async naive(rest) {
      await rest.get(`/v1/commerce/stores/${STORE}`);
      await rest.get(`/v1/commerce/channels?registeredStores.storeId=${STORE}`);
      await rest.get(`/v1/commerce/stores/${STORE}/customers?limit=5`);
      await rest.get(`/v2/commerce/stores/${STORE}/transactions?pageSize=10`);
      await rest.post(
        `/v2/commerce/stores/${STORE}/catalog-subgraph`,
        { query: SKU_QUERY, variables: { id: 'sku_0001' } },
        { 'x-store-id': STORE },
      );
    },
  },
];

/** The query every cache-hit / miss run sends: one certificate's detail, as a widget would. */
export const HIT_QUERY = `{ certificateCustomer(customerId: "demo-customer") {
  certificate(certificateId: "cert-0005") { certificateId commonName status validStart validEnd
    serialNumberHex csr rootType contact { email nameFirst nameLast } organization { name } } } }`;
