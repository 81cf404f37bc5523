/**
 * The cache + singleflight layer around the upstream client: hits, misses, stale-if-error within a
 * bounded age, invalidation by writes, credential isolation. The upstream is a scripted fake; the
 * clock is virtual.
 */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { ErrorCode } from '../../../../src/errors/error-codes.ts';
import { GatewayError, UpstreamError } from '../../../../src/errors/gateway-errors.ts';
import { createCacheKeyer } from '../../../../src/upstream/cache/cache-key.ts';
import { createCachePolicy } from '../../../../src/upstream/cache/cache-policy.ts';
import { upstreamRoutes } from '../../../../src/graph/upstream-routes.ts';
import { createCachedUpstreamClient } from '../../../../src/upstream/cache/cached-upstream-client.ts';
import { createRouteLookup } from '../../../../src/upstream/route-lookup.ts';
import { createCredentialFactory } from '../../../../src/upstream/credential.ts';
import { createRequestFacts } from '../../../../src/upstream/request-facts.ts';
import {
  createUpstreamCache,
  type UpstreamCache,
} from '../../../../src/upstream/cache/upstream-cache.ts';
import {
  createSecondSightAdmission,
  type SecondSightAdmission,
} from '../../../../src/upstream/cache/second-sight-admission.ts';
import { createSingleflight } from '../../../../src/upstream/cache/singleflight.ts';
import type { UpstreamCall, UpstreamResponse } from '../../../../src/upstream/upstream-call.ts';
import type { UpstreamClient } from '../../../../src/upstream/upstream-call.ts';
import type {
  CrossReplicaFlight,
  FlightRequest,
  FlightResult,
} from '../../../../src/upstream/cache/cross-replica-flight.ts';
import { deferred, until } from '../../../support/clock.ts';

const credentialFor = createCredentialFactory('unit-test-secret-0123456789');
const alice = credentialFor('alice-token');
const bob = credentialFor('bob-token');
const APP = '/v1/hosting/nodejs/apps/{appId}';

type Answer = (call: UpstreamCall) => Promise<unknown>;

