/**
 * How many replayable responses one credential holds at a time (RESPONSE_CACHE_MAX_PER_CREDENTIAL):
 * storing one more forgets that credential's oldest. A client that asks many distinct queries thus
 * bounds its own share of the cache without ever losing the right to store: its popular screens are
 * stored again on their next miss, where a count of stores per window refused them until the window
 * ended.
 *
 * The order is the order of storing (storing a key again moves it to the end); a replay does not
 * move it, so the hit path writes nothing. Kept in Redis when it is there (one sorted set per
 * credential, shared by every replica, updated by one script) and in this process's memory
 * otherwise or while Redis is down. Nothing sensitive is in a key: the credential is its HMAC id and
 * a member is a response-cache key (a hash). The key `<prefix>:replays:{<credentialId>}` carries the
 * credential's hash tag (docs/redis-keys.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import { createRedisFallback } from '../../redis/redis-fallback.ts';
import type { RedisConnection } from '../../redis/redis-connection.ts';
import { redisKeys } from '../../redis/redis-keys.ts';

export interface HeldReplays {
  /**
   * Records that the credential now holds the replay stored under `key`, for `lifetimeMs`; returns
   * the keys of its oldest replays that no longer fit, for the caller to forget.
   */
  hold(credentialId: string, key: string, lifetimeMs: number): Promise<string[]>;
}

export interface HeldReplaysOptions {
  readonly max: number;
  readonly redis: RedisConnection | undefined;
  readonly prefix: string;
  readonly logger: FastifyBaseLogger;
}

/**
 * Keys remembered in memory, over every credential: past it, the least recently active go. Never
 * below one credential's bound, or that credential's list would not fit at all.
 */
const LOCAL_KEYS_BOUND = 200_000;

/**
 * KEYS[1] the credential's set; ARGV: the key, the bound, its lifetime (ms). A member's score is its
 * place in the order of storing (one more than the last: no clock, so replicas agree). The set lives
 * as long as its longest-lived member, so no member is forgotten early.
 */
const HOLD_LUA = `
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('ZADD', KEYS[1], (tonumber(last[2]) or 0) + 1, ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
local evicted = {}
if excess > 0 then
  evicted = redis.call('ZRANGE', KEYS[1], 0, excess - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return evicted
`;

function holdLocally(max: number): HeldReplays['hold'] {
  /** Per credential, its keys in the order stored (a Map keeps insertion order). */
  const held = new LRUCache<string, Map<string, true>>({
    maxSize: Math.max(LOCAL_KEYS_BOUND, max),
    sizeCalculation: (keys) => Math.max(1, keys.size),
  });
  return async (credentialId, key, lifetimeMs) => {
    const keys = held.get(credentialId) ?? new Map<string, true>();
    keys.delete(key);
    keys.set(key, true);
    const evicted: string[] = [];
    for (const oldest of keys.keys()) {
      if (keys.size <= max) break;
      keys.delete(oldest);
      evicted.push(oldest);
    }
    // Set again so that the size bound counts the new key; the list outlives its longest-lived key.
    const ttl = Math.max(held.getRemainingTTL(credentialId), lifetimeMs, 1);
    held.set(credentialId, keys, { ttl: Math.ceil(ttl) });
    return evicted;
  };
}

export function createHeldReplays(options: HeldReplaysOptions): HeldReplays {
  const local = holdLocally(options.max);
  const { redis } = options;
  if (!redis) return { hold: local };
  const either = createRedisFallback({
    usable: () => redis.usable(),
    logger: options.logger,
    onDown: 'held replays: Redis unavailable, counting in process memory',
    onUp: 'held replays: back on Redis',
  });
  return {
    hold: (credentialId, key, lifetimeMs) =>
      either(
        async () =>
          (await redis.client.eval(HOLD_LUA, {
            keys: [redisKeys.replays(options.prefix, credentialId)],
            arguments: [key, String(options.max), String(Math.max(1, Math.ceil(lifetimeMs)))],
          })) as string[],
        () => local(credentialId, key, lifetimeMs),
      ),
  };
}
