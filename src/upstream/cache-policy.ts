/**
 * THE cache policy of every upstream route, keyed by `METHOD route-template`: which answers are
 * cached and for how long (per resource kind), the tags an answer carries, which writes invalidate
 * which tags, and what is never cached. Route-driven and central: the domains call the upstream
 * client with route templates and get the right behaviour without knowing the cache exists.
 *
 * Tags name the upstream resources an answer depends on (`app:<appId>`, `store:<storeId>` …). They
 * are global, not per credential: a write by one token makes every token's copy stale (two tokens
 * of one account see the same records); each credential's entries stay under its own keys.
 *
 * Never cached: the ACME external account binding (`hmacKey`), job and source-upload status (polled
 * while they move), logs, and every write. Secret listings are metadata (names, variants) and are
 * cached; the secrets POST is a write. Transactions are stored only after card data is removed
 * (`card-data-redaction.ts`).
 */
import type { CacheKind } from '../config.ts';
import { redactCardData } from './card-data-redaction.ts';
import { operationTypeOf } from './graphql-operation.ts';
import type { HttpMethod, QueryValue, UpstreamCall } from './upstream-call.ts';

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
  /** The resource kind: a row of the TTL table, overridable by `CACHE_TTL_OVERRIDES`. */
  readonly kind: CacheKind;
  readonly ttlSec: number;
  /** The TTL of one answer, from the kind's TTL (e.g. shorter while a certificate is pending). */
  readonly ttlOf?: (data: unknown, ttlSec: number) => number;
  readonly tags: (call: CallParts) => readonly string[];
  /** Applied to every answer of the route, cached or not (so both look the same). */
  readonly sanitize?: (data: unknown) => unknown;
}

type Tagger = (call: CallParts) => readonly string[];

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
      readonly sanitize: ((data: unknown) => unknown) | undefined;
    }
  | { readonly type: 'invalidate'; readonly tags: readonly string[] }
  | { readonly type: 'pass' };

const p = (call: CallParts, name: string): string => call.params[name] ?? '';
const queryString = (call: CallParts, name: string): string => {
  const value = call.query[name];
  return Array.isArray(value) ? value.join(',') : String(value ?? '');
};
/** The store a subgraph call runs against: the header wins over the path (commerce document). */
const subgraphStore = (call: CallParts): string => call.headers['x-store-id'] ?? p(call, 'storeId');

/**
 * Certificate states that no longer move on their own: an issued certificate is cached long. Any
 * other state (pending issuance or revocation, unknown) is what a client polls after an order or a
 * reissue, so it is not cached at all, like job status.
 */
const SETTLED_CERTIFICATE = new Set(['ISSUED', 'EXPIRED', 'REVOKED', 'DENIED']);

const hasGraphQLErrors = (data: unknown): boolean =>
  typeof data === 'object' &&
  data !== null &&
  Array.isArray((data as { errors?: unknown }).errors) &&
  (data as { errors: unknown[] }).errors.length > 0;

/** Subgraph answers with GraphQL errors are not stored (e.g. tax without a store answers 200). */
const unlessErrors = (data: unknown, ttlSec: number): number =>
  hasGraphQLErrors(data) ? 0 : ttlSec;

const cache = (rule: CacheRule): RoutePolicy => ({ type: 'cache', rule });
const never = (why: string): RoutePolicy => ({ type: 'never', why });
const invalidate = (tags: Tagger): RoutePolicy => ({ type: 'invalidate', tags });

const CERTIFICATES = 'certificates';
const certificateTags: Tagger = (c) => [`certificate:${p(c, 'certificateId')}`];
const H = '/v1/hosting/nodejs';
const appTags: Tagger = (c) => [`app:${p(c, 'appId')}`];

