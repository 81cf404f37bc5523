/**
 * The upstream routes the domains declare, read through the stack's cache policy: coverage of every
 * upstream route, TTLs, tags, invalidation, limits, circuits, redaction.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { describe, expect, it } from 'vitest';
import { upstreamRoutes } from '../../../src/graph/upstream-routes.ts';
import {
  cacheKinds,
  createCachePolicy,
  type CacheDecision,
} from '../../../src/upstream/cache/cache-policy.ts';
import { createRouteTable, routeKey } from '../../../src/upstream/upstream-routes.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import type { UpstreamCall } from '../../../src/upstream/upstream-call.ts';
import {
  HOSTING_OPERATIONS,
  HOSTING_PREFIX,
} from '../../../src/simulator/routes/hosting/hosting-operations.config.ts';
import { DEFAULT_IP_LIMITS } from '../../../src/simulator/simulator.ts';

const credential = createCredentialFactory('unit-test-secret-0123456789')('demo-token');
const table = upstreamRoutes();
const policy = createCachePolicy(table);
const decide = (call: Omit<UpstreamCall, 'credential'>): CacheDecision =>
  policy.decide({ ...call, credential }, table.of(call)?.cache);

/** Every operation of the three upstream documents. */
const UPSTREAM_ROUTES = [
  'GET /v2/certificates',
  'POST /v2/certificates',
  'POST /v2/certificates/{certificateId}/reissue',
  'GET /v2/certificates/download',
  'GET /v2/customers/{customerId}/certificates',
  'GET /v2/customers/{customerId}/certificates/{certificateId}',
  'GET /v2/customers/{customerId}/certificates/{certificateId}/domainVerifications',
  'GET /v2/customers/{customerId}/certificates/{certificateId}/domainVerifications/{domain}',
  'GET /v2/customers/{customerId}/certificates/acme/externalAccountBinding',
  'GET /v2/certificates/subscriptions/search',
  'GET /v2/certificates/subscription/{guid}',
  ...Object.keys(HOSTING_OPERATIONS).map((operation) => {
    const [method, path] = operation.split(' ');
    return `${method} ${HOSTING_PREFIX}${path}`;
  }),
  'GET /v1/commerce/stores/{storeId}',
  'GET /v1/commerce/stores/{storeId}/attributes/{attrName}',
  'GET /v1/commerce/channels',
  'GET /v1/commerce/channels/{channelId}',
  'GET /v1/commerce/stores/{storeId}/customers',
  'GET /v1/commerce/stores/{storeId}/customers/{customerId}',
  'POST /v1/commerce/stores/{storeId}/customers',
  'PATCH /v1/commerce/stores/{storeId}/customers/{customerId}',
  'GET /v2/commerce/stores/{storeId}/transactions',
  'GET /v2/commerce/stores/{storeId}/transactions/{transactionId}',
  'POST /v2/commerce/stores/{storeId}/catalog-subgraph',
  'POST /v2/commerce/stores/{storeId}/tax-subgraph',
  'POST /v1/commerce/order-subgraph',
];

const H = HOSTING_PREFIX;
const STORE = '11111111-1111-4111-8111-111111111111';
const OTHER_STORE = '22222222-2222-4222-8222-222222222222';

const tagsOf = (decision: CacheDecision): readonly string[] =>
  decision.type === 'pass' ? [] : decision.tags;