function setup(
  answer: Answer = async (call) => ({ appId: call.params?.appId, n: Math.random() }),
  extra: { admission?: SecondSightAdmission } = {},
  cacheAround: (cache: UpstreamCache) => UpstreamCache = (cache) => cache,
) {
  let clock = 1_000_000;
  const calls: UpstreamCall[] = [];
  const inner: UpstreamClient = {
    async request<T>(call: UpstreamCall): Promise<UpstreamResponse<T>> {
      calls.push(call);
      return { status: 200, data: (await answer(call)) as T, headers: {}, rateLimit: undefined };
    },
    probe: async () => true,
    close: async () => undefined,
  };
  const routes = upstreamRoutes();
  const client = createRouteLookup(
    createCachedUpstreamClient({
      inner,
      cache: cacheAround(
        createUpstreamCache({
          store: { type: 'memory', maxBytes: 1 << 20 },
          tagTtlMs: 3_600_000,
        }),
      ),
      policy: createCachePolicy(routes),
      keyOf: createCacheKeyer('unit-test-secret-0123456789'),
      singleflight: createSingleflight(),
      staleMaxAgeMs: 60_000,
      logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
      now: () => clock,
      ...extra,
    }),
    routes,
  );
  return {
    client,
    calls,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const readApp = (credential = alice, appId = 'a1', facts = createRequestFacts()) =>
  ({
    method: 'GET',
    route: APP,
    params: { appId },
    credential,
    scope: { credential, requestId: 'r', facts },
  }) satisfies UpstreamCall;

describe('cached upstream client', () => {
  it('answers a fresh entry without an upstream call, and goes upstream after the TTL', async () => {
    const { client, calls, advance } = setup();
    const first = await client.request(readApp());
    const second = await client.request(readApp());
    expect(second.data).toEqual(first.data);
    expect(calls).toHaveLength(1);
    advance(31_000); // app TTL: 30 s
    await client.request(readApp());
    expect(calls).toHaveLength(2);
  });

  it('lets a polling caller skip a fresh entry, and refreshes the entry with its answer', async () => {
    const { client, calls } = setup();
    await client.request(readApp());
    const polled = await client.request({ ...readApp(), fresh: true });
    expect(calls).toHaveLength(2);
    const cachedAgain = await client.request(readApp());
    expect(cachedAgain.data).toEqual(polled.data);
    expect(calls).toHaveLength(2);
  });

  it("never serves one credential's entry to another", async () => {
    const { client, calls } = setup(async (call) => ({ owner: call.credential.id }));
    const a = await client.request(readApp(alice));
    const b = await client.request(readApp(bob));
    expect(calls).toHaveLength(2);
    expect(a.data).toEqual({ owner: alice.id });
    expect(b.data).toEqual({ owner: bob.id });
  });

  it('shares one call among identical reads in flight, per credential', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client, calls } = setup(async (call) => {
      await gate;
      return { owner: call.credential.id };
    });
    const all = Promise.all([
      client.request(readApp(alice)),
      client.request(readApp(alice)),
      client.request(readApp(alice)),
      client.request(readApp(bob)),
    ]);
    // Started in order, alice's three before bob's: once bob's call has reached the upstream,
    // alice's other two have joined hers (or, unshared, made calls of their own).
    await until(() => calls.length >= 2, "both credentials' calls in flight");
    release();
    const answers = await all;
    expect(calls).toHaveLength(2);
    expect(answers.map((a) => (a.data as { owner: string }).owner)).toEqual([
      alice.id,
      alice.id,
      alice.id,
      bob.id,
    ]);
  });

  it('reads the cache again, instead of calling, when the call it would have joined settled during its lookup', async () => {
    // The second read's lookup is on its way (a slow Redis) while the first read's call is answered
    // and stored: it misses, and finds no call in flight to join.
    const slowLookup = deferred();
    let lookups = 0;
    const { client, calls } = setup(undefined, {}, (cache) => ({
      ...cache,
      async lookup(key, tags) {
        lookups += 1;
        const missed = cache.lookup(key, tags);
        if (lookups === 2) await slowLookup.promise;
        return missed;
      },
    }));
    const first = client.request(readApp());
    const second = client.request(readApp());
    const answered = await first;
    expect(calls).toHaveLength(1);
    slowLookup.resolve();
    expect((await second).data).toEqual(answered.data);
    expect(calls).toHaveLength(1);
    expect(lookups).toBe(3);
  });

  it('serves a stale value, and says so, when the upstream fails or the budget is empty', async () => {
    const failures: unknown[] = [
      new UpstreamError({ kind: 'http', method: 'GET', route: APP, status: 503, message: 'down' }),
      new UpstreamError({
        kind: 'http',
        method: 'GET',
        route: APP,
        status: 429,
        message: 'slow',
        retryAfterSec: 9,
      }),
      new UpstreamError({ kind: 'network', method: 'GET', route: APP, message: 'reset' }),
      new GatewayError(ErrorCode.RATE_LIMITED, 'empty bucket', { retryAfterSec: 30 }),
      new GatewayError(ErrorCode.UPSTREAM_UNAVAILABLE, 'circuit open', { retryAfterSec: 5 }),
    ];
    let failWith: unknown;
    const { client, advance } = setup(async () => {
      if (failWith) throw failWith;
      return { appId: 'a1', name: 'good' };
    });
    await client.request(readApp());
    advance(40_000); // past the 30 s TTL
    for (const failure of failures) {
      failWith = failure;
      const facts = createRequestFacts();
      const answer = await client.request(readApp(alice, 'a1', facts));
      expect(answer.data).toEqual({ appId: 'a1', name: 'good' });
      expect(facts.stale).toEqual([
        {
          route: `GET ${APP}`,
          ageSec: 40,
          reason:
            (failure instanceof GatewayError && failure.code === ErrorCode.RATE_LIMITED) ||
            (failure as UpstreamError).status === 429
              ? 'RATE_LIMITED'
              : 'UPSTREAM_ERROR',
        },
      ]);
    }
  });

  it('does not serve stale past the bound, nor for errors that are answers (404)', async () => {
    let failWith: unknown;
    const { client, advance } = setup(async () => {
      if (failWith) throw failWith;
      return { appId: 'a1' };
    });
    await client.request(readApp());
    advance(31_000);
    failWith = new UpstreamError({
      kind: 'http',
      method: 'GET',
      route: APP,
      status: 404,
      message: 'gone',
    });
    await expect(client.request(readApp())).rejects.toMatchObject({ status: 404 });
    advance(60_000); // 91 s old: TTL 30 s + stale bound 60 s passed
    failWith = new UpstreamError({
      kind: 'http',
      method: 'GET',
      route: APP,
      status: 503,
      message: 'down',
    });
    await expect(client.request(readApp())).rejects.toMatchObject({ status: 503 });
  });

  it('invalidates what a write makes stale, for every credential, and never serves it stale', async () => {
    let version = 1;
    let down = false;
    const { client, calls } = setup(async (call) => {
      if (call.method !== 'GET') return undefined;
      if (down)
        throw new UpstreamError({
          kind: 'http',
          method: 'GET',
          route: APP,
          status: 503,
          message: 'down',
        });
      return { appId: call.params?.appId, version };
    });
    await client.request(readApp(alice));
    await client.request(readApp(bob));
    await client.request(readApp(alice, 'a2'));
    version = 2;
    await client.request({
      method: 'PATCH',
      route: APP,
      params: { appId: 'a1' },
      body: { name: 'n' },
      credential: alice,
    });
    expect((await client.request(readApp(alice))).data).toMatchObject({ version: 2 });
    expect((await client.request(readApp(bob))).data).toMatchObject({ version: 2 });
    expect((await client.request(readApp(alice, 'a2'))).data).toMatchObject({ version: 1 });
    expect(calls.filter((c) => c.method === 'GET')).toHaveLength(5);
    // An invalidated entry is gone, not stale.
    await client.request({
      method: 'DELETE',
      route: APP,
      params: { appId: 'a1' },
      credential: alice,
    });
    down = true;
    await expect(client.request(readApp(alice))).rejects.toMatchObject({ status: 503 });
  });

  it('invalidates after a write that failed in a way that may have applied it, not after a 4xx', async () => {
    let writeError: unknown;
    let version = 1;
    const { client, calls } = setup(async (call) => {
      if (call.method === 'GET') return { version };
      if (writeError) throw writeError;
      return undefined;
    });
    const patch = {
      method: 'PATCH' as const,
      route: APP,
      params: { appId: 'a1' },
      body: {},
      credential: alice,
    };
    await client.request(readApp());
    writeError = new UpstreamError({
      kind: 'http',
      method: 'PATCH',
      route: APP,
      status: 422,
      message: 'bad',
    });
    await expect(client.request(patch)).rejects.toBeTruthy();
    await client.request(readApp());
    expect(calls.filter((c) => c.method === 'GET')).toHaveLength(1);
    writeError = new UpstreamError({
      kind: 'timeout',
      method: 'PATCH',
      route: APP,
      message: 'slow',
      outcomeUnknown: true,
    });
    version = 2;
    await expect(client.request(patch)).rejects.toBeTruthy();
    expect((await client.request(readApp())).data).toEqual({ version: 2 });
  });

  it('never caches the never list, but still shares identical GETs in flight', async () => {
    const { client, calls } = setup(async () => ({
      directoryUrl: 'u',
      keyId: 'k',
      hmacKey: 'secret',
    }));
    const eab = {
      method: 'GET' as const,
      route: '/v2/customers/{customerId}/certificates/acme/externalAccountBinding',
      params: { customerId: 'c' },
      credential: alice,
    };
    await Promise.all([client.request(eab), client.request(eab)]);
    expect(calls).toHaveLength(1);
    await client.request(eab);
    expect(calls).toHaveLength(2);
  });

  it('lets a caller abort its wait for a shared call without ending it for the others', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client } = setup(async () => {
      await gate;
      return { appId: 'a1' };
    });
    const controller = new AbortController();
    const aborted = client.request({ ...readApp(), signal: controller.signal });
    const other = client.request(readApp());
    controller.abort(new Error('unsubscribed'));
    await expect(aborted).rejects.toThrow('unsubscribed');
    release();
    await expect(other).resolves.toMatchObject({ data: { appId: 'a1' } });
  });
});

