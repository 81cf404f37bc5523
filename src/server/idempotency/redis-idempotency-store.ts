/**
 * Idempotency records in Redis, as JSON under `<prefix>:idempotency:<sha256>`. Claiming is one
 * atomic `SET NX PX`, so two replicas receiving the same key at once cannot both run the mutation;
 * releasing checks the holder before deleting (one Lua script), so a slow request whose lock already
 * expired cannot free a key someone else now holds.
 *
 * While Redis is unreachable the store falls back to process memory, and what it keeps there is not
 * forgotten when Redis answers again (a Redis that restarted empty has never seen those keys):
 * - memory is consulted before Redis, so a retry to the replica that answered replays its answer;
 * - a done record in memory is written to Redis as soon as Redis answers (at once on the next use of
 *   its key, and by a background pass once a second while memory holds any), so a retry to another
 *   replica replays it too. Two replicas that both ran a key during the outage (neither could see
 *   the other's record) keep the EARLIER answer in Redis — the one that did the write — and each
 *   replays it from then on.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { RedisConnection } from '../../upstream/redis-connection.ts';
import {
  createMemoryIdempotencyStore,
  type DoneRecord,
  type HeldRecord,
  type IdempotencyRecord,
  type IdempotencyStore,
} from './idempotency-store.ts';
import { createRedisFallback } from '../../upstream/redis-fallback.ts';

/** How often memory-held records are offered to Redis while there are any. */
export const WRITE_BACK_INTERVAL_MS = 1_000;

const RELEASE_IF_OWNER = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if ok and record.state == 'pending' and record.owner == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * Stores a done record (ARGV[1], finished at ARGV[2], for ARGV[3] ms) unless the key already holds a
 * done record that finished no later (or one of a version without a time): then that one stays and
 * is returned, so every replica replays the answer that came first. A pending record is replaced.
 */
const WRITE_DONE_UNLESS_EARLIER = `
local current = redis.call('GET', KEYS[1])
if current then
  local ok, record = pcall(cjson.decode, current)
  if ok and type(record) == 'table' and record.state == 'done' then
    local at = tonumber(record.at)
    if at == nil or at <= tonumber(ARGV[2]) then return current end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return false`;

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
  /** Records Redis could not take: consulted first, written to Redis when it answers. */
  const held = createMemoryIdempotencyStore();
  const redisKey = (key: string) => `${options.prefix}:idempotency:${key}`;

  const either = createRedisFallback({
    usable: () => connection.usable(),
    logger,
    onDown: 'idempotency store: Redis unavailable, using process memory',
    onUp: 'idempotency store: back on Redis',
  });

  /** Writes `done` unless Redis has an earlier answer; returns that earlier answer, if any. */
  const writeDone = async (
    key: string,
    done: DoneRecord,
    ttlMs: number,
  ): Promise<IdempotencyRecord | undefined> => {
    const kept = await connection.client.eval(WRITE_DONE_UNLESS_EARLIER, {
      keys: [redisKey(key)],
      arguments: [
        JSON.stringify(done),
        String(done.at ?? 0),
        String(Math.max(1, Math.ceil(ttlMs))),
      ],
    });
    return typeof kept === 'string' ? parseRecord(kept) : undefined;
  };

  /** Moves a held record to Redis; returns what Redis now holds for its key (it, or an earlier one). */
  const writeBack = async (entry: HeldRecord<DoneRecord>): Promise<IdempotencyRecord> => {
    const earlier = await writeDone(entry.key, entry.record, entry.ttlMs);
    held.forget(entry.key, entry.record);
    return earlier ?? entry.record;
  };

  let timer: NodeJS.Timeout | undefined;
  let passing = false;
  /** One pass over the held records: each done one goes to Redis while Redis answers. */
  const writeBackPass = async () => {
    if (passing) return;
    passing = true;
    try {
      if (held.size === 0) {
        clearInterval(timer);
        timer = undefined;
        return;
      }
      let written = 0;
      for (const entry of held.heldDone()) {
        if (!(await connection.usable())) break;
        try {
          await writeBack(entry);
          written += 1;
        } catch {
          // Redis failed again, or (a cluster) this key's slot has no master: the next pass retries.
        }
      }
      if (written > 0) {
        logger.info(
          { records: written },
          'idempotency store: records kept in memory while Redis was unreachable written to Redis',
        );
      }
    } finally {
      passing = false;
    }
  };
  const keepWritingBack = () => {
    if (timer) return;
    timer = setInterval(() => void writeBackPass(), WRITE_BACK_INTERVAL_MS);
    timer.unref();
  };

  /** The held pending record of `owner` for `key`, when its claim was made in memory. */
  const heldClaimOf = (key: string, owner: string) => {
    const local = held.peek(key)?.record;
    return local?.state === 'pending' && local.owner === owner;
  };

  return {
    async claim(key, pending, lockMs) {
      // Memory first: a record kept there while Redis was unreachable is this key's first answer
      // (or its request still running), whatever a Redis that came back empty says.
      const local = held.peek(key);
      if (local) {
        if (local.record.state === 'done' && (await connection.usable())) {
          try {
            return await writeBack(local as HeldRecord<DoneRecord>);
          } catch {
            // Still unreachable: replayed from memory.
          }
        }
        return local.record;
      }
      return either(
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
        async () => {
          const existing = await held.claim(key, pending, lockMs);
          keepWritingBack();
          return existing;
        },
      );
    },
    async complete(key, owner, done, ttlMs) {
      if (heldClaimOf(key, owner)) {
        // Claimed in memory: completed there, and in Redis already if it answers again.
        await held.complete(key, owner, done, ttlMs);
        keepWritingBack();
        const entry = held.peek(key);
        if (entry?.record === done && (await connection.usable())) {
          await writeBack(entry as HeldRecord<DoneRecord>).catch(() => undefined);
        }
        return;
      }
      await either(
        async () => {
          await writeDone(key, done, ttlMs);
        },
        async () => {
          await held.complete(key, owner, done, ttlMs);
          keepWritingBack();
        },
      );
    },
    async release(key, owner) {
      if (heldClaimOf(key, owner)) return held.release(key, owner);
      return either(
        async () => {
          await connection.client.eval(RELEASE_IF_OWNER, {
            keys: [redisKey(key)],
            arguments: [owner],
          });
        },
        () => held.release(key, owner),
      );
    },
    close() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
