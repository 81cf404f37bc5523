/**
 * Every write invalidates the cached reads it makes stale, for every credential, and leaves the
 * others cached. Route-level: the calls go through the gateway's real upstream client (the one every
 * domain uses, with route templates) to the real simulator, and `/__sim/stats` counts what reached
 * the upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import type { UpstreamCall } from '../../../src/upstream/upstream-call.ts';
import { createCsr } from '../../support/csr.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const credentialFor = createCredentialFactory('integration-secret-0123456789');
const demo = credentialFor('demo-token');
const readonly = credentialFor('demo-readonly');
const H = '/v1/hosting/nodejs';
const STORE = COMMERCE_IDS.storeA;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ sim: { rateLimit: 100_000 } });
});
afterAll(() => stack.close());

type Call = Omit<UpstreamCall, 'credential'>;
const send = async <T = any>(call: Call, credential = demo) =>
  (await stack.gateway.upstream.request<T>({ ...call, credential })).data;

/** How many upstream calls `reads` make now (each read once). */
async function upstreamCost(reads: Call[], credential = demo): Promise<number> {
  const before = (await stack.sim.stats()).total;
  for (const read of reads) await send(read, credential);
  return (await stack.sim.stats()).total - before;
}

/** Reads are cached; the write invalidates `stale` (for both tokens) and not `fresh`. */
async function expectInvalidation(write: Call, stale: Call[], fresh: Call[]) {
  await upstreamCost([...stale, ...fresh]);
  await upstreamCost(stale, readonly);
  expect(await upstreamCost([...stale, ...fresh]), 'warm before the write').toBe(0);
  await send(write);
  expect(await upstreamCost(stale), `${write.method} ${write.route} → stale`).toBe(stale.length);
  expect(await upstreamCost(stale, readonly), 'stale for the other token too').toBe(stale.length);
  expect(await upstreamCost(fresh), `${write.method} ${write.route} → fresh`).toBe(0);
}

const get = (route: string, params: Record<string, string> = {}, query = {}): Call => ({
  method: 'GET',
  route,
  params,
  query,
});

const gql = (route: string, storeId: string | undefined, query: string): Call => ({
  method: 'POST',
  route,
  ...(storeId ? { params: { storeId }, headers: { 'x-store-id': storeId } } : {}),
  body: { query },
});

async function newApp(name: string): Promise<string> {
  const created = await send<{ job: { id: string } }>({
    method: 'POST',
    route: `${H}/apps`,
    body: { name },
  });
  for (let i = 0; i < 5; i += 1) {
    const job = await send<{ job: { status: string }; app?: { id: string } }>(
      get(`${H}/apps/jobs/{jobId}`, { jobId: created.job.id }),
    );
    if (job.job.status === 'active' && job.app) return job.app.id;
  }
  throw new Error('app never became active');
}

