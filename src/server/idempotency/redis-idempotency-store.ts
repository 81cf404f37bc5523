/**
 * Idempotency records in Redis, as JSON under `<prefix>:idempotency:<sha256>`. Claiming is one
 * atomic `SET NX PX`, so two replicas receiving the same key at once cannot both run the mutation;
 * releasing checks the holder before deleting (one Lua script), so a slow request whose lock already
 * expired cannot free a key someone else now holds. While Redis is unreachable the store falls back to
 * process memory: duplicates reaching the same replica are still caught.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { RedisConnection } from '../../upstream/redis-connection.ts';
import {
  createMemoryIdempotencyStore,
  type IdempotencyRecord,
  type IdempotencyStore,
} from './idempotency-store.ts';
import { createRedisFallback } from '../../upstream/redis-fallback.ts';

const RELEASE_IF_OWNER = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if ok and record.state == 'pending' and record.owner == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

function parseRecord(text: string | null): IdempotencyRecord | undefined {
  if (text === null) return undefined;
  try {
    const record = JSON.parse(text) as IdempotencyRecord;
    return record.state === 'pending' || record.state === 'done' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Options of {@link createRedisIdempotencyStore}. */
export interface RedisIdempotencyStoreOptions {
  readonly connection: RedisConnection;
  readonly prefix: string;
  readonly logger: FastifyBaseLogger;
}

/** An idempotency store in Redis, falling back to process memory while Redis is unreachable. */
export function createRedisIdempotencyStore(
  options: RedisIdempotencyStoreOptions,
): IdempotencyStore {
  const { connection, logger } = options;
  const fallback = createMemoryIdempotencyStore();
  const redisKey = (key: string) => `${options.prefix}:idempotency:${key}`;

  const either = createRedisFallback({
    usable: () => connection.usable(),
    logger,
    onDown: 'idempotency store: Redis unavailable, using process memory',
    onUp: 'idempotency store: back on Redis',
  });

  return {
    claim: (key, pending, lockMs) =>
      either(
        async () => {
          for (let attempt = 0; attempt < 3; attempt += 1) {
            const set = await connection.client.set(redisKey(key), JSON.stringify(pending), {
              condition: 'NX',
              expiration: { type: 'PX', value: lockMs },
            });
            if (set === 'OK') return undefined;
            const existing = parseRecord(await connection.client.get(redisKey(key)));
            if (existing) return existing;
            // Expired between SET and GET: try to claim again.
          }
          throw new Error('idempotency key kept changing hands');
        },
        () => fallback.claim(key, pending, lockMs),
      ),
    complete: (key, done, ttlMs) =>
      either(
        async () => {
          await connection.client.set(redisKey(key), JSON.stringify(done), {
            expiration: { type: 'PX', value: ttlMs },
          });
        },
        () => fallback.complete(key, done, ttlMs),
      ),
    release: (key, owner) =>
      either(
        async () => {
          await connection.client.eval(RELEASE_IF_OWNER, {
            keys: [redisKey(key)],
            arguments: [owner],
          });
        },
        () => fallback.release(key, owner),
      ),
  };
}
