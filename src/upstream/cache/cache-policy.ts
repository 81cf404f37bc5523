/**
 * The cache policy: per call, from the route's declaration (`upstream-routes.ts`), whether its
 * answer is cached and for how long (per resource kind), the tags an answer carries, which writes
 * invalidate which tags, and what is never cached. The domains declare the policy of each route
 * they call with the builders below; this file knows no route.
 *
 * Tags name the upstream resources an answer depends on (`app:<appId>`, `store:<storeId>` …). They
 * are global, not per credential: a write by one credential makes every credential's copy stale (two
 * tokens of one account see the same records); each credential's entries stay under its own keys.
 */
import { ConfigError } from '../../config.ts';
import { operationTypeOf } from '../graphql-operation.ts';
import type { HttpMethod, QueryValue, UpstreamCall } from '../upstream-call.ts';

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

/** What the cache does with one call. */
export type CacheDecision =
  | {
      readonly type: 'cache';
      readonly kind: string;
      readonly ttlSec: number;
      readonly ttlOf: ((data: unknown, ttlSec: number) => number) | undefined;
      readonly tags: readonly string[];
      /** The call carries one of its rule's free filters: stored only on its key's second sight. */
      readonly freeFilter: boolean;
    }
  | { readonly type: 'invalidate'; readonly tags: readonly string[] }
  | { readonly type: 'pass' };

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

/** A route with its declared policy (`UpstreamRoute`), and a table of them (`RouteTable`). */
interface DeclaredPolicy {
  readonly method: HttpMethod;
  readonly route: string;
  readonly cache: RoutePolicy;
}
interface PolicyTable {
  readonly routes: readonly DeclaredPolicy[];
}

/** The TTL table (docs/efficiency.md "Cache"): kind, TTL, routes. */
export function cacheKinds(
  table: PolicyTable,
): { kind: string; ttlSec: number; routes: string[] }[] {
  const rows = new Map<string, { kind: string; ttlSec: number; routes: string[] }>();
  for (const { method, route, cache } of table.routes) {
    if (cache.type !== 'cache' && cache.type !== 'graphql') continue;
    const row = rows.get(cache.rule.kind) ?? {
      kind: cache.rule.kind,
      ttlSec: cache.rule.ttlSec,
      routes: [],
    };
    row.routes.push(`${method} ${route}`);
    rows.set(cache.rule.kind, row);
  }
  return [...rows.values()];
}

const lowerCased = (headers: Readonly<Record<string, string>> | undefined) => {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) out[key.toLowerCase()] = value;
  return out;
};

export interface CachePolicy {
  /** What to do with the call, by its route's declared policy (undefined: an undeclared route). */
  decide(call: UpstreamCall, declared: RoutePolicy | undefined): CacheDecision;
}

/**
 * Refuses TTL overrides that name a kind no declared route has (a typo would otherwise change
 * nothing, silently), naming them and the kinds there are.
 */
function refuseUnknownKinds(table: PolicyTable, overrides: ReadonlyMap<string, number>): void {
  const known = cacheKinds(table).map((row) => row.kind);
  const unknown = [...overrides.keys()].filter((kind) => !known.includes(kind));
  if (unknown.length === 0) return;
  const named = unknown.map((kind) => `"${kind}"`).join(', ');
  throw new ConfigError(
    `Invalid configuration: CACHE_TTL_OVERRIDES: unknown kind${unknown.length > 1 ? 's' : ''} ${named} (known: ${known.join(', ')})`,
  );
}

/**
 * The policy of the declared routes, with the configured TTL overrides (refused with a
 * {@link ConfigError} when one names no declared kind). An undeclared route is passed through
 * uncached (and, as a write, invalidates nothing: every route is declared, tested).
 */
export function createCachePolicy(
  table: PolicyTable,
  overrides: ReadonlyMap<string, number> = new Map(),
): CachePolicy {
  refuseUnknownKinds(table, overrides);
  const ttlOfKind = (rule: CacheRule) => overrides.get(rule.kind) ?? rule.ttlSec;
  const cacheDecision = (rule: CacheRule, parts: CallParts): CacheDecision => ({
    type: 'cache',
    kind: rule.kind,
    ttlSec: ttlOfKind(rule),
    ttlOf: rule.ttlOf,
    tags: rule.tags(parts),
    freeFilter: rule.freeFilters?.some((name) => parts.query[name] != null) ?? false,
  });
  return {
    decide(call, policy) {
      if (!policy) return { type: 'pass' };
      const parts: CallParts = {
        method: call.method,
        route: call.route,
        params: call.params ?? {},
        query: call.query ?? {},
        headers: lowerCased(call.headers),
        body: call.body,
      };
      switch (policy.type) {
        case 'never':
          return { type: 'pass' };
        case 'invalidate':
          return { type: 'invalidate', tags: policy.tags(parts) };
        case 'cache':
          return cacheDecision(policy.rule, parts);
        case 'graphql':
          // Only a document that is certainly a query is cached; anything else is a write.
          return operationTypeOf(call.body) === 'query'
            ? cacheDecision(policy.rule, parts)
            : { type: 'invalidate', tags: policy.invalidates(parts) };
      }
    },
  };
}