describe('cache policy', () => {
  it('has a row for every upstream operation, and no row for anything else', () => {
    expect(UPSTREAM_ROUTES).toHaveLength(11 + 14 + 10 + 3);
    expect(table.routes.map(routeKey).sort()).toEqual([...UPSTREAM_ROUTES].sort());
  });

  it('never caches secrets, polled status or logs', () => {
    const never = table.routes
      .filter((route) => route.cache.type === 'never')
      .map(routeKey)
      .sort();
    expect(never).toEqual(
      [
        'GET /v2/customers/{customerId}/certificates/acme/externalAccountBinding',
        `GET ${H}/apps/jobs/{jobId}`,
        `GET ${H}/apps/{appId}/source/status`,
        `GET ${H}/apps/{appId}/logs`,
      ].sort(),
    );
    expect(
      decide({
        method: 'GET',
        route: '/v2/customers/{customerId}/certificates/acme/externalAccountBinding',
        params: { customerId: 'demo-customer' },
      }).type,
    ).toBe('pass');
    // Secret listings are metadata; changing secrets is a write.
    expect(
      decide({ method: 'GET', route: `${H}/apps/{appId}/secrets`, params: { appId: 'a1' } }).type,
    ).toBe('cache');
    expect(
      decide({
        method: 'POST',
        route: `${H}/apps/{appId}/secrets`,
        params: { appId: 'a1' },
        body: { additions: [{ name: 'X', value: 'v' }] },
      }),
    ).toEqual({ type: 'invalidate', tags: ['app:a1'] });
  });

  it('every write invalidates a tag of each read it makes stale, and none of the others', () => {
    const read = (route: string, params: Record<string, string>, query = {}) =>
      tagsOf(decide({ method: 'GET', route, params, query }));
    const cases: {
      write: Omit<UpstreamCall, 'credential'>;
      stale: (readonly string[])[];
      fresh: (readonly string[])[];
    }[] = [
      {
        write: { method: 'POST', route: '/v2/certificates', body: {} },
        stale: [
          read('/v2/customers/{customerId}/certificates', { customerId: 'c' }),
          read('/v2/certificates', {}, { entitlementId: 'e' }),
          read('/v2/certificates/subscriptions/search', {}),
        ],
        fresh: [
          read('/v2/customers/{customerId}/certificates/{certificateId}', {
            customerId: 'c',
            certificateId: 'x',
          }),
        ],
      },
      {
        write: {
          method: 'POST',
          route: '/v2/certificates/{certificateId}/reissue',
          params: { certificateId: 'cert-1' },
        },
        stale: [
          read('/v2/customers/{customerId}/certificates/{certificateId}', {
            customerId: 'c',
            certificateId: 'cert-1',
          }),
          read('/v2/customers/{customerId}/certificates/{certificateId}/domainVerifications', {
            customerId: 'c',
            certificateId: 'cert-1',
          }),
          read('/v2/certificates/download', {}, { entitlementId: 'e' }),
          read('/v2/customers/{customerId}/certificates', { customerId: 'c' }),
        ],
        fresh: [
          read('/v2/customers/{customerId}/certificates/{certificateId}', {
            customerId: 'c',
            certificateId: 'cert-2',
          }),
        ],
      },
      {
        write: { method: 'POST', route: `${H}/apps`, body: {} },
        stale: [read(`${H}/apps`, {})],
        fresh: [read(`${H}/apps/{appId}`, { appId: 'a1' })],
      },
      ...(['PATCH', 'DELETE'] as const).map((method) => ({
        write: { method, route: `${H}/apps/{appId}`, params: { appId: 'a1' } },
        stale: [
          read(`${H}/apps`, {}),
          read(`${H}/apps/{appId}`, { appId: 'a1' }),
          read(`${H}/apps/{appId}/status`, { appId: 'a1' }),
        ],
        fresh: [read(`${H}/apps/{appId}`, { appId: 'a2' })],
      })),
      ...['source', 'deployments'].map((what) => ({
        write: {
          method: 'POST' as const,
          route: `${H}/apps/{appId}/${what}`,
          params: { appId: 'a1' },
        },
        stale: [
          read(`${H}/apps/{appId}/deployments`, { appId: 'a1' }),
          read(`${H}/apps/{appId}/status`, { appId: 'a1' }),
          read(`${H}/apps/{appId}`, { appId: 'a1' }),
        ],
        fresh: [read(`${H}/apps/{appId}/deployments`, { appId: 'a2' })],
      })),
      {
        write: { method: 'POST', route: `${H}/apps/{appId}/secrets`, params: { appId: 'a1' } },
        stale: [read(`${H}/apps/{appId}/secrets`, { appId: 'a1' })],
        fresh: [read(`${H}/apps/{appId}/secrets`, { appId: 'a2' })],
      },
      {
        write: {
          method: 'POST',
          route: '/v1/commerce/stores/{storeId}/customers',
          params: { storeId: STORE },
        },
        stale: [read('/v1/commerce/stores/{storeId}/customers', { storeId: STORE })],
        fresh: [read('/v1/commerce/stores/{storeId}/customers', { storeId: OTHER_STORE })],
      },
      {
        write: {
          method: 'PATCH',
          route: '/v1/commerce/stores/{storeId}/customers/{customerId}',
          params: { storeId: STORE, customerId: 'cu1' },
        },
        stale: [
          read('/v1/commerce/stores/{storeId}/customers', { storeId: STORE }),
          read('/v1/commerce/stores/{storeId}/customers/{customerId}', {
            storeId: STORE,
            customerId: 'cu1',
          }),
        ],
        fresh: [read('/v1/commerce/stores/{storeId}', { storeId: STORE })],
      },
    ];
    for (const { write, stale, fresh } of cases) {
      const decision = decide(write);
      expect(decision.type, `${write.method} ${write.route}`).toBe('invalidate');
      const bumped = new Set(tagsOf(decision));
      for (const tags of stale)
        expect(
          tags.some((t) => bumped.has(t)),
          `${write.route} → ${tags}`,
        ).toBe(true);
      for (const tags of fresh)
        expect(
          tags.some((t) => bumped.has(t)),
          `${write.route} ↛ ${tags}`,
        ).toBe(false);
    }
  });

  it('caches subgraph queries per store and invalidates them with any mutation on that store', () => {
    const catalog = '/v2/commerce/stores/{storeId}/catalog-subgraph';
    const query = decide({
      method: 'POST',
      route: catalog,
      params: { storeId: STORE },
      headers: { 'X-Store-Id': STORE },
      body: {
        query: 'query Sku($id: String!) { sku(id: $id) { id name } }',
        variables: { id: 's1' },
      },
    });
    expect(query).toMatchObject({
      type: 'cache',
      kind: 'catalog-query',
      tags: [`catalog:${STORE}`],
    });
    const mutation = decide({
      method: 'POST',
      route: catalog,
      params: { storeId: OTHER_STORE },
      // The header wins over the path, as upstream.
      headers: { 'x-store-id': STORE },
      body: { query: 'mutation { createSku(input: {name: "x"}) { id } }' },
    });
    expect(mutation).toEqual({ type: 'invalidate', tags: [`catalog:${STORE}`] });
    // A named operation in a multi-operation document decides; garbage counts as a write.
    const twoOps = 'query A { sku(id: "1") { id } } mutation B { createSku(input: {}) { id } }';
    expect(
      decide({
        method: 'POST',
        route: catalog,
        params: { storeId: STORE },
        body: { query: twoOps, operationName: 'A' },
      }).type,
    ).toBe('cache');
    expect(
      decide({
        method: 'POST',
        route: catalog,
        params: { storeId: STORE },
        body: { query: twoOps, operationName: 'B' },
      }).type,
    ).toBe('invalidate');
    expect(
      decide({
        method: 'POST',
        route: catalog,
        params: { storeId: STORE },
        body: { query: twoOps },
      }).type,
    ).toBe('invalidate');
    expect(
      decide({
        method: 'POST',
        route: catalog,
        params: { storeId: STORE },
        body: { query: '{ broken' },
      }).type,
    ).toBe('invalidate');
    // Orders carry no store: one tag for the order subgraph.
    expect(
      decide({
        method: 'POST',
        route: '/v1/commerce/order-subgraph',
        body: { query: '{ orders { id } }' },
      }),
    ).toMatchObject({ type: 'cache', tags: ['orders'] });
  });

  it('caches an issued certificate long and reads a pending one at most every 15 s', () => {
    const detail = decide({
      method: 'GET',
      route: '/v2/customers/{customerId}/certificates/{certificateId}',
      params: { customerId: 'c', certificateId: 'x' },
    });
    if (detail.type !== 'cache' || !detail.ttlOf)
      throw new Error('expected a cache rule with ttlOf');
    expect(detail.ttlOf({ status: 'ISSUED' }, detail.ttlSec)).toBe(3600);
    expect(detail.ttlOf({ status: 'PENDING_ISSUANCE' }, detail.ttlSec)).toBe(15);
    expect(detail.ttlOf({ status: 'SOMETHING_NEW' }, detail.ttlSec)).toBe(15);
    // An override shorter than the schedule wins (CACHE_TTL_OVERRIDES=certificate-detail=1).
    expect(detail.ttlOf({ status: 'PENDING_ISSUANCE' }, 1)).toBe(1);
  });

  it('keeps settled runtime status and deployments 30 s, and what still moves 5 s', () => {
    const status = decide({
      method: 'GET',
      route: '/v1/hosting/nodejs/apps/{appId}/status',
      params: { appId: 'a' },
    });
    const deployments = decide({
      method: 'GET',
      route: '/v1/hosting/nodejs/apps/{appId}/deployments',
      params: { appId: 'a' },
      query: { limit: 3 },
    });
    if (status.type !== 'cache' || !status.ttlOf) throw new Error('expected a cache rule');
    if (deployments.type !== 'cache' || !deployments.ttlOf)
      throw new Error('expected a cache rule');
    const variants = (lifecycleState: string) => ({
      appStatus: 'active',
      variants: [
        { variant: 'preview', status: 'running', lifecycleState: 'live' },
        { variant: 'publish', status: 'running', lifecycleState },
      ],
    });
    expect(status.ttlOf(variants('live'), status.ttlSec)).toBe(30);
    expect(status.ttlOf(variants('not_deployed'), status.ttlSec)).toBe(30);
    expect(status.ttlOf(variants('deploying'), status.ttlSec)).toBe(5);
    expect(status.ttlOf(variants('BUILDING'), status.ttlSec)).toBe(5);
    const list = (...statuses: string[]) => ({
      deployments: statuses.map((s, i) => ({ id: `d${i}`, status: s })),
      totalCount: statuses.length,
      hasMore: false,
    });
    expect(deployments.ttlOf(list('succeeded', 'failed'), deployments.ttlSec)).toBe(30);
    expect(deployments.ttlOf(list(), deployments.ttlSec)).toBe(30);
    expect(deployments.ttlOf(list('in_progress', 'succeeded'), deployments.ttlSec)).toBe(5);
    expect(deployments.ttlOf(list('pending'), deployments.ttlSec)).toBe(5);
  });

  it('does not store subgraph answers carrying GraphQL errors', () => {
    const tax = decide({
      method: 'POST',
      route: '/v2/commerce/stores/{storeId}/tax-subgraph',
      params: { storeId: STORE },
      body: { query: '{ classification(id: "1") { id } }' },
    });
    if (tax.type !== 'cache' || !tax.ttlOf) throw new Error('expected a cache rule with ttlOf');
    expect(tax.ttlOf({ errors: [{ message: 'Failed to authorize' }] }, tax.ttlSec)).toBe(0);
    expect(tax.ttlOf({ data: { classification: null } }, tax.ttlSec)).toBe(300);
  });

  it('takes TTL overrides per kind', () => {
    const overrides = loadConfig({ CACHE_TTL_OVERRIDES: 'app=5,store=1' }).CACHE_TTL_OVERRIDES;
    expect([...overrides]).toEqual([
      ['app', 5],
      ['store', 1],
    ]);
    const call = {
      method: 'GET' as const,
      route: '/v1/commerce/stores/{storeId}',
      params: { storeId: STORE },
      credential,
    };
    const decision = createCachePolicy(table, overrides).decide(call, table.of(call)?.cache);
    expect(decision).toMatchObject({ type: 'cache', ttlSec: 1 });
  });

  it('refuses an override naming a kind no route declares, naming it and every declared kind', () => {
    const overrides = loadConfig({
      CACHE_TTL_OVERRIDES: 'app=5,aap=3,certficate-list=1',
    }).CACHE_TTL_OVERRIDES;
    const refusal = (() => {
      try {
        createCachePolicy(table, overrides);
      } catch (error) {
        return error;
      }
      throw new Error('expected a refusal');
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    const message = (refusal as ConfigError).message;
    expect(message).toMatch(
      /^Invalid configuration: CACHE_TTL_OVERRIDES: unknown kinds "aap", "certficate-list" \(known: certificate-/,
    );
    for (const { kind } of cacheKinds(table)) expect(message).toContain(kind);
    expect(() => createCachePolicy(table, new Map([['app', 5]]))).not.toThrow();
  });

  it('declares exactly the cache kinds docs/budget.md lists', () => {
    const doc = readFileSync(new URL('../../../docs/budget.md', import.meta.url), 'utf8');
    const cacheSection = doc.slice(doc.indexOf('## Cache'), doc.indexOf('## Budget'));
    const documented = cacheSection
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([a-z0-9-]+)`/g)])
      .map((match) => match[1]);
    expect(new Set(documented)).toEqual(new Set(cacheKinds(table).map((row) => row.kind)));
  });

  it('passes unknown routes through', () => {
    expect(decide({ method: 'GET', route: '/v9/unknown' })).toEqual({ type: 'pass' });
  });
});

describe('route declarations beside the cache', () => {
  const declared = (key: string) => {
    const [method, route] = key.split(' ') as [UpstreamCall['method'], string];
    const found = table.of({ method, route });
    if (!found) throw new Error(`${key} is not declared`);
    return found;
  };

  it('gives each upstream part its own circuit', () => {
    const parts = Object.fromEntries(UPSTREAM_ROUTES.map((key) => [key, declared(key).breaker]));
    expect(new Set(Object.values(parts))).toEqual(
      new Set(['certificates', 'hosting', 'commerce', 'catalog', 'tax', 'order']),
    );
    expect(parts[`GET ${H}/apps/{appId}`]).toBe('hosting');
    expect(parts['POST /v2/commerce/stores/{storeId}/catalog-subgraph']).toBe('catalog');
    expect(parts['POST /v2/commerce/stores/{storeId}/tax-subgraph']).toBe('tax');
    expect(parts['POST /v1/commerce/order-subgraph']).toBe('order');
    expect(parts['GET /v1/commerce/stores/{storeId}']).toBe('commerce');
    expect(parts['GET /v2/customers/{customerId}/certificates']).toBe('certificates');
  });

  it("mirrors the upstream's per-IP hosting limits and the catalog's burst limit", () => {
    for (const [operation, { ipClass }] of Object.entries(HOSTING_OPERATIONS)) {
      const [method, path] = operation.split(' ');
      const limitClass = declared(`${method} ${H}${path}`).limitClass;
      // The gateway's bucket is the simulator's per-IP class of the operation, one for everyone.
      expect({ operation, ...limitClass }).toEqual({
        operation,
        name: ipClass,
        limit: DEFAULT_IP_LIMITS[ipClass],
        windowMs: 60_000,
        perCredential: false,
      });
    }
    expect(
      declared('POST /v2/commerce/stores/{storeId}/catalog-subgraph').limitClass,
    ).toMatchObject({
      limit: 120,
      perCredential: true,
    });
    const unlimited = UPSTREAM_ROUTES.filter(
      (key) => !key.includes(H) && !key.includes('catalog-subgraph'),
    );
    for (const key of unlimited) expect(declared(key).limitClass).toBeUndefined();
  });

  it('redacts the transaction answers and nothing else', () => {
    const redacted = UPSTREAM_ROUTES.filter((key) => declared(key).redact !== undefined);
    expect(redacted.sort()).toEqual([
      'GET /v2/commerce/stores/{storeId}/transactions',
      'GET /v2/commerce/stores/{storeId}/transactions/{transactionId}',
    ]);
  });

  it('refuses a route declared twice', () => {
    const route = declared('GET /v1/commerce/channels');
    expect(() => createRouteTable([route, route])).toThrow(/declared twice/);
  });
});
