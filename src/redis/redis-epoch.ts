/**
 * Notices that Redis lost what the replicas stored: restarted without persistence, flushed, or
 * replaced by an empty server. Weft cannot tell an empty Redis from a reachable one by the
 * connection alone (it reconnects and carries on), yet what such a Redis lost matters: idempotency
 * records above all (a retried mutation whose record is gone runs again), and the shared buckets,
 * cache, APQ documents and held replays.
 *
 * So `<prefix>:epoch` holds a random id, written by the first replica that finds the key missing
 * (`SET NX`: all replicas then agree on it). Each replica reads it every few seconds while Redis is
 * reachable; when it differs from the one this replica last read, the data it marked is gone, and
 * the replica logs one warning, naming the consequence and the remedy (docs/replicas.md
 * "When Redis is lost"). Cost: one GET per replica every {@link REDIS_EPOCH_CHECK_MS}; nothing on
 * the request path.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { RedisConnection } from './redis-connection.ts';
import { redisKeys } from './redis-keys.ts';

/** How often each replica reads the epoch. */
export const REDIS_EPOCH_CHECK_MS = 2_000;

/** The warning's text (tests and operators search for its start). */
export const REDIS_DATA_LOST =
  'Redis came back without its data (restarted without persistence, flushed or evicted): ' +
  'idempotency records written before are gone, so a retried mutation of an earlier key runs ' +
  'again; budgets, cache, APQ documents and held replays start empty. Where keys must outlive a ' +
  'restart, run Redis with persistence (appendonly yes) or replicas (docs/replicas.md).';

export interface RedisEpochOptions {
  readonly connection: RedisConnection;
  readonly prefix: string;
  readonly logger: FastifyBaseLogger;
  readonly intervalMs?: number;
}

/** Starts reading the epoch (at once, then every interval); the returned function stops it. */
export function watchRedisEpoch(options: RedisEpochOptions): () => void {
  const { connection, logger } = options;
  const key = redisKeys.epoch(options.prefix);
  let known: string | undefined;
  let checking = false;

  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      if (!(await connection.usable())) return;
      let current = await connection.client.get(key);
      if (current === null) {
        // A new id each time: this replica finding the key gone twice must see two epochs.
        const epoch = randomUUID();
        const set = await connection.client.set(key, epoch, { condition: 'NX' });
        current = set === 'OK' ? epoch : await connection.client.get(key);
      }
      if (current === null) return;
      if (known !== undefined && current !== known) logger.warn(REDIS_DATA_LOST);
      known = current;
      logger.debug('Redis epoch checked');
    } catch {
      // Unreachable now: the connection and the fallbacks log that; the next check reads again.
    } finally {
      checking = false;
    }
  };

  void check();
  const timer = setInterval(() => void check(), options.intervalMs ?? REDIS_EPOCH_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