/** The table. Every route of the three upstream documents has a row (tested). */
export const ROUTE_POLICIES: Readonly<Record<string, RoutePolicy>> = {
  // --- certificates -------------------------------------------------------------------------
  'GET /v2/certificates': cache({
    kind: 'certificate-entitlement',
    ttlSec: 60,
    tags: (c) => [CERTIFICATES, `entitlement:${queryString(c, 'entitlementId')}`],
  }),
  'POST /v2/certificates': invalidate(() => [CERTIFICATES]),
  'POST /v2/certificates/{certificateId}/reissue': invalidate((c) => [
    CERTIFICATES,
    ...certificateTags(c),
  ]),
  'GET /v2/certificates/download': cache({
    kind: 'certificate-bundle',
    ttlSec: 3600,
    tags: (c) => [CERTIFICATES, `entitlement:${queryString(c, 'entitlementId')}`],
  }),
  'GET /v2/customers/{customerId}/certificates': cache({
    kind: 'certificate-list',
    ttlSec: 60,
    tags: () => [CERTIFICATES],
  }),
  'GET /v2/customers/{customerId}/certificates/{certificateId}': cache({
    kind: 'certificate-detail',
    ttlSec: 3600,
    ttlOf: (data, ttl) =>
      SETTLED_CERTIFICATE.has(String((data as { status?: unknown } | null)?.status)) ? ttl : 0,
    tags: certificateTags,
  }),
  'GET /v2/customers/{customerId}/certificates/{certificateId}/domainVerifications': cache({
    kind: 'domain-verification',
    ttlSec: 30,
    tags: certificateTags,
  }),
  'GET /v2/customers/{customerId}/certificates/{certificateId}/domainVerifications/{domain}': cache(
    { kind: 'domain-verification', ttlSec: 30, tags: certificateTags },
  ),
  'GET /v2/customers/{customerId}/certificates/acme/externalAccountBinding': never(
    'carries the ACME hmacKey (a secret)',
  ),
  'GET /v2/certificates/subscriptions/search': cache({
    kind: 'certificate-subscription',
    ttlSec: 120,
    tags: () => [CERTIFICATES],
  }),
  'GET /v2/certificates/subscription/{guid}': cache({
    kind: 'certificate-subscription',
    ttlSec: 120,
    tags: () => [CERTIFICATES],
  }),

  // --- hosting ------------------------------------------------------------------------------
  [`GET ${H}/apps`]: cache({ kind: 'app-list', ttlSec: 30, tags: () => ['apps'] }),
  [`POST ${H}/apps`]: invalidate(() => ['apps']),
  [`GET ${H}/apps/jobs/{jobId}`]: never('job status is polled while it moves'),
  [`GET ${H}/apps/{appId}`]: cache({ kind: 'app', ttlSec: 30, tags: appTags }),
  [`PATCH ${H}/apps/{appId}`]: invalidate((c) => ['apps', ...appTags(c)]),
  [`DELETE ${H}/apps/{appId}`]: invalidate((c) => ['apps', ...appTags(c)]),
  [`POST ${H}/apps/{appId}/source`]: invalidate((c) => ['apps', ...appTags(c)]),
  [`GET ${H}/apps/{appId}/source/status`]: never('upload status is polled while it moves'),
  [`GET ${H}/apps/{appId}/deployments`]: cache({
    kind: 'app-deployments',
    ttlSec: 10,
    tags: appTags,
  }),
  [`POST ${H}/apps/{appId}/deployments`]: invalidate((c) => ['apps', ...appTags(c)]),
  [`GET ${H}/apps/{appId}/status`]: cache({ kind: 'app-runtime-status', ttlSec: 5, tags: appTags }),
  [`GET ${H}/apps/{appId}/secrets`]: cache({ kind: 'app-secret-names', ttlSec: 60, tags: appTags }),
  [`POST ${H}/apps/{appId}/secrets`]: invalidate(appTags),
  [`GET ${H}/apps/{appId}/logs`]: never('logs are a live tail'),

  // --- commerce REST ------------------------------------------------------------------------
  'GET /v1/commerce/stores/{storeId}': cache({
    kind: 'store',
    ttlSec: 600,
    tags: (c) => [`store:${p(c, 'storeId')}`],
  }),
  'GET /v1/commerce/stores/{storeId}/attributes/{attrName}': cache({
    kind: 'store',
    ttlSec: 600,
    tags: (c) => [`store:${p(c, 'storeId')}`],
  }),
  'GET /v1/commerce/channels': cache({ kind: 'channel', ttlSec: 600, tags: () => ['channels'] }),
  'GET /v1/commerce/channels/{channelId}': cache({
    kind: 'channel',
    ttlSec: 600,
    tags: () => ['channels'],
  }),
  'GET /v1/commerce/stores/{storeId}/customers': cache({
    kind: 'store-customer',
    ttlSec: 60,
    tags: (c) => [`customers:${p(c, 'storeId')}`],
  }),
  'GET /v1/commerce/stores/{storeId}/customers/{customerId}': cache({
    kind: 'store-customer',
    ttlSec: 60,
    tags: (c) => [`customers:${p(c, 'storeId')}`],
  }),
  'POST /v1/commerce/stores/{storeId}/customers': invalidate((c) => [
    `customers:${p(c, 'storeId')}`,
  ]),
  'PATCH /v1/commerce/stores/{storeId}/customers/{customerId}': invalidate((c) => [
    `customers:${p(c, 'storeId')}`,
  ]),
  'GET /v2/commerce/stores/{storeId}/transactions': cache({
    kind: 'transaction',
    ttlSec: 30,
    tags: (c) => [`transactions:${p(c, 'storeId')}`],
    sanitize: redactCardData,
  }),
  'GET /v2/commerce/stores/{storeId}/transactions/{transactionId}': cache({
    kind: 'transaction',
    ttlSec: 30,
    tags: (c) => [`transactions:${p(c, 'storeId')}`],
    sanitize: redactCardData,
  }),

  // --- commerce GraphQL subgraphs: (credential, store, document, variables) ------------------
  'POST /v2/commerce/stores/{storeId}/catalog-subgraph': {
    type: 'graphql',
    rule: {
      kind: 'catalog-query',
      ttlSec: 60,
      ttlOf: unlessErrors,
      tags: (c) => [`catalog:${subgraphStore(c)}`],
    },
    invalidates: (c) => [`catalog:${subgraphStore(c)}`],
  },
  'POST /v2/commerce/stores/{storeId}/tax-subgraph': {
    type: 'graphql',
    rule: {
      kind: 'tax-query',
      ttlSec: 300,
      ttlOf: unlessErrors,
      tags: (c) => [`tax:${subgraphStore(c)}`],
    },
    invalidates: (c) => [`tax:${subgraphStore(c)}`],
  },
  'POST /v1/commerce/order-subgraph': {
    type: 'graphql',
    rule: { kind: 'order-query', ttlSec: 30, ttlOf: unlessErrors, tags: () => ['orders'] },
    invalidates: () => ['orders'],
  },
};

