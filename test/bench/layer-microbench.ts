/**
 * The cost of Weft's own efficiency layers, measured alone in this process: a cache hit through the
 * cached upstream client (memory store), and a token-bucket take + correction per upstream call
 * (memory, and Redis when it answers). These isolate what the end-to-end runs cannot: how much of a
 * request's CPU is the cache and the limiter, as opposed to Apollo, GraphQL execution and HTTP —
 * and whether the memory cache's byte bound (estimated heap weights) bounds the heap it really takes.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { createClient } from 'redis';
import type { FastifyBaseLogger } from 'fastify';
import { createCacheKeyer } from '../../src/upstream/cache/cache-key.ts';
import { createCachePolicy } from '../../src/upstream/cache/cache-policy.ts';
import { upstreamRoutes } from '../../src/graph/upstream-routes.ts';
import { createCachedUpstreamClient } from '../../src/upstream/cache/cached-upstream-client.ts';
import { createCrossReplicaFlight } from '../../src/upstream/cache/cross-replica-flight.ts';
import { createRouteLookup } from '../../src/upstream/route-lookup.ts';
import { createCredentialFactory } from '../../src/upstream/credential.ts';
import { createMemoryBucketStore } from '../../src/upstream/budget/memory-bucket-store.ts';
import { createRedisConnection } from '../../src/redis/redis-connection.ts';
import { freezeDeep } from '../../src/upstream/cache/frozen-value.ts';
import { createUpstreamCache } from '../../src/upstream/cache/upstream-cache.ts';
import { createSharedBuckets } from '../../src/upstream/budget/shared-buckets.ts';
import { createSingleflight } from '../../src/upstream/cache/singleflight.ts';
import { createTokenBucketLimiter } from '../../src/upstream/budget/token-bucket.ts';
import { type BucketStore } from '../../src/upstream/budget/bucket-store.ts';
import type { UpstreamCall, UpstreamResponse } from '../../src/upstream/upstream-call.ts';
import type { UpstreamClient } from '../../src/upstream/upstream-call.ts';

const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const credential = createCredentialFactory('bench-secret-0123456789abcdef')('demo-token');

/** Microseconds per call of `fn`, after a warm-up. */
async function perCallUs(fn: () => Promise<unknown>, calls: number): Promise<number> {
  for (let i = 0; i < Math.min(2_000, calls); i += 1) await fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) await fn();
  return Number(process.hrtime.bigint() - started) / 1_000 / calls;
}

/** A cache hit of a certificate detail (the load runs' query) through the real layer. */
export async function cacheHitUs(detail: unknown): Promise<number> {
  const inner: UpstreamClient = {
    request: async <T>() =>
      ({
        status: 200,
        data: structuredClone(detail) as T,
        headers: {},
        rateLimit: undefined,
      }) as UpstreamResponse<T>,
    probe: async () => true,
    close: async () => undefined,
  };
  const routes = upstreamRoutes();
  const client = createRouteLookup(
    createCachedUpstreamClient({
      inner,
      cache: createUpstreamCache({
        store: { type: 'memory', maxBytes: 64 << 20 },
        tagTtlMs: 3_600_000,
      }),
      policy: createCachePolicy(routes),
      keyOf: createCacheKeyer('bench-secret-0123456789abcdef'),
      singleflight: createSingleflight(),
      staleMaxAgeMs: 600_000,
      logger: silent,
    }),
    routes,
  );
  const call: UpstreamCall = {
    method: 'GET',
    route: '/v2/customers/{customerId}/certificates/{certificateId}',
    params: { customerId: 'demo-customer', certificateId: 'cert-0005' },
    credential,
  };
  await client.request(call);
  return perCallUs(() => client.request(call), 20_000);
}

/**
 * What the memory cache's byte bound counts for an answer (its estimated heap size, as frozen)
 * against the heap it really takes: `copies` parsed copies held, the heap measured around them after
 * full collections. Above 1 the bound is conservative; below, the heap could outgrow it.
 */
