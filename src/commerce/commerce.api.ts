/**
 * Typed calls to the commerce REST operations (commerce document). Every call goes through the
 * upstream client; nothing here caches (loaders dedupe per request). Transaction records arrive
 * redacted (the route's declared redaction, commerce.upstream-routes.ts); here they take the shape the
 * graph shows (card summary, `raw`).
 *
 * The single-transaction read (`GET …/transactions/{transactionId}`) is deliberately unused: the
 * list with `transactionIds` answers any number of ids of a store in one call (commerce.loaders.ts).
 */
import { isUuid } from '../kit/id-checks.ts';
import type { UpstreamClient } from '../upstream/upstream-call.ts';
import { callerOf, type RequestScope } from '../upstream/request-scope.ts';
import { createUpstreamReader } from '../kit/upstream-reader.ts';
import { presentTransaction, type RedactedTransaction } from './transaction-presentation.ts';
import { COMMERCE_ROUTES } from './commerce.upstream-routes.ts';
import { isRecord } from '../kit/is-record.ts';

/** An upstream record whose shape the document does not show. */
export type CommerceRecord = Readonly<Record<string, unknown>>;

/** The query of the transaction list (v2, page/pageSize). */
export interface TransactionQuery {
  page: number;
  pageSize: number;
  totalRequired?: boolean;
  transactionIds?: readonly string[];
  updatedAtAfter?: string;
  updatedAtBefore?: string;
  sortOrder?: 'ASC' | 'DESC';
}

/** A transaction page with its records already redacted. */
export interface TransactionPage {
  readonly items: readonly RedactedTransaction[];
  readonly totalItems: number | null;
  readonly totalPages: number | null;
  /** The page's `links` has `rel: next` (a later page has items). */
  readonly hasNextLink: boolean;
}

const itemsOf = (body: unknown): readonly unknown[] =>
  isRecord(body) && Array.isArray(body.items) ? body.items : [];

const intOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) ? value : null;

/** The commerce REST calls of one GraphQL request. */
export type CommerceApi = ReturnType<typeof createCommerceApi>;

/** Commerce REST calls on behalf of one request (its credential and request id). */
export function createCommerceApi(upstream: UpstreamClient, scope: RequestScope) {
  const get = createUpstreamReader(upstream, scope);

  const send = async <T>(
    method: 'POST' | 'PATCH',
    route: string,
    params: Record<string, string>,
    body: unknown,
  ): Promise<T> =>
    (await upstream.request<T>({ method, route, params, body, ...callerOf(scope) })).data;

  // The document's optional "Request Id" header: the gateway's request id (the client's own
  // x-request-id when it sent a sane one) whenever it is a uuid, as the upstream requires.
  const requestIdHeader: Record<string, string> | undefined = isUuid(scope.requestId)
    ? { 'x-request-id': scope.requestId }
    : undefined;

  return {
    store: (storeId: string) => get<CommerceRecord>(COMMERCE_ROUTES.store, { storeId }),

    attribute: (storeId: string, attrName: string) =>
      get<CommerceRecord>(COMMERCE_ROUTES.attribute, {
        storeId,
        attrName,
      }),

    channels: async (limit: number, marker: string | undefined, storeId: string | undefined) =>
      itemsOf(
        await get<unknown>(
          COMMERCE_ROUTES.channels,
          {},
          { query: { limit, marker, 'registeredStores.storeId': storeId } },
        ),
      ),

    channel: (channelId: string) => get<CommerceRecord>(COMMERCE_ROUTES.channel, { channelId }),

    customers: async (storeId: string, limit: number, marker: string | undefined) =>
      itemsOf(
        await get<unknown>(COMMERCE_ROUTES.customers, { storeId }, { query: { limit, marker } }),
      ),

    customer: (storeId: string, customerId: string) =>
      get<CommerceRecord>(COMMERCE_ROUTES.customer, {
        storeId,
        customerId,
      }),

    createCustomer: (storeId: string, body: CommerceRecord) =>
      send<CommerceRecord>('POST', COMMERCE_ROUTES.customers, { storeId }, body),

    updateCustomer: (storeId: string, customerId: string, body: CommerceRecord) =>
      send<CommerceRecord>('PATCH', COMMERCE_ROUTES.customer, { storeId, customerId }, body),

    transactions: async (storeId: string, query: TransactionQuery): Promise<TransactionPage> => {
      const body = await get<unknown>(
        COMMERCE_ROUTES.transactions,
        { storeId },
        {
          query: {
            page: query.page,
            pageSize: query.pageSize,
            totalRequired: query.totalRequired ? true : undefined,
            transactionIds: query.transactionIds,
            updatedAtAfter: query.updatedAtAfter,
            updatedAtBefore: query.updatedAtBefore,
            sortOrder: query.sortOrder,
          },
          ...(requestIdHeader ? { headers: requestIdHeader } : {}),
        },
      );
      const page = isRecord(body) ? body : {};
      const links = Array.isArray(page.links) ? page.links : [];
      return {
        items: itemsOf(page).map(presentTransaction),
        totalItems: intOrNull(page.totalItems),
        totalPages: intOrNull(page.totalPages),
        hasNextLink: links.some((link: unknown) => isRecord(link) && link.rel === 'next'),
      };
    },
  };
}
