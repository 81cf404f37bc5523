/**
 * The cache policy a route declares (`upstream-routes.ts`), in the words of its declaration: whether
 * its answer is cached and for how long (per resource kind), the tags an answer carries, which
 * writes invalidate which tags, and what is never cached. The domains declare the policy of each
 * route they call with the builders below; the cache (`cache/cache-policy.ts`) applies it.
 *
 * Tags name the upstream resources an answer depends on (`app:<appId>`, `store:<storeId>` …). They
 * are global, not per credential: a write by one credential makes every credential's copy stale (two
 * tokens of one account see the same records); each credential's entries stay under its own keys.
 */
import type { HttpMethod, QueryValue } from './upstream-call.ts';

/** The parts of a call that policies read (headers lower-cased). */
export interface CallParts {
  readonly method: HttpMethod;
  readonly route: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, QueryValue>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface CacheRule {
  /**
   * The resource kind: a row of the TTL table, overridable by `CACHE_TTL_OVERRIDES`. The kinds are
   * exactly those the route declarations name: an override is checked against them.
   */
  readonly kind: string;
  readonly ttlSec: number;
  /** The TTL of one answer, from the kind's TTL (e.g. 0 for a state still moving). */
  readonly ttlOf?: (data: unknown, ttlSec: number) => number;
  readonly tags: (call: CallParts) => readonly string[];
  /**
   * Query parameters whose value the client picks from an unbounded set (a date it types): a call
   * carrying one is stored only on its key's second sight (`second-sight-admission.ts`).
   */
  readonly freeFilters?: readonly string[];
}

export type Tagger = (call: CallParts) => readonly string[];

export type RoutePolicy =
  | { readonly type: 'cache'; readonly rule: CacheRule }
  | { readonly type: 'never'; readonly why: string }
  | { readonly type: 'invalidate'; readonly tags: Tagger }
  /** A GraphQL POST: a query is cached by its rule, a mutation invalidates. */
  | { readonly type: 'graphql'; readonly rule: CacheRule; readonly invalidates: Tagger };

/** A path parameter of the call ('' when absent): the usual piece of a tag. */
export const pathParam = (call: CallParts, name: string): string => call.params[name] ?? '';

/** A query parameter of the call, arrays joined by commas ('' when absent). */
export const queryParam = (call: CallParts, name: string): string => {
  const value = call.query[name];
  return Array.isArray(value) ? value.join(',') : String(value ?? '');
};

const hasGraphQLErrors = (data: unknown): boolean =>
  typeof data === 'object' &&
  data !== null &&
  Array.isArray((data as { errors?: unknown }).errors) &&
  (data as { errors: unknown[] }).errors.length > 0;

/** A GraphQL answer with errors is not stored (a subgraph may answer 200 with only errors). */
export const unlessGraphQLErrors = (data: unknown, ttlSec: number): number =>
  hasGraphQLErrors(data) ? 0 : ttlSec;

/**
 * A `ttlOf` for resources that move on their own for a while (a pending certificate, a deployment
 * in progress): while `moving(data)`, the answer is kept at most `pollSec` — read again on that
 * schedule however often it is viewed — and once settled, for the kind's whole TTL.
 */
export const shorterWhileMoving =
  (moving: (data: unknown) => boolean, pollSec: number) =>
  (data: unknown, ttlSec: number): number =>
    moving(data) ? Math.min(ttlSec, pollSec) : ttlSec;

/** Cached by the rule. */
export const cacheFor = (rule: CacheRule): RoutePolicy => ({ type: 'cache', rule });
/** Never cached, and why (the reason is for the reader of the declaration). */
export const neverCache = (why: string): RoutePolicy => ({ type: 'never', why });
/** A write: after it, the tags it makes stale are invalidated for every credential. */
export const invalidates = (tags: Tagger): RoutePolicy => ({ type: 'invalidate', tags });
/** A GraphQL POST: a query is cached by the rule (not when it has errors), anything else invalidates. */
export const graphqlOperations = (rule: CacheRule, invalidated: Tagger): RoutePolicy => ({
  type: 'graphql',
  rule: { ttlOf: unlessGraphQLErrors, ...rule },
  invalidates: invalidated,
});
