/** Request parsing shared by the commerce REST routes: uuids, store visibility, query parameters. */
import type { FastifyRequest } from 'fastify';
import { STORE_ACCOUNTS } from '../../accounts.ts';
import type { CommerceState, CommerceStore } from '../../fixtures/commerce.fixtures.ts';
import { invalidField, notFound } from '../../sim-errors.ts';
import { intQuery, singleQuery, type Query } from '../../sim-query.ts';

/** The shared query helpers, for the commerce routes that import everything from here. */
export { intQuery, singleQuery, type Query };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const queryOf = (request: FastifyRequest): Query => (request.query ?? {}) as Query;

/** A uuid path parameter, lower-cased; 400 `$.<name>` when malformed. */
export function uuidParam(raw: string | undefined, name: string): string {
  if (raw === undefined || !UUID.test(raw)) {
    throw invalidField(`$.${name}`, 'INVALID_FORMAT', `${name} must be a uuid`);
  }
  return raw.toLowerCase();
}

/** The store, when it exists and belongs to the caller's account; 404 otherwise. */
export function visibleStore(
  state: CommerceState,
  request: FastifyRequest,
  rawStoreId: string | undefined,
): CommerceStore {
  const storeId = uuidParam(rawStoreId, 'storeId');
  const store = state.stores.get(storeId);
  if (!store || STORE_ACCOUNTS[storeId] !== request.principal.accountId) {
    throw notFound(`store ${storeId}`);
  }
  return store;
}

/**
 * v1 cursor pagination (commerce document, "Pagination conventions"): the page after the item named
 * by `marker`; a marker that names no item restarts from the first page.
 */
export function cursorPage<T>(
  items: readonly T[],
  idOf: (item: T) => string,
  marker: string | undefined,
  limit: number,
): T[] {
  const at = marker === undefined ? -1 : items.findIndex((item) => idOf(item) === marker);
  return items.slice(at + 1, at + 1 + limit);
}

/** `limit` (default 20, 1..100) and `marker` of a v1 list. */
export function cursorQuery(query: Query): { limit: number; marker: string | undefined } {
  return {
    limit: intQuery(query, 'limit', { min: 1, max: 100, fallback: 20 }),
    marker: singleQuery(query, 'marker')?.toLowerCase(),
  };
}