describe('cached upstream client: a page with a free filter is kept on its second sight', () => {
  const STORE = '11111111-1111-4111-8111-111111111111';
  const readTransactions = (query: Record<string, string>, facts = createRequestFacts()) =>
    ({
      method: 'GET',
      route: '/v2/commerce/stores/{storeId}/transactions',
      params: { storeId: STORE },
      query: { page: '1', pageSize: '10', ...query },
      credential: alice,
      scope: { credential: alice, requestId: 'r', facts },
    }) satisfies UpstreamCall;
  const page = async () => ({ items: [], n: Math.random() });

  it('does not store the first answer, stores the second, then answers from the cache', async () => {
    const { client, calls } = setup(page, { admission: createSecondSightAdmission() });
    const filtered = { updatedAtAfter: '2026-01-05T00:00:00Z' };
    await client.request(readTransactions(filtered));
    await client.request(readTransactions(filtered));
    expect(calls).toHaveLength(2);
    const third = await client.request(readTransactions(filtered));
    expect(calls).toHaveLength(2);
    // The third is the stored second answer.
    expect(third.data).toEqual((await client.request(readTransactions(filtered))).data);
    expect(calls).toHaveLength(2);
  });

  it('leaves the first answer replayable, valid as long as a stored one would be', async () => {
    const { client } = setup(page, { admission: createSecondSightAdmission() });
    const facts = createRequestFacts();
    await client.request(readTransactions({ updatedAtBefore: '2026-01-06T00:00:00Z' }, facts));
    expect(facts.replayability).toEqual({
      cacheable: true,
      tags: { [`transactions:${STORE}`]: '0' },
      freshUntil: 1_000_000 + 30_000, // transaction TTL: 30 s from the call's start
    });
  });

  it('stores a page without a free filter on its first sight', async () => {
    const { client, calls } = setup(page, { admission: createSecondSightAdmission() });
    await client.request(readTransactions({}));
    await client.request(readTransactions({}));
    expect(calls).toHaveLength(1);
  });

  it('stores every answer on its first sight without an admission rule', async () => {
    const { client, calls } = setup(page);
    const filtered = { updatedAtAfter: '2026-01-07T00:00:00Z' };
    await client.request(readTransactions(filtered));
    await client.request(readTransactions(filtered));
    expect(calls).toHaveLength(1);
  });
});

