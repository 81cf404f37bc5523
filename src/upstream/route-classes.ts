/**
 * Route classes: limits the upstream applies to a group of routes on top of the per-credential
 * window, mirrored by a second token bucket in front of those routes.
 *
 * - Hosting: "10 to 120 requests per minute per client IP, depending on the operation" (hosting
 *   document, Limits). Every user of the gateway shares the gateway's IP, so these buckets are global
 *   (one per class, across all credentials and, with Redis, across all replicas). The document gives
 *   the range, not the mapping; reads 120, writes 30, source upload and deploy 10 per minute is the
 *   decision, the same one the embedded simulator makes.
 * - Catalog subgraph: "the catalog endpoint also returns 429" (commerce document) without a number;
 *   the decision is a per-credential burst bucket of 120 per minute.
 *
 * A class is a sliding window: never more than `limit` calls in any `windowMs`, whatever the phase of
 * the upstream's own fixed window, so the gateway never provokes these 429s.
 */
import type { HttpMethod } from './upstream-call.ts';

export interface RouteClass {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  /** One bucket per credential (true) or one for the whole gateway (false). */
  readonly perCredential: boolean;
}

const MINUTE = 60_000;

export const ROUTE_CLASSES = {
  'hosting-read': { name: 'hosting-read', limit: 120, windowMs: MINUTE, perCredential: false },
  'hosting-write': { name: 'hosting-write', limit: 30, windowMs: MINUTE, perCredential: false },
  'hosting-heavy': { name: 'hosting-heavy', limit: 10, windowMs: MINUTE, perCredential: false },
  catalog: { name: 'catalog', limit: 120, windowMs: MINUTE, perCredential: true },
} as const satisfies Record<string, RouteClass>;

export type RouteClassName = keyof typeof ROUTE_CLASSES;

const HOSTING_PREFIX = '/v1/hosting/nodejs';

/** Hosting operations (method + path after the prefix) whose class is not the method's default. */
const HOSTING_HEAVY = new Set(['POST /apps/{appId}/source', 'POST /apps/{appId}/deployments']);

/** The class a call belongs to, if any. Unknown hosting routes get their method's default class. */
export function routeClassOf(method: HttpMethod, route: string): RouteClass | undefined {
  if (route.startsWith(`${HOSTING_PREFIX}/`)) {
    const operation = `${method} ${route.slice(HOSTING_PREFIX.length)}`;
    if (HOSTING_HEAVY.has(operation)) return ROUTE_CLASSES['hosting-heavy'];
    return method === 'GET' ? ROUTE_CLASSES['hosting-read'] : ROUTE_CLASSES['hosting-write'];
  }
  if (method === 'POST' && route === '/v2/commerce/stores/{storeId}/catalog-subgraph') {
    return ROUTE_CLASSES.catalog;
  }
  return undefined;
}
