/**
 * Idempotency records in Redis, as JSON under `<prefix>:idempotency:<sha256>`. Claiming is one
 * atomic `SET NX PX`, so two replicas receiving the same key at once cannot both run the mutation;
 * releasing checks the holder before deleting (one Lua script), so a slow request whose lock already
 * expired cannot free a key someone else now holds.
 *
 * A key is claimed in Redis or not at all: while Redis is unreachable (on a cluster, while the key's
 * slot has no master) `claim` rejects and the mutation is refused (idempotency.plugin.ts), since a
 * claim in this process's memory is one no other replica sees — each would run the write. What a
 * request claimed in Redis has to tell Redis when it ends is kept until Redis answers again:
 * - its answer, in memory: replayed by this replica meanwhile, and written to Redis as soon as Redis
 *   answers (at once on the next use of its key, and by a background pass once a second while any is
 *   held), so every replica replays it from then on. Should Redis hold another answer for the key by
 *   then (it came back without the pending record and another replica ran the key), the earlier of
 *   the two stays, and every replica replays that one;
 * - its release (nothing was written), retried by the same pass, so that the retry the client was
 *   told to make does not find the key held until its lock expires.
 */
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { RedisConnection } from '../../redis/redis-connection.ts';
import { entryBound } from '../../upstream/entry-bound.ts';
import { createRedisFallback } from '../../redis/redis-fallback.ts';
import { claimLease } from '../../redis/redis-lease.ts';
import {
  createMemoryIdempotencyStore,
  type DoneRecord,
  type HeldRecord,
  type IdempotencyRecord,
  type IdempotencyStore,
} from './idempotency-store.ts';
import { redisKeys } from '../../redis/redis-keys.ts';

/** How often what Redis could not take is offered to it again while there is any. */
export const WRITE_BACK_INTERVAL_MS = 1_000;

/** Releases kept for Redis at most (past it the oldest key stays held until its lock expires). */
const MAX_HELD_RELEASES = 50_000;

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

/** An idempotency store in Redis: keys are claimed there only (see above). */
export function createRedisIdempotencyStore(
  options: RedisIdempotencyStoreOptions,
): IdempotencyStore {
  const { connection, logger } = options;
  /** Answers Redis could not take: consulted first, written to Redis when it answers. */
  const held = createMemoryIdempotencyStore();
  /** Releases Redis could not take: key → the owner whose pending record to delete. */
  const releases = new LRUCache<string, string>(entryBound(MAX_HELD_RELEASES));
  const redisKey = (key: string) => redisKeys.idempotency(options.prefix, key);

  const either = createRedisFallback({
    usable: () => connection.usable(),
    logger,
    onDown:
      'idempotency store: Redis unavailable, keyed mutations refused and answers kept in memory until it answers',
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

  const releaseInRedis = async (key: string, owner: string) => {
    await connection.client.eval(RELEASE_IF_OWNER, { keys: [redisKey(key)], arguments: [owner] });
  };

  /** Moves a held answer to Redis; returns what Redis now holds for its key (it, or an earlier one). */
  const writeBack = async (entry: HeldRecord<DoneRecord>): Promise<IdempotencyRecord> => {
    const earlier = await writeDone(entry.key, entry.record, entry.ttlMs);
    held.forget(entry.key, entry.record);
    return earlier ?? entry.record;
  };

  let timer: NodeJS.Timeout | undefined;
  let passing = false;
  /** One pass over what Redis could not take: each answer and release goes to it while it answers. */
  const writeBackPass = async () => {
    if (passing) return;
    passing = true;
    try {
      if (held.size === 0 && releases.size === 0) {
        clearInterval(timer);
        timer = undefined;
        return;
      }
      let written = 0;
      const owed = [
        ...held.heldDone().map((entry) => () => writeBack(entry)),
        ...[...releases.entries()].map(([key, owner]) => async () => {
          await releaseInRedis(key, owner);
          if (releases.peek(key) === owner) releases.delete(key);
        }),
      ];
      for (const tell of owed) {
        if (!(await connection.usable())) break;
        try {
          await tell();
          written += 1;
        } catch {
          // Redis failed again, or (a cluster) this key's slot has no master: the next pass retries.
        }
      }
      if (written > 0) {
        logger.info(
          { records: written },
          'idempotency store: answers and releases kept while Redis was unreachable written to Redis',
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

  return {
    async claim(key, pending, lockMs) {
      // An answer held here is this key's answer, whatever a Redis that came back empty says.
      const local = held.peek(key) as HeldRecord<DoneRecord> | undefined;
      if (local) {
        if (await connection.usable()) {
          try {
            return await writeBack(local);
          } catch {
            // Still unreachable: replayed from memory.
          }
        }
        return local.record;
      }
      return either(
        async () => {
          for (let attempt = 0; attempt < 3; attempt += 1) {
            if (await claimLease(connection.client, redisKey(key), JSON.stringify(pending), lockMs))
              return undefined;
            const existing = parseRecord(await connection.client.get(redisKey(key)));
            if (existing) return existing;
            // Expired between SET and GET: try to claim again.
          }
          throw new Error('idempotency key kept changing hands');
        },
        () => Promise.reject(new Error('Redis is unreachable: the key cannot be claimed')),
      );
    },
    async complete(key, owner, done, ttlMs) {
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
      await either(
        () => releaseInRedis(key, owner),
        async () => {
          releases.set(key, owner);
          keepWritingBack();
        },
      );
    },
    close() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