describe('cached upstream client across replicas', () => {
  /**
   * A flight shared by the replicas in this process, standing in for Redis: the first replica to
   * miss a key leads; the others wait for its outcome, then read what it stored.
   */
  function sharedFlight() {
    const leading = new Map<string, Promise<boolean>>();
    const runs: string[] = [];
    const flight: CrossReplicaFlight = {
      async run<T>(request: FlightRequest<T>): Promise<FlightResult<T>> {
        runs.push(request.key);
        const leader = leading.get(request.key);
        if (leader) {
          if (await leader) {
            const value = await request.reread();
            if (value !== undefined) return { value, fromPeer: true };
          }
          return { value: (await request.fetch(request.deadlineMs)).value, fromPeer: false };
        }
        const fetched = request.fetch(request.deadlineMs);
        const stored = fetched.then(
          (result) => result.stored,
          () => false,
        );
        leading.set(request.key, stored);
        void stored.then(() => leading.delete(request.key));
        return { value: (await fetched).value, fromPeer: false };
      },
      listening: true,
      waiting: 0,
      close: async () => undefined,
    };
    return { flight, runs };
  }

  function replicas(count: number, release: Promise<void>) {
    const cache = createUpstreamCache({
      store: { type: 'memory', maxBytes: 1 << 20 },
      tagTtlMs: 3_600_000,
    });
    const { flight, runs } = sharedFlight();
    const calls: UpstreamCall[] = [];
    const routes = upstreamRoutes();
    const clients = Array.from({ length: count }, () =>
      createRouteLookup(
        createCachedUpstreamClient({
          inner: {
            async request<T>(call: UpstreamCall): Promise<UpstreamResponse<T>> {
              calls.push(call);
              await release;
              const data = { appId: call.params?.appId, call: calls.length } as T;
              return { status: 200, data, headers: {}, rateLimit: undefined };
            },
            probe: async () => true,
            close: async () => undefined,
          },
          cache,
          policy: createCachePolicy(routes),
          keyOf: createCacheKeyer('unit-test-secret-0123456789'),
          singleflight: createSingleflight(),
          acrossReplicas: flight,
          deadlineMs: 10_000,
          staleMaxAgeMs: 60_000,
          logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
        }),
        routes,
      ),
    );
    return { clients, calls, runs, cache };
  }

  it("answers a replica's miss from the entry another replica's call stored", async () => {
    const release = deferred();
    const { clients, calls } = replicas(3, release.promise);
    const reads = clients.map((client) => client.request(readApp()));
    await until(() => calls.length === 1, 'the leading call');
    release.resolve();
    const answers = await Promise.all(reads);
    expect(calls).toHaveLength(1);
    expect(answers.map((a) => a.data)).toEqual([1, 2, 3].map(() => ({ appId: 'a1', call: 1 })));
  });

  it("fetches for itself when a write made the leader's answer invalid before it was stored", async () => {
    const release = deferred();
    const { clients, calls, cache } = replicas(2, release.promise);
    const [a, b] = clients as [UpstreamClient, UpstreamClient];
    const first = a.request(readApp());
    await until(() => calls.length === 1, 'the leading call');
    const second = b.request(readApp());
    await cache.invalidate(['app:a1']); // a write lands while the leader's call is in flight
    release.resolve();
    await Promise.all([first, second]);
    expect(calls).toHaveLength(2);
  });

  it('lets a polling caller (fresh) fetch for itself, outside the flight', async () => {
    const { clients, calls, runs } = replicas(1, Promise.resolve());
    await clients[0]!.request({ ...readApp(), fresh: true });
    expect(calls).toHaveLength(1);
    expect(runs).toHaveLength(0);
  });
});
