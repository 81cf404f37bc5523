/**
 * Builds the one upstream client from the configuration and the route table. The order of its layers
 * is the list `layers` below, outermost first — the one place it is written (README "The request
 * path" and docs/budget.md point here). A call enters through the route lookup, which attaches
 * its route's declaration (`route-lookup.ts`) for every layer below to read.
 *
 * The token bucket wraps the transport so that every attempt, retries included, is paid for; the
 * cache and singleflight wrap the client so that a hit costs no attempt at all. With `REDIS_URL` (or
 * `REDIS_CLUSTER_NODES`), the cache lives in Redis and the buckets are leased from it (shared by all
 * replicas: `shared-buckets.ts`), and a miss is fetched once across the replicas
 * (`cross-replica-flight.ts`); without it, both live in this process's memory. What each route gets
 * (cache rule, extra limit, circuit, redaction) comes from the routes the domains declare.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { BudgetTracker } from './budget-tracker.ts';
import { createBudgetedTransport } from './budget/budgeted-transport.ts';
import { createCacheKeyer } from './cache/cache-key.ts';
import { cacheKinds, createCachePolicy } from './cache/cache-policy.ts';
import { createCachedUpstreamClient } from './cache/cached-upstream-client.ts';
import { createCrossReplicaFlight, type CrossReplicaFlight } from './cache/cross-replica-flight.ts';
import { createFallbackUpstreamCache } from './cache/fallback-upstream-cache.ts';
import { createTransport } from './http/http-transport.ts';
import { createMemoryBucketStore } from './budget/memory-bucket-store.ts';
import { createSharedBuckets } from './budget/shared-buckets.ts';
import type { RedisConnection } from '../redis/redis-connection.ts';
import { createUpstreamCache, type UpstreamCache } from './cache/upstream-cache.ts';
import { assembleLayers, type UpstreamLayer } from './upstream-layers.ts';
import { createRouteLookup } from './route-lookup.ts';
import { DEFAULT_RETRY_POLICY } from './http/retry-policy.ts';
import { createSecondSightAdmission } from './cache/second-sight-admission.ts';
import { createSingleflight } from './cache/singleflight.ts';
import { createTokenBucketLimiter } from './budget/token-bucket.ts';
import { type BucketStore } from './budget/bucket-store.ts';
import { createUpstreamClient } from './upstream-client.ts';
import type { UpstreamClient } from './upstream-call.ts';
import { createBreakerTransport } from './http/breaker-transport.ts';
import { createCircuitBreaker } from './http/circuit-breaker.ts';
import { createInstrumentedTransport } from './http/instrumented-transport.ts';
import { createPathParamGuard } from './path-params.ts';
import { createRedactingClient } from './redacting-client.ts';
import { createRefusedCredentialTransport } from './budget/refused-credentials.ts';
import { createRedisProvenCredentials } from './budget/redis-proven-credentials.ts';
import { createUnprovenGate } from './budget/unproven-gate.ts';
import type { RouteTable } from './upstream-routes.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';

/** Where the upstream layer reports what it does (both optional). */
export interface UpstreamObservers {
  readonly metrics?: GatewayMetrics | undefined;
  readonly tracing?: Tracing | undefined;
  /**
   * The budgets' clock; by default the memory store's `Date.now` and the Redis store's `TIME`
   * (one clock for every replica). A test passes the clock it moves (test/support/clock.ts).
   */
  readonly now?: (() => number) | undefined;
}

export interface UpstreamStack {
  readonly client: UpstreamClient;
  /** The credential budgets as the token bucket sees them (`viewer.rateLimit`). */
  readonly budget: BudgetTracker;
  /** The Redis connection (with REDIS_URL), shared with the server's Redis-backed stores. */
  readonly redis: RedisConnection | undefined;
  /** The upstream cache (undefined when UPSTREAM_CACHE=off): the whole-response cache shares its tags. */
  readonly cache: UpstreamCache | undefined;
  /** Closes the upstream pool and the Redis connection. */
  close(): Promise<void>;
}

