/**
 * The token buckets of a replica that shares its budgets with the others through Redis, assembled:
 * its own memory store under the leases of the shared buckets (`leased-bucket-store.ts`, the script
 * in `redis-leases.ts`), the route classes every replica shares (`redis-route-classes.ts`), and the
 * channel on which replicas ask each other to give back what they hold.
 */
import type { FastifyBaseLogger } from 'fastify';
import {
  createLeasedBucketStore,
  newReplicaName,
  type LeasedBucketStore,
} from './leased-bucket-store.ts';
import { createLeasedRouteClasses } from './leased-route-classes.ts';
import { createMemoryBucketStore } from './memory-bucket-store.ts';
import { listenToChannel } from '../../redis/redis-channel.ts';
import type { RedisConnection } from '../../redis/redis-connection.ts';
import { createRedisLeases } from './redis-leases.ts';
import {
  UNREPLICATED_PAUSE_MS,
  createReplicaAcknowledgement,
} from '../../redis/replica-acknowledgement.ts';
import { createRedisRouteClasses } from './redis-route-classes.ts';
import { CALL_LEASE_MS } from './send-window.ts';
import { STALE_AFTER_MS } from './bucket-state.ts';
import { type CredentialBudget } from './bucket-store.ts';
import { redisKeys } from '../../redis/redis-keys.ts';

/** A recall of a route class's places; any other message is a credential's id. */
const CLASS_RECALL = 'class:';

export interface SharedBucketsOptions {
  readonly redis: RedisConnection;
  readonly budget: CredentialBudget;
  /** Key prefix (`REDIS_KEY_PREFIX`). */
  readonly prefix: string;
  readonly logger: FastifyBaseLogger;
  /** A test's clock; by default `Date.now` here and Redis's `TIME` in the scripts. */
  readonly now?: () => number;
}

export interface SharedBuckets {
  readonly store: LeasedBucketStore;
  /** Gives back every lease, then stops listening (before the connection closes). */
  close(): Promise<void>;
}

export function createSharedBuckets(options: SharedBucketsOptions): SharedBuckets {
  const { redis, budget, prefix, logger } = options;
  const clock = options.now ? { now: options.now } : {};
  /**
   * Where a replica asks the others to give back what they hold: a credential's tokens (its HMAC
   * id), or a class's places (`class:<name>`).
   */
  const recallChannel = redisKeys.leasesRecall(prefix);
  const replica = newReplicaName();
  const replicated =
    redis.waitForReplica &&
    createReplicaAcknowledgement({
      waitForReplica: redis.waitForReplica,
      onUnreplicated: () =>
        logger.warn(
          `token leases: no replica acknowledged a grant within half REDIS_COMMAND_TIMEOUT_MS; grants are not waited for in the next ${UNREPLICATED_PAUSE_MS / 1000} s (a master without a replica in sync cannot keep them through a failover)`,
        ),
    });
  const publish = (message: string) =>
    void redis.publish(recallChannel, message).catch(() => undefined);
  const classes = createLeasedRouteClasses({
    classes: createRedisRouteClasses({
      client: redis.client,
      prefix,
      ...clock,
      ...(replicated ? { replicated } : {}),
    }),
    replica,
    recall: (className) => publish(`${CLASS_RECALL}${className}`),
    ...clock,
  });
  const store = createLeasedBucketStore({
    leases: createRedisLeases({
      client: redis.client,
      prefix,
      capacity: budget.capacity,
      windowMs: budget.windowMs,
      writeReserveShare: budget.writeReserveShare ?? 0,
      staleAfterMs: STALE_AFTER_MS,
      probeMs: CALL_LEASE_MS,
      replica,
      ...clock,
      ...(replicated ? { replicated } : {}),
    }),
    classes,
    local: createMemoryBucketStore({ budget, ...clock }),
    budget,
    usable: () => redis.usable(),
    recall: publish,
    ...clock,
    onRedisError: (error) =>
      logger.warn(
        { err: error instanceof Error ? { message: error.message } : undefined },
        'token leases: Redis unavailable, each replica spends only the tokens it holds',
      ),
    onRedisBack: () => logger.info('token leases: back on the shared Redis buckets'),
  });
  const recalls = listenToChannel(redis, recallChannel, (message) => {
    if (message.startsWith(CLASS_RECALL)) classes.recalled(message.slice(CLASS_RECALL.length));
    else store.recalled(message);
  });
  return {
    store,
    async close() {
      await store.giveBackAll();
      await recalls.close();
    },
  };
}
