/**
 * Where idempotency records live: Redis when REDIS_URL is set (every replica sees every key), else
 * process memory. A record is either `pending` (a request holds the key and is running; it expires
 * after the lock time so a crashed replica cannot hold a key forever) or `done` (the response to
 * replay). Records hold a fingerprint of the request and the response — never the request itself, so
 * no variable (a secret, a CSR) is ever stored.
 */
import { LRUCache } from 'lru-cache';
import { entryBound } from '../../upstream/entry-bound.ts';

/** A key held by a running request. */
export interface PendingRecord {
  readonly state: 'pending';
  readonly fingerprint: string;
  /** Random id of the request holding the key: only it may release it. */
  readonly owner: string;
}

/** A finished request's response, kept for replay. */
export interface DoneRecord {
  readonly state: 'done';
  readonly fingerprint: string;
  /** HTTP status of the first response. */
  readonly status: number;
  /** The first response's body (`data`, formatted `errors`, `extensions`). */
  readonly result: Readonly<Record<string, unknown>>;
}

/** What an idempotency key holds. */
export type IdempotencyRecord = PendingRecord | DoneRecord;

/** Storage of idempotency records (memory or Redis). */
export interface IdempotencyStore {
  /**
   * Takes the key for `pending` when it is free (returns undefined), else returns the record that
   * holds it.
   */
  claim(
    key: string,
    pending: PendingRecord,
    lockMs: number,
  ): Promise<IdempotencyRecord | undefined>;
  /** Replaces the holder's record with the response to replay. */
  complete(key: string, done: DoneRecord, ttlMs: number): Promise<void>;
  /** Frees the key if `owner` still holds it (the write did not happen: a retry may run again). */
  release(key: string, owner: string): Promise<void>;
}

/** Process-memory store, bounded (the least recently used records go first past `max`). */
export function createMemoryIdempotencyStore(max = 50_000): IdempotencyStore {
  const records = new LRUCache<string, IdempotencyRecord>({
    ...entryBound(max),
    ttlAutopurge: false,
  });
  return {
    async claim(key, pending, lockMs) {
      const existing = records.get(key);
      if (existing) return existing;
      records.set(key, pending, { ttl: lockMs });
      return undefined;
    },
    async complete(key, done, ttlMs) {
      records.set(key, done, { ttl: ttlMs });
    },
    async release(key, owner) {
      const existing = records.get(key);
      if (existing?.state === 'pending' && existing.owner === owner) records.delete(key);
    },
  };
}