export async function createUpstreamStack(
  config: Config,
  logger: FastifyBaseLogger,
  upstreamUrl: string,
  routes: RouteTable,
  observers: UpstreamObservers = {},
): Promise<UpstreamStack> {
  const { metrics } = observers;
  // First: an override naming no declared cache kind stops the start-up before anything connects.
  const cachePolicy = createCachePolicy(routes, config.CACHE_TTL_OVERRIDES);
  const log = logger.child({ component: 'upstream' });
  const redisOptions = {
    connectTimeoutMs: config.REDIS_CONNECT_TIMEOUT_MS,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    logger,
    name: `${config.REDIS_KEY_PREFIX}-gateway`,
  };
  const redis: RedisConnection | undefined = config.REDIS_URL
    ? (await import('../redis/redis-connection.ts')).createRedisConnection({
        url: config.REDIS_URL,
        ...redisOptions,
      })
    : config.REDIS_CLUSTER_NODES
      ? (await import('../redis/redis-cluster-connection.ts')).createRedisClusterConnection({
          nodes: config.REDIS_CLUSTER_NODES,
          ...redisOptions,
        })
      : undefined;
  const budget = {
    capacity: config.UPSTREAM_RATE_LIMIT,
    windowMs: config.UPSTREAM_RATE_WINDOW_SEC * 1000,
    writeReserveShare: config.UPSTREAM_WRITE_RESERVE_SHARE,
  };
  const clock = observers.now ? { now: observers.now } : {};
  const shared = redis
    ? createSharedBuckets({ redis, budget, prefix: config.REDIS_KEY_PREFIX, logger: log, ...clock })
    : undefined;
  const bucketStore: BucketStore = shared?.store ?? createMemoryBucketStore({ budget, ...clock });
  const limiter = createTokenBucketLimiter({
    store: bucketStore,
    maxWaitMs: config.UPSTREAM_BUCKET_WAIT_MS,
    onWait: (bucket, priority) => metrics?.bucketWait(bucket, priority),
    onRefuse: (bucket, priority) => metrics?.bucketRefusal(bucket, priority),
  });

  if (config.UPSTREAM_LIMITER === 'off') {
    log.warn('UPSTREAM_LIMITER=off: nothing keeps this gateway within the upstream budget');
  }

  let cache: UpstreamCache | undefined;
  let acrossReplicas: CrossReplicaFlight | undefined;
  if (config.UPSTREAM_CACHE === 'on') {
    const longestTtlMs = Math.max(...cacheKinds(routes).map((row) => row.ttlSec), 0) * 1000;
    const longestOverrideMs = Math.max(...config.CACHE_TTL_OVERRIDES.values(), 0) * 1000;
    // A tag version must outlive every entry that may carry it.
    const tagTtlMs =
      Math.max(longestTtlMs, longestOverrideMs) + config.CACHE_STALE_MAX_AGE_SEC * 1000 + 60_000;
    const inMemory = () =>
      createUpstreamCache({
        store: { type: 'memory', maxBytes: config.CACHE_MAX_BYTES },
        tagTtlMs,
      });
    cache = redis
      ? createFallbackUpstreamCache({
          shared: createUpstreamCache({
            store: { type: 'redis', connection: redis, prefix: config.REDIS_KEY_PREFIX },
            tagTtlMs,
          }),
          local: inMemory,
          usable: () => redis.usable(),
          logger: log,
        })
      : inMemory();
    // The shared cache is what the other replicas read a coalesced answer from.
    if (redis && config.UPSTREAM_CROSS_REPLICA_COALESCING === 'on') {
      acrossReplicas = createCrossReplicaFlight({
        redis,
        prefix: config.REDIS_KEY_PREFIX,
        leaseMs: config.UPSTREAM_COALESCING_LEASE_MS,
        onFlight: (role) => metrics?.crossReplicaFlight(role),
      });
    }
  }

  /** Every upstream call passes these, in this order: outermost first. */
  const layers: readonly UpstreamLayer[] = [
    // A bad path parameter costs no lookup, no token and no call.
    { name: 'path-parameter check', wraps: 'calls', wrap: createPathParamGuard },
    ...(cache
      ? [
          {
            name: 'cache and singleflight',
            wraps: 'calls',
            wrap: (inner) =>
              createCachedUpstreamClient({
                inner,
                cache,
                policy: cachePolicy,
                keyOf: createCacheKeyer(
                  config.CREDENTIAL_HMAC_SECRET ?? randomBytes(32).toString('hex'),
                ),
                singleflight: createSingleflight(),
                acrossReplicas,
                deadlineMs: config.UPSTREAM_DEADLINE_MS,
                staleMaxAgeMs: config.CACHE_STALE_MAX_AGE_SEC * 1000,
                logger: log,
                onLookup: (result) => metrics?.cacheLookup(result),
                // The whole-response cache answers a repeated screen whose free-filter page was
                // not kept; without it, the page is kept on first sight.
                admission: config.RESPONSE_CACHE ? createSecondSightAdmission() : undefined,
              }),
          } satisfies UpstreamLayer,
        ]
      : []),
    // Before anything caches an answer or reads it.
    { name: 'redaction', wraps: 'calls', wrap: createRedactingClient },
    {
      name: 'deadline and retries',
      wraps: 'attempts-into-calls',
      wrap: (transport) =>
        createUpstreamClient({
          transport,
          deadlineMs: config.UPSTREAM_DEADLINE_MS,
          retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: config.UPSTREAM_MAX_ATTEMPTS },
          observe: ({ call, status, durationMs, attempt }) => {
            call.ledgerEntry?.attempted(status);
            log.debug(
              { route: `${call.method} ${call.route}`, status, durationMs, attempt },
              'upstream call',
            );
          },
        }),
    },
    // A refused token is refused before everything below.
    { name: 'refused-token check', wraps: 'attempts', wrap: createRefusedCredentialTransport },
    // Outside the budget: an open circuit spends no token.
    {
      name: 'circuit breaker',
      wraps: 'attempts',
      wrap: (inner) =>
        createBreakerTransport(
          inner,
          createCircuitBreaker({
            failureThreshold: config.BREAKER_FAILURE_THRESHOLD,
            openMs: config.BREAKER_OPEN_MS,
            onStateChange: (breakerClass, state) => {
              metrics?.breakerState(breakerClass, state);
              log.warn({ breakerClass, state }, 'upstream circuit changed state');
            },
          }),
        ),
    },
    ...(config.UPSTREAM_LIMITER === 'on'
      ? [
          {
            name: 'token buckets (unproven tokens, credential, route class)',
            wraps: 'attempts',
            wrap: (inner) =>
              createBudgetedTransport(inner, {
                limiter,
                unproven: createUnprovenGate({
                  maxWaitMs: config.UPSTREAM_BUCKET_WAIT_MS,
                  shared: redis && createRedisProvenCredentials(redis, config.REDIS_KEY_PREFIX),
                  onCount: (inFlight, waiting) => metrics?.unprovenCalls(inFlight, waiting),
                }),
                onUpstream429: (priority) => metrics?.upstreamRateLimited(priority),
                onDropped: (call) => {
                  const route = `${call.method} ${call.route}`;
                  metrics?.upstreamCallDropped(route);
                  log.debug(
                    { route, reqId: call.scope?.requestId },
                    'upstream call dropped: its clients left before it was sent',
                  );
                },
              }),
          } satisfies UpstreamLayer,
        ]
      : []),
    // Innermost: each HTTP request is counted once.
    {
      name: 'metrics and trace spans',
      wraps: 'attempts',
      wrap: (inner) => createInstrumentedTransport(inner, observers),
    },
  ];
  const socket = createTransport({
    baseUrl: upstreamUrl,
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: config.UPSTREAM_BODY_TIMEOUT_MS,
    maxResponseBytes: config.UPSTREAM_MAX_RESPONSE_BYTES,
    connections: config.UPSTREAM_CONNECTIONS,
  });
  const client = createRouteLookup(assembleLayers(layers, socket), routes);

  return {
    client,
    redis,
    cache,
    budget: limiter,
    async close() {
      await client.close();
      // What this replica holds goes back to the others before the connection closes.
      await shared?.close();
      await acrossReplicas?.close();
      await redis?.close();
    },
  };
}
