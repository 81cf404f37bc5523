/**
 * A keyv store over `lru-cache`, bounded by the size of what it holds. keyv's TTL (milliseconds)
 * becomes the LRU entry's TTL, so expired entries free their room instead of waiting to be read.
 *
 * It holds what keyv hands it: serialized strings (a string's length is its weight), or — for a keyv
 * without a serializer, `frozen: true` — the values themselves, frozen and weighed by their
 * estimated heap size (`frozen-value.ts`), so that a hit costs no parse and a store no stringify.
 */
import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { LRUCache } from 'lru-cache';
import { entryBound } from '../entry-bound.ts';
import { freezeDeep } from './frozen-value.ts';

export interface LruKeyvStoreOptions {
  /** Upper bound of the summed value sizes: a string's length, a frozen value's estimated heap bytes. */
  readonly maxSize?: number;
  /** Upper bound of the number of entries, when there is no `maxSize`. */
  readonly max?: number;
  /** Called when an entry is pushed out for room (not when it expires or is replaced). */
  readonly onEvict?: (key: string) => void;
  /** Hold keyv's unserialized values, deep-frozen: every reader shares one immutable object. */
  readonly frozen?: boolean;
}

export class LruKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  readonly opts: LruKeyvStoreOptions;
  namespace?: string | undefined;
  readonly #lru: LRUCache<string, NonNullable<unknown>>;

  constructor(options: LruKeyvStoreOptions) {
    super();
    this.opts = options;
    const { onEvict } = options;
    const sizing =
      options.maxSize === undefined
        ? options.max === undefined
          ? {}
          : entryBound(options.max)
        : {
            maxSize: options.maxSize,
            // One value may take at most an eighth of the room, so one huge answer cannot flush all.
            maxEntrySize: Math.max(1, Math.floor(options.maxSize / 8)),
            // Frozen values are weighed once, as they are frozen (`set`).
            sizeCalculation: (value: unknown, key: string) =>
              (typeof value === 'string' ? value.length : 0) + key.length,
          };
    this.#lru = new LRUCache<string, NonNullable<unknown>>({
      ...sizing,
      ...(onEvict
        ? {
            dispose: (_value: unknown, key: string, reason: LRUCache.DisposeReason) => {
              if (reason === 'evict') onEvict(key);
            },
          }
        : {}),
    } as LRUCache.Options<string, NonNullable<unknown>, unknown>);
  }

  /** Entries held now. */
  get size(): number {
    return this.#lru.size;
  }

  /** Summed size of the entries held now. */
  get calculatedSize(): number {
    return this.#lru.calculatedSize;
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.#lru.get(key) as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return keys.map((key) => this.#lru.get(key) as StoredData<Value | undefined>);
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    const ttlOption = ttl ? { ttl } : {};
    if (typeof value === 'string') {
      this.#lru.set(key, value, ttlOption);
    } else if (this.opts.frozen && typeof value === 'object' && value !== null) {
      const weight = freezeDeep(value) + key.length;
      this.#lru.set(
        key,
        value,
        this.opts.maxSize === undefined ? ttlOption : { ...ttlOption, size: weight },
      );
    } else {
      return false;
    }
    return this.#lru.has(key);
  }

  async delete(key: string): Promise<boolean> {
    return this.#lru.delete(key);
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    let all = true;
    for (const key of keys) all = this.#lru.delete(key) && all;
    return all;
  }

  async clear(): Promise<void> {
    this.#lru.clear();
  }

  async has(key: string): Promise<boolean> {
    return this.#lru.has(key);
  }
}
