/**
 * The Redis-down policy of the token buckets. With `REDIS_URL`, the buckets live in Redis (shared by
 * every replica). When Redis is unreachable or slower than `REDIS_COMMAND_TIMEOUT_MS`, a replica
 * never goes unlimited: it takes from a local bucket holding `REDIS_DOWN_BUDGET_SHARE` of every
 * limit (the credential's window and each route class), so N replicas with a share of at most 1/N
 * stay within the budget together. The local bucket is kept corrected by every upstream answer even
 * while Redis is healthy (the upstream's `RateLimit-Remaining` counts the calls of all replicas), so
 * at the switch it already knows how much of the window is left (and never more than its share). When Redis answers again, Redis's
 * bucket is used again; it was corrected by the same answers in the meantime whenever it could be.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { BucketStore } from './token-bucket.ts';

export interface FallbackBucketStoreOptions {
  readonly primary: BucketStore;
  /** The local store, created with the configured share. */
  readonly fallback: BucketStore;
  /** Whether Redis can take commands now. */
  readonly usable: () => Promise<boolean>;
  readonly logger: FastifyBaseLogger;
}

export function createFallbackBucketStore(options: FallbackBucketStoreOptions): BucketStore {
  const { primary, fallback, logger } = options;
  let degraded = false;
  const note = (down: boolean, error?: unknown) => {
    if (down && !degraded) {
      logger.warn(
        { err: error instanceof Error ? { message: error.message } : undefined },
        'token buckets: Redis unavailable, each replica limits itself to its local share',
      );
    } else if (!down && degraded) {
      logger.info('token buckets: back on the shared Redis buckets');
    }
    degraded = down;
  };

  /** Runs on Redis when it is usable, else (or when it fails) on the local store. */
  const either = async <T>(
    onPrimary: () => Promise<T>,
    onFallback: () => Promise<T>,
  ): Promise<T> => {
    if (await options.usable()) {
      try {
        const result = await onPrimary();
        note(false);
        return result;
      } catch (error) {
        note(true, error);
        return onFallback();
      }
    }
    note(true);
    return onFallback();
  };

  return {
    take: (credentialId, routeClass) =>
      either(
        () => primary.take(credentialId, routeClass),
        () => fallback.take(credentialId, routeClass),
      ),
    async correct(credentialId, routeClass, correction) {
      // The local share always learns; the shared bucket when it can, and when it has to: most
      // answers only confirm what the take already saw, and cost no Redis round trip then.
      const local = await fallback.correct(credentialId, routeClass, correction);
      if (correction.redundant) return local;
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
  };
}
