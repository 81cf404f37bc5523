/**
 * A per-credential quota of things a client can make the gateway store (APQ documents): at most
 * `max` per credential per window, counted in Redis when it is there (one INCR, shared by every
 * replica) and in this process's memory otherwise or while Redis is down. Nothing sensitive is in a
 * key (`<prefix>:quota:<name>:{<credentialId>}`, the credential's hash tag: docs/redis-keys.md):
 * the credential is its HMAC id.
 */
import type { FastifyBaseLogger } from 'fastify';
import { createWindowCounter } from './window-counter.ts';
import { createRedisFallback } from '../redis/redis-fallback.ts';
import type { RedisConnection } from '../redis/redis-connection.ts';
import { redisKeys } from '../redis/redis-keys.ts';

export interface CredentialQuota {
  /** Counts one more for the credential; false once its quota for the window is used up. */
  take(credentialId: string): Promise<boolean>;
}

export interface CredentialQuotaOptions {
  /** What is counted (`apq`): part of the Redis key. */
  readonly name: string;
  readonly max: number;
  readonly windowMs: number;
  readonly redis: RedisConnection | undefined;
  readonly prefix: string;
  readonly logger: FastifyBaseLogger;
  readonly now?: () => number;
}

export function createCredentialQuota(options: CredentialQuotaOptions): CredentialQuota {
  const now = options.now ?? Date.now;
  const local = createWindowCounter(options.windowMs, now);
  const takeLocally = async (credentialId: string) => local.add(credentialId).count <= options.max;
  const { redis } = options;
  if (!redis) return { take: takeLocally };
  const either = createRedisFallback({
    usable: () => redis.usable(),
    logger: options.logger,
    onDown: `${options.name} quota: Redis unavailable, counting in process memory`,
    onUp: `${options.name} quota: back on Redis`,
  });
  return {
    take: (credentialId) =>
      either(
        async () => {
          const key = redisKeys.quota(options.prefix, options.name, credentialId);
          const count = await redis.client.incr(key);
          if (count === 1) await redis.client.pExpire(key, options.windowMs);
          return count <= options.max;
        },
        () => takeLocally(credentialId),
      ),
  };
}
