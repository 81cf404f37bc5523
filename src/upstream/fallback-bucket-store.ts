/**
 * The Redis-down policy of the token buckets. With `REDIS_URL`, the buckets live in Redis (shared by
 * every replica). When Redis is unreachable or slower than `REDIS_COMMAND_TIMEOUT_MS`, a replica
 * never goes unlimited: it takes from a local bucket holding `REDIS_DOWN_BUDGET_SHARE` of every
 * limit (the credential's window and each route class), so N replicas with a share of at most 1/N
 * stay within the budget together. The local bucket is kept corrected while Redis is healthy, by
 * every upstream answer (the upstream's `RateLimit-Remaining` counts the calls of all replicas) and
 * by what the shared bucket says is left after each of this replica's takes (which counts the calls
 * still in flight), so at the switch it already knows how much of the window is left (and never
 * holds more than its share of it). When Redis answers again, Redis's bucket is used again; it was
 * corrected by the same answers in the meantime whenever it could be.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { LocalBucketStore } from './memory-bucket-store.ts';
import { createRedisFallback } from './redis-fallback.ts';
import type { BucketStore } from './token-bucket.ts';

export interface FallbackBucketStoreOptions {
  readonly primary: BucketStore;
  /** The local store, created with the configured share. */
  readonly fallback: LocalBucketStore;
  /** Whether Redis can take commands now. */
  readonly usable: () => Promise<boolean>;
  readonly logger: FastifyBaseLogger;
}

export function createFallbackBucketStore(options: FallbackBucketStoreOptions): BucketStore {
  const { primary, fallback } = options;
  const either = createRedisFallback({
    usable: options.usable,
    logger: options.logger,
    onDown: 'token buckets: Redis unavailable, each replica limits itself to its local share',
    onUp: 'token buckets: back on the shared Redis buckets',
    leavingRedis: () => fallback.forgetFreshness(),
  });

  return {
    take: (credentialId, routeClass, request) =>
      either(
        async () => {
          const verdict = await primary.take(credentialId, routeClass, request);
          // The local share follows what all replicas left, so a switch in the middle of a burst
          // starts from a recent view (calls still in flight included), not from this replica's
          // last upstream answer.
          fallback.followShared(credentialId, verdict.budget.remaining);
          return verdict;
        },
        () => fallback.take(credentialId, routeClass, request),
      ),
    async correct(credentialId, routeClass, correction) {
      // The local share always learns; the shared bucket when it can (every answer: it also ends
      // the call's place in the shared send window).
      const local = await fallback.correct(credentialId, routeClass, correction);
      return either(
        () => primary.correct(credentialId, routeClass, correction),
        async () => local,
      );
    },
    peek: (credentialId) =>
      either(
        () => primary.peek(credentialId),
        () => fallback.peek(credentialId),
      ),
    async release(credentialId, routeClass, ticket) {
      // Both: the local store holds the call while it is the one in use.
      await fallback.release(credentialId, routeClass, ticket);
      await either(
        () => primary.release(credentialId, routeClass, ticket),
        async () => undefined,
      );
    },
  };
}