export const policyKey = (call: Pick<UpstreamCall, 'method' | 'route'>): string =>
  `${call.method} ${call.route}`;

/** The TTL table (docs/efficiency.md "Cache"): kind, TTL, routes. */
export function cacheKinds(): { kind: string; ttlSec: number; routes: string[] }[] {
  const rows = new Map<string, { kind: string; ttlSec: number; routes: string[] }>();
  for (const [route, policy] of Object.entries(ROUTE_POLICIES)) {
    if (policy.type !== 'cache' && policy.type !== 'graphql') continue;
    const row = rows.get(policy.rule.kind) ?? {
      kind: policy.rule.kind,
      ttlSec: policy.rule.ttlSec,
      routes: [],
    };
    row.routes.push(route);
    rows.set(policy.rule.kind, row);
  }
  return [...rows.values()];
}

const lowerCased = (headers: Readonly<Record<string, string>> | undefined) => {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) out[key.toLowerCase()] = value;
  return out;
};

export interface CachePolicy {
  decide(call: UpstreamCall): CacheDecision;
}

/**
 * The policy with the configured TTL overrides. Routes without a row are passed through uncached
 * (and a write without a row invalidates nothing: every upstream route has a row, see the tests).
 */
export function createCachePolicy(
  overrides: ReadonlyMap<CacheKind, number> = new Map(),
  table: Readonly<Record<string, RoutePolicy>> = ROUTE_POLICIES,
): CachePolicy {
  const ttlOfKind = (rule: CacheRule) => overrides.get(rule.kind) ?? rule.ttlSec;
  const cacheDecision = (rule: CacheRule, parts: CallParts): CacheDecision => ({
    type: 'cache',
    kind: rule.kind,
    ttlSec: ttlOfKind(rule),
    ttlOf: rule.ttlOf,
    tags: rule.tags(parts),
    sanitize: rule.sanitize,
  });
  return {
    decide(call) {
      const policy = table[policyKey(call)];
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
