/**
 * A keyv store over `lru-cache`, bounded by the size of what it holds (keyv hands stores serialized
 * strings, so a string's length is its weight). keyv's TTL (milliseconds) becomes the LRU entry's
 * TTL, so expired entries free their room instead of waiting to be read.
 */
import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { LRUCache } from 'lru-cache';
import { entryBound } from './entry-bound.ts';

export interface LruKeyvStoreOptions {
  /** Upper bound of the summed value sizes (UTF-16 code units ≈ bytes for JSON). */
  readonly maxSize?: number;
  /** Upper bound of the number of entries, when there is no `maxSize`. */
  readonly max?: number;
  /** Called when an entry is pushed out for room (not when it expires or is replaced). */
  readonly onEvict?: (key: string) => void;
}

export class LruKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  readonly opts: LruKeyvStoreOptions;
  namespace?: string | undefined;
  readonly #lru: LRUCache<string, string>;

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
            sizeCalculation: (value: string, key: string) => value.length + key.length,
          };
    this.#lru = new LRUCache<string, string>({
      ...sizing,
      ...(onEvict
        ? {
            dispose: (_value: string, key: string, reason: LRUCache.DisposeReason) => {
              if (reason === 'evict') onEvict(key);
            },
          }
        : {}),
    } as LRUCache.Options<string, string, unknown>);
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
    if (typeof value !== 'string') return false;
    this.#lru.set(key, value, ttl ? { ttl } : {});
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