export function cacheWeightVsHeap(
  text: string,
  copies = 2_000,
): { estimated: number; heap: number; text: number } {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const held: unknown[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  let estimated = 0;
  for (let i = 0; i < copies; i += 1) {
    const value: unknown = JSON.parse(text);
    estimated += freezeDeep(value);
    held.push(value);
  }
  gc();
  const heap = (process.memoryUsage().heapUsed - before) / copies;
  held.length = 0;
  return { estimated: estimated / copies, heap, text: text.length };
}

/**
 * One upstream call's worth of limiter work: take a token (a read, as a dashboard's calls are),
 * then apply the answer's headers, which also ends the call's place in the send window (its ticket).
 */
async function limiterUs(store: BucketStore, calls: number): Promise<number> {
  const limiter = createTokenBucketLimiter({ store, maxWaitMs: 0 });
  let remaining = 1_000_000_000;
  return perCallUs(async () => {
    const { ticket } = await limiter.acquire(credential.id, undefined, { priority: 'read' });
    remaining -= 1;
    // As the budgeted transport does: every answer goes back with the call's ticket.
    await limiter.observe(credential.id, undefined, {
      limit: 1_000_000_000,
      remaining,
      resetMs: 1_399_000,
      ticket,
    });
  }, calls);
}

export async function limiterMemoryUs(): Promise<number> {
  const budget = { capacity: 1_000_000_000, windowMs: 1_399_000 };
  return limiterUs(createMemoryBucketStore({ budget }), 20_000);
}

export async function limiterRedisUs(url: string, prefix: string): Promise<number> {
  const connection = createRedisConnection({
    url,
    connectTimeoutMs: 1_000,
    commandTimeoutMs: 1_000,
    logger: silent,
  });
  try {
    if (!(await connection.usable())) return NaN;
    const budget = { capacity: 1_000_000_000, windowMs: 1_399_000 };
    // As in a gateway: the replica's buckets under leases of the shared ones.
    const shared = createSharedBuckets({ redis: connection, budget, prefix, logger: silent });
    try {
      return await limiterUs(shared.store, 3_000);
    } finally {
      await shared.close();
    }
  } finally {
    await connection.close();
  }
}

/**
 * What one fetch across replicas adds to a miss (Redis), in µs: on the replica that fetches (the
 * lease `SET`, and the marker and publish after the answer, which share the connection with the
 * next miss's `SET`), and on one that asks just after it finished (the `SET` that finds the marker;
 * its cache read, the same as a hit's, is not counted). An upstream call that answers at once
 * stands for the fetch, so only the Redis part is measured.
 */
export async function crossReplicaMissUs(
  url: string,
  prefix: string,
): Promise<{ leader: number; lateJoiner: number }> {
  const connection = createRedisConnection({
    url,
    connectTimeoutMs: 1_000,
    commandTimeoutMs: 1_000,
    logger: silent,
  });
  const flight = createCrossReplicaFlight({ redis: connection, prefix, leaseMs: 60_000 });
  try {
    if (!(await connection.usable())) return { leader: NaN, lateJoiner: NaN };
    const listening = performance.now() + 5_000;
    while (!flight.listening && performance.now() < listening) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const fetch = async () => ({ value: 1, stored: true });
    const reread = async () => 1;
    const run = (key: string) =>
      flight.run({ credentialId: 'bench', key, deadlineMs: 10_000, fetch, reread });
    const calls = 2_000;
    const alone = await perCallUs(fetch, calls);
    let leaderKeys = 0;
    const leader = await perCallUs(() => run(`bench:k:${(leaderKeys += 1)}`), calls);
    let joinerKeys = 0;
    const lateJoiner = await perCallUs(() => run(`bench:k:${(joinerKeys += 1)}`), calls);
    return { leader: leader - alone, lateJoiner };
  } finally {
    const admin = createClient({ url });
    admin.on('error', () => undefined);
    await admin.connect();
    for await (const keys of admin.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
      if (keys.length > 0) await admin.del(keys);
    }
    await admin.close();
    await flight.close();
    await connection.close();
  }
}
