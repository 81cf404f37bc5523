/**
 * Store routing for the store-scoped subgraphs (catalog, tax): which store a delegated field goes
 * to, and the per-store scope that carries it to the executor.
 *
 * Why a scope object per (request, store) instead of the request context itself: stitching batches
 * the delegations that share a context into one upstream request. Handing each store its own
 * (memoised) scope makes sibling fields for the SAME store share one request while fields for two
 * stores can never be merged into a request for the wrong one.
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import { checkStoreId } from '../kit/id-checks.ts';
import type { GatewayContext } from '../kit/request-context.ts';

/** The argument added to every root field of the catalog and tax subgraphs. */
export const STORE_ID_ARGUMENT = 'storeId';

/** The request header a client may send instead of the argument. */
export const STORE_ID_HEADER = 'x-store-id';

/** What a subgraph executor receives as `context`: the request, and the store when scoped. */
export interface SubgraphScope {
  readonly gateway: GatewayContext;
  readonly storeId: string | null;
}

const GLOBAL = '\u0000global';

/**
 * This request's scopes by store, kept by the request itself: a module-level `WeakMap` from the
 * request to scopes that point back at it would keep every stitched request through young
 * collections until a full one (an ephemeron: its value holds its key).
 */
const scopesOfRequest = (): Map<string, SubgraphScope> => new Map();

/** The one scope object of this request for this store (`null`: the global order subgraph). */
export function subgraphScope(gateway: GatewayContext, storeId: string | null): SubgraphScope {
  const byStore = gateway.scoped(scopesOfRequest);
  const key = storeId ?? GLOBAL;
  let scope = byStore.get(key);
  if (!scope) {
    scope = { gateway, storeId };
    byStore.set(key, scope);
  }
  return scope;
}

/**
 * The store of a catalog/tax root field: the `storeId` argument, else the `X-Store-Id` request
 * header; neither is BAD_USER_INPUT before any upstream call.
 */
export function resolveStoreId(argument: unknown, gateway: GatewayContext): string {
  if (typeof argument === 'string' && argument.trim() !== '') return checkStoreId(argument);
  if (gateway.storeIdHeader !== undefined) {
    return checkStoreId(gateway.storeIdHeader, 'X-Store-Id');
  }
  throw new GatewayError(
    ErrorCode.BAD_USER_INPUT,
    'This field needs a store: pass `storeId` or send the X-Store-Id header',
    { field: STORE_ID_ARGUMENT },
  );
}

/** The `X-Store-Id` header of an incoming request (first value; blank counts as absent). */
export function storeIdHeaderOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string | undefined {
  const raw = headers[STORE_ID_HEADER];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value === undefined || value === '' ? undefined : value;
}
