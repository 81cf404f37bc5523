/** Request parsing shared by the commerce REST routes: uuids, store visibility, query parameters. */
import type { FastifyRequest } from 'fastify';
import { STORE_ACCOUNTS } from '../../accounts.js';
import type { CommerceState, CommerceStore } from '../../fixtures/commerce.fixtures.js';
import { invalidField, notFound } from '../../sim-errors.js';

/** Fastify's parsed query string: repeated keys become arrays. */
export type Query = Record<string, string | string[] | undefined>;

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

/** A query parameter given at most once (a repeated one is 400); `''` counts as absent. */
export function singleQuery(query: Query, name: string, path = `$.${name}`): string | undefined {
  const raw = query[name];
  if (Array.isArray(raw)) {
    throw invalidField(path, 'INVALID_FORMAT', `${name} must be given at most once`);
  }
  return raw === undefined || raw === '' ? undefined : raw;
}

/** A digits-only integer parameter within bounds, or the fallback when absent. */
export function intQuery(
  query: Query,
  name: string,
  bounds: { min: number; max: number; fallback: number },
): number {
  const raw = singleQuery(query, name);
  if (raw === undefined) return bounds.fallback;
  if (!/^\d{1,15}$/.test(raw)) {
    throw invalidField(`$.${name}`, 'INVALID_FORMAT', `${name} must be an integer (digits only)`);
  }
  const value = Number(raw);
  if (value < bounds.min || value > bounds.max) {
    throw invalidField(
      `$.${name}`,
      'OUT_OF_RANGE',
      `${name} must be between ${bounds.min} and ${bounds.max}`,
    );
  }
  return value;
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