describe('invalidation by writes', () => {
  it('orderCertificate: certificate lists', async () => {
    await expectInvalidation(
      {
        method: 'POST',
        route: '/v2/certificates',
        body: {
          csr: await createCsr('www.inv-order.example.com'),
          productType: 'DV_SSL',
          period: 1,
        },
      },
      [
        get(
          '/v2/customers/{customerId}/certificates',
          { customerId: 'demo-customer' },
          { limit: 5 },
        ),
        get('/v2/certificates/subscriptions/search', {}, { page: 1, pageSize: 5 }),
      ],
      [
        get('/v2/customers/{customerId}/certificates/{certificateId}', {
          customerId: 'demo-customer',
          certificateId: 'cert-0001',
        }),
      ],
    );
  });

  it('reissueCertificate: that certificate and the lists', async () => {
    const detail = (certificateId: string) =>
      get('/v2/customers/{customerId}/certificates/{certificateId}', {
        customerId: 'demo-customer',
        certificateId,
      });
    await expectInvalidation(
      {
        method: 'POST',
        route: '/v2/certificates/{certificateId}/reissue',
        params: { certificateId: 'cert-0005' },
        body: {},
      },
      [
        detail('cert-0005'),
        get(
          '/v2/customers/{customerId}/certificates',
          { customerId: 'demo-customer' },
          { limit: 3 },
        ),
      ],
      [detail('cert-0003')],
    );
  });

  it('createApp: the app list', async () => {
    await expectInvalidation(
      { method: 'POST', route: `${H}/apps`, body: { name: 'inv-created' } },
      [get(`${H}/apps`)],
      [get(`${H}/apps/{appId}`, { appId: 'app-0001' })],
    );
  });

  it('updateApp: the app and the list', async () => {
    await expectInvalidation(
      {
        method: 'PATCH',
        route: `${H}/apps/{appId}`,
        params: { appId: 'app-0001' },
        body: { name: 'inv-renamed' },
      },
      [get(`${H}/apps/{appId}`, { appId: 'app-0001' }), get(`${H}/apps`)],
      [get(`${H}/apps/{appId}`, { appId: 'app-0002' })],
    );
  });

  it('deleteApp: the app, its parts and the list', async () => {
    const appId = await newApp('inv-doomed');
    const parts = [
      get(`${H}/apps/{appId}`, { appId }),
      get(`${H}/apps/{appId}/secrets`, { appId }),
    ];
    const list = get(`${H}/apps`);
    await upstreamCost([...parts, list]);
    expect(await upstreamCost([...parts, list])).toBe(0);
    await send({ method: 'DELETE', route: `${H}/apps/{appId}`, params: { appId } });
    // The deleted app's reads reach the upstream (which says 404) instead of the cache.
    const before = (await stack.sim.stats()).byStatus['404'] ?? 0;
    for (const part of parts) await expect(send(part)).rejects.toMatchObject({ status: 404 });
    expect(((await stack.sim.stats()).byStatus['404'] ?? 0) - before).toBe(parts.length);
    expect(await upstreamCost([list])).toBe(1);
  });

  it('deployApp: the deployments and status of that app', async () => {
    await expectInvalidation(
      { method: 'POST', route: `${H}/apps/{appId}/deployments`, params: { appId: 'app-0002' } },
      [get(`${H}/apps/{appId}/deployments`, { appId: 'app-0002' })],
      [get(`${H}/apps/{appId}/deployments`, { appId: 'app-0001' })],
    );
  });

  it('changeAppSecrets: the secret listing of that app', async () => {
    await expectInvalidation(
      {
        method: 'POST',
        route: `${H}/apps/{appId}/secrets`,
        params: { appId: 'app-0001' },
        body: {
          variant: 'publish',
          operations: { additions: [{ name: 'INV_SECRET', value: 'canary-secret-value-4471' }] },
        },
      },
      [get(`${H}/apps/{appId}/secrets`, { appId: 'app-0001' })],
      [get(`${H}/apps/{appId}/secrets`, { appId: 'app-0002' })],
    );
  });

  it('createStoreCustomer and updateStoreCustomer: that store’s customers', async () => {
    const customers = get(
      '/v1/commerce/stores/{storeId}/customers',
      { storeId: STORE },
      { limit: 5 },
    );
    const customer = get('/v1/commerce/stores/{storeId}/customers/{customerId}', {
      storeId: STORE,
      customerId: COMMERCE_IDS.firstCustomerA,
    });
    const store = get('/v1/commerce/stores/{storeId}', { storeId: STORE });
    await expectInvalidation(
      {
        method: 'POST',
        route: '/v1/commerce/stores/{storeId}/customers',
        params: { storeId: STORE },
        body: { email: 'inv.new@example.com', givenName: 'Inv' },
      },
      [customers],
      [store],
    );
    await expectInvalidation(
      {
        method: 'PATCH',
        route: '/v1/commerce/stores/{storeId}/customers/{customerId}',
        params: { storeId: STORE, customerId: COMMERCE_IDS.firstCustomerA },
        body: { givenName: 'Renamed' },
      },
      [customer, customers],
      [store],
    );
  });

  it('subgraph mutations: queries of the same subgraph and store', async () => {
    const CATALOG = '/v2/commerce/stores/{storeId}/catalog-subgraph';
    const TAX = '/v2/commerce/stores/{storeId}/tax-subgraph';
    const ORDER = '/v1/commerce/order-subgraph';
    await expectInvalidation(
      gql(CATALOG, STORE, 'mutation { createSku(input: { code: "INV-1", name: "Inv" }) { id } }'),
      [gql(CATALOG, STORE, '{ __typename }')],
      [gql(TAX, STORE, '{ __typename }'), gql(ORDER, undefined, '{ __typename }')],
    );
    await expectInvalidation(
      gql(
        TAX,
        STORE,
        'mutation { createRate(input: { label: "Inv", value: { percentage: 5 } }) { id } }',
      ),
      [gql(TAX, STORE, '{ __typename }')],
      [gql(CATALOG, STORE, '{ __typename }')],
    );
    await expectInvalidation(
      gql(
        ORDER,
        undefined,
        `mutation { createOrder(input: { storeId: "${STORE}", lineItems: [] }) { id } }`,
      ),
      [gql(ORDER, undefined, '{ __typename }')],
      [gql(CATALOG, STORE, '{ __typename }')],
    );
  });

  it('keeps a query of another store cached when one store’s catalog changes', async () => {
    const CATALOG = '/v2/commerce/stores/{storeId}/catalog-subgraph';
    const other = COMMERCE_IDS.storeB;
    const otherQuery = gql(CATALOG, other, '{ __typename }');
    await upstreamCost([otherQuery], credentialFor('demo-other'));
    await send(
      gql(CATALOG, STORE, 'mutation { createSku(input: { code: "INV-2", name: "Inv" }) { id } }'),
    );
    expect(await upstreamCost([otherQuery], credentialFor('demo-other'))).toBe(0);
  });
});
