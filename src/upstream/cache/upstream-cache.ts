/**
 * The upstream cache, behind the upstream client (not the whole-response cache of
 * `server/response-cache/`): keyv over a size-bounded in-memory LRU, or over
 * Redis (`@keyv/redis`) when `REDIS_URL` is set so that every replica shares it.
 *
 * Entries are keyed by the credential's HMAC id plus an HMAC of the request (never the token, never
 * a request body in clear). Invalidation is by tag versions: every tag (`app:123`) has a version;
 * an entry records the versions of its tags as they were *before* its upstream call started, and is
 * valid only while they are unchanged. A write bumps the versions of the tags it makes stale, which
 * invalidates every credential's entries at once (and in every replica), and an answer fetched while
 * a write was happening is born invalid instead of resurrecting the old state.
 *
 * Entries live for their TTL plus the stale-if-error bound; the caller decides freshness.
 */
import { randomBytes } from 'node:crypto';
import { Keyv, type DeserializedData, type Deserialize, type Serialize } from 'keyv';
import { LruKeyvStore } from './lru-keyv-store.ts';
import type { RedisConnection } from '../../redis/redis-connection.ts';
import { redisKeys } from '../../redis/redis-keys.ts';

/** One stored upstream answer. */
export interface CachedAnswer {
  readonly status: number;
  readonly data: unknown;
  readonly headers: Readonly<Record<string, string>>;
  /** When the upstream call that produced it started (ms): its age counts from there. */
  readonly storedAt: number;
  /** Until when it is fresh (ms). */
  readonly freshUntil: number;
  /** Versions of its tags before the call started. */
  readonly tags: Readonly<Record<string, string>>;
}

export interface CacheLookup {
  /** The entry, when present and not invalidated since it was fetched (fresh or not). */
  readonly entry: CachedAnswer | undefined;
  /** The tags' versions now: an answer fetched next is stored with these. */
  readonly versions: Readonly<Record<string, string>>;
}

export interface UpstreamCache {
  /** Throws when the store cannot be read (the caller then goes upstream and stores nothing). */
  lookup(key: string, tags: readonly string[]): Promise<CacheLookup>;
  store(key: string, answer: CachedAnswer, ttlMs: number): Promise<void>;
  /** Drops these entries (the whole-response cache forgets what a credential no longer holds). */
  forget(keys: readonly string[]): Promise<void>;
  /** The tags' current versions (the whole-response cache checks an entry's own tags with it). */
  versions(tags: readonly string[]): Promise<Record<string, string>>;
  /** Makes every entry carrying one of these tags invalid, for every credential. */
  invalidate(tags: readonly string[]): Promise<void>;
  /**
   * A number that changes whenever any tag version may have changed, where only this process can
   * change them (the memory store): versions read at one generation still hold while it is
   * unchanged, so a reader may skip reading them again. Absent for a shared store (Redis), where
   * another replica's write changes versions unseen.
   */
  readonly generation?: () => number;
}

export type CacheStoreOptions =
  | {
      readonly type: 'memory';
      /** Bound of the entries' summed estimated heap size (bytes). */
      readonly maxBytes: number;
      /** Bound of the number of tag versions remembered. */
      readonly maxTags?: number;
    }
  | { readonly type: 'redis'; readonly connection: RedisConnection; readonly prefix: string };

export interface UpstreamCacheOptions {
  readonly store: CacheStoreOptions;
  /** How long a tag version must outlive every entry that may carry it (ms). */
  readonly tagTtlMs: number;
}

/** A version no other write will draw. */
const newVersion = (): string => randomBytes(9).toString('base64url');
/** The version of a tag never written (or forgotten: see the memory store's eviction rule). */
const INITIAL_VERSION = '0';

/**
 * In Redis, entries are JSON text: native JSON instead of keyv's default serializer, whose per-value
 * reviver (for Buffers) costs more than the rest of a cache hit.
 */
const serialize: Serialize = (data) => JSON.stringify(data);
const deserialize: Deserialize = <Value>(text: string) =>
  JSON.parse(text) as DeserializedData<Value>;
const JSON_CODEC = { serialize, deserialize, useKeyPrefix: false, throwOnErrors: true } as const;
/**
 * In memory, entries are the values themselves, deep-frozen: a hit hands every reader the same
 * immutable answer (no parse), a store costs a walk instead of a stringify, and the byte bound
 * counts their estimated heap size.
 */
const IN_PLACE = {
  serialize: undefined,
  deserialize: undefined,
  useKeyPrefix: false,
  throwOnErrors: true,
} as const;

function keyvPair(
  options: CacheStoreOptions,
  onTagEvicted: () => void,
): { entries: Keyv; tags: Keyv } {
  if (options.type === 'redis') {
    // Keyv hands its namespace to the store, which prefixes keys with `<namespace>::`; Keyv's own
    // prefixing is off so that keys are not prefixed twice.
    const onRedis = (namespace: string) =>
      new Keyv({
        store: options.connection.keyvStore({ throwOnErrors: true, throwOnConnectError: false }),
        namespace,
        ...JSON_CODEC,
      });
    return {
      entries: onRedis(redisKeys.cacheEntries(options.prefix)),
      tags: onRedis(redisKeys.cacheTags(options.prefix)),
    };
  }
  const entryStore = new LruKeyvStore({ maxSize: options.maxBytes, frozen: true });
  // A forgotten tag version would read as the initial one and could make entries written before
  // its last bump valid again; so losing one for room drops every entry with it.
  const tagStore = new LruKeyvStore({
    max: options.maxTags ?? 200_000,
    onEvict: () => {
      void entryStore.clear();
      onTagEvicted();
    },
    frozen: true,
  });
  return {
    entries: new Keyv({ store: entryStore, ...IN_PLACE }),
    tags: new Keyv({ store: tagStore, ...IN_PLACE }),
  };
}

export function createUpstreamCache(options: UpstreamCacheOptions): UpstreamCache {
  /** Bumped after every change of a version this process makes (memory store: all of them). */
  let generation = 0;
  const { entries, tags } = keyvPair(options.store, () => {
    generation += 1;
  });
  // keyv also emits what it throws; without a listener the emit is a no-op, but be explicit.
  entries.on('error', () => undefined);
  tags.on('error', () => undefined);

  async function versionsOf(tagNames: readonly string[]): Promise<Record<string, string>> {
    const found = tagNames.length > 0 ? await tags.getMany<string>([...tagNames]) : [];
    const current: Record<string, string> = {};
    tagNames.forEach((tag, i) => {
      current[tag] = found[i] ?? INITIAL_VERSION;
    });
    return current;
  }

  return {
    async lookup(key, tagNames) {
      const [entry, current] = await Promise.all([
        entries.get<CachedAnswer>(key),
        versionsOf(tagNames),
      ]);
      const valid =
        entry !== undefined && tagNames.every((tag) => entry.tags[tag] === current[tag]);
      return { entry: valid ? entry : undefined, versions: current };
    },

    versions: versionsOf,

    async store(key, answer, ttlMs) {
      await entries.set(key, answer, Math.max(1, Math.round(ttlMs)));
    },

    async forget(keys) {
      if (keys.length > 0) await entries.deleteMany([...keys]);
    },

    async invalidate(tagNames) {
      if (tagNames.length === 0) return;
      await tags.setMany(
        [...new Set(tagNames)].map((tag) => ({
          key: tag,
          value: newVersion(),
          ttl: options.tagTtlMs,
        })),
      );
      generation += 1;
    },

    // A memory version also expires (tagTtlMs), but only after every entry that may carry it.
    ...(options.store.type === 'memory' ? { generation: () => generation } : {}),
  };
}
