/**
 * Where idempotency records live: Redis when REDIS_URL is set (every replica sees every key), else
 * process memory. A record is either `pending` (a request holds the key and is running; it expires
 * after the lock time so a crashed replica cannot hold a key forever) or `done` (the response to
 * replay). Records hold a fingerprint of the request and the response — never the request itself, so
 * no variable (a secret, a CSR) is ever stored.
 *
 * The memory store also serves the Redis store as the place for the answers Redis could not take
 * (a request that ran while Redis was up, and finished once it was gone): it can show what it holds
 * (`peek`, `heldDone`) and let go of a record once Redis has it (`forget`).
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
  /**
   * When the response was sent (epoch ms). Two replicas that both ran a key while they could not
   * share records keep the earlier answer once they can (absent on records of older versions).
   */
  readonly at?: number;
}

/** What an idempotency key holds. */
export type IdempotencyRecord = PendingRecord | DoneRecord;

/** Storage of idempotency records (memory or Redis). */
export interface IdempotencyStore {
  /**
   * Takes the key for `pending` when it is free (returns undefined), else returns the record that
   * holds it. Rejects when the key cannot be claimed where every replica sees it (the Redis store
   * while Redis is unreachable): the mutation must not run then.
   */
  claim(
    key: string,
    pending: PendingRecord,
    lockMs: number,
  ): Promise<IdempotencyRecord | undefined>;
  /** Replaces the record of `owner` (the holder) with the response to replay. */
  complete(key: string, owner: string, done: DoneRecord, ttlMs: number): Promise<void>;
  /** Frees the key if `owner` still holds it (the write did not happen: a retry may run again). */
  release(key: string, owner: string): Promise<void>;
  /** Stops background work (the Redis store's write-back); the records stay readable. */
  close(): void;
}

/** A record in memory, with the time it has left. */
export interface HeldRecord<R extends IdempotencyRecord = IdempotencyRecord> {
  readonly key: string;
  readonly record: R;
  readonly ttlMs: number;
}

/** The memory store, with what the Redis store needs to write the answers it holds back. */
export interface MemoryIdempotencyStore extends IdempotencyStore {
  /** The record of `key`, if this process holds one. */
  peek(key: string): HeldRecord | undefined;
  /** Drops `key` if it still holds `record` (Redis has it now). */
  forget(key: string, record: IdempotencyRecord): void;
  /** Done records not yet expired, and how long each has left. */
  heldDone(): HeldRecord<DoneRecord>[];
  /** How many unexpired records (pending or done) this process holds. */
  readonly size: number;
}

/** Process-memory store, bounded (the least recently used records go first past `max`). */
export function createMemoryIdempotencyStore(max = 50_000): MemoryIdempotencyStore {
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
    async complete(key, _owner, done, ttlMs) {
      records.set(key, done, { ttl: ttlMs });
    },
    async release(key, owner) {
      const existing = records.get(key);
      if (existing?.state === 'pending' && existing.owner === owner) records.delete(key);
    },
    close: () => undefined,
    peek(key) {
      const record = records.get(key);
      return record && { key, record, ttlMs: records.getRemainingTTL(key) };
    },
    forget(key, record) {
      if (records.peek(key) === record) records.delete(key);
    },
    heldDone() {
      const held: HeldRecord<DoneRecord>[] = [];
      for (const [key, record] of records.entries()) {
        const ttlMs = records.getRemainingTTL(key);
        if (record.state === 'done' && ttlMs > 0) held.push({ key, record, ttlMs });
      }
      return held;
    },
    get size() {
      records.purgeStale();
      return records.size;
    },
  };
}
