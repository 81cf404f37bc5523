/**
 * The cache policy: per call, from the policy its route declares (`../route-policy.ts`), whether
 * its answer is cached and for how long (per resource kind, with the configured overrides), the
 * tags it carries, or the tags a write invalidates. This file knows no route.
 */
import { ConfigError } from '../../config.ts';
import { operationTypeOf } from '../graphql-operation.ts';
import type { CacheRule, CallParts, RoutePolicy } from '../route-policy.ts';
import type { HttpMethod, UpstreamCall } from '../upstream-call.ts';

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

/** A route with its declared policy (`UpstreamRoute`), and a table of them (`RouteTable`). */
interface DeclaredPolicy {
  readonly method: HttpMethod;
  readonly route: string;
  readonly cache: RoutePolicy;
}
interface PolicyTable {
  readonly routes: readonly DeclaredPolicy[];
}

/** The TTLs (docs/budget.md "Caches"): kind, TTL, routes. */
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
