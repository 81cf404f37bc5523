/**
 * The whole-response cache: a POST /graphql query whose every upstream read was answered from the
 * upstream cache is replayed, for the same credential and the same request, without running Apollo
 * at all — until the first of those entries goes stale or any of their tags is invalidated by a
 * write (the entry carries the upstream entries' tag versions, checked on every replay: read again
 * only when the cache's generation says a version may have changed since the last check).
 *
 * What is never replayed: mutations, subscriptions, responses with errors or stale values, and any
 * response that needed an uncached read (job or upload status, logs, the ACME binding and its
 * `hmacKey`), a write, or a live value (`viewer.rateLimit`). A replay spends no budget, so it carries
 * no `RateLimit-*` headers. The key is a hash of the credential's HMAC id, the store header and the
 * request; the document already passed every limit when it was first answered.
 */
import { hash } from 'node:crypto';
import { stripIgnoredCharacters } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { UpstreamCache } from '../../upstream/cache/upstream-cache.ts';
import type { Replayability } from '../../upstream/request-facts.ts';

/** The parts of a request that decide its response. */
export interface ReplayKeyParts {
  readonly credentialId: string;
  readonly storeIdHeader: string | undefined;
  readonly query: string | undefined;
  readonly persistedHash: string | undefined;
  readonly operationName: string | undefined;
  readonly variables: unknown;
}

export interface Replay {
  /** The response body (JSON, UTF-8 encoded once) and the operation name it answered. */
  readonly body: Buffer;
  readonly operationName: string | null;
  /** A strong validator of the body (`If-None-Match` / 304). */
  readonly etag: string;
  /** Until when the response is fresh (ms): `Cache-Control: private, max-age` counts down to it. */
  readonly freshUntil: number;
}

export interface GraphqlResponseCache {
  keyOf(parts: ReplayKeyParts): string;
  lookup(key: string): Promise<Replay | undefined>;
  /**
   * The replay kept in this process under `key` when it is fresh and nothing needs reading to know
   * it is still valid (no write in this process since its tags were last found current); otherwise
   * undefined, and {@link lookup} decides. Synchronous: a replay answered from here costs no promise.
   */
  known(key: string): Replay | undefined;
  /**
   * Stores a successful query response when the upstream layer says it may be replayed; returns
   * what was stored (its validator and freshness), or undefined.
   */
  offer(
    key: string,
    /** The JSON text of the response's `data` (result-encoding.ts: the answer sends the same). */
    dataText: string,
    operationName: string | null,
    replayability: Replayability,
  ): Promise<Pick<Replay, 'etag' | 'freshUntil'> | undefined>;
  /** Drops stored responses (here and in the shared cache): they are no longer replayed. */
  forget(keys: readonly string[]): Promise<void>;
}

const PREFIX = 'graphql-response:';

/**
 * Documents already normalised, by their text: the hash of their normalised form. Bounded by the
 * texts' length (only documents that passed the size limit reach it).
 */
const normalizedHashes = new LRUCache<string, string>({
  maxSize: 4 * 1024 * 1024,
  sizeCalculation: (_documentHash, text) => text.length + 64,
});

/**
 * The hash of the document without comments and insignificant whitespace: the same query written
 * twice is one entry, not one per comment or indentation (a client cannot grow the cache by
 * rewording).
 */
function normalizedDocumentHash(query: string): string {
  let documentHash = normalizedHashes.get(query);
  if (documentHash === undefined) {
    let text: string;
    try {
      text = stripIgnoredCharacters(query);
    } catch {
      text = query; // not a document: Apollo refuses it, nothing is stored
    }
    documentHash = hash('sha256', text, 'base64url');
    normalizedHashes.set(query, documentHash);
  }
  return documentHash;
}

/** What the shared cache stores: the body as text (JSON-serialisable, shared with other replicas). */
interface StoredReplay {
  readonly body: string;
  readonly operationName: string | null;
  readonly etag: string;
}

/**
 * Bytes of encoded bodies kept in this process beside the shared cache. A replay then costs a tag
 * check and a socket write: no JSON parse of the entry and no UTF-8 encoding of its body per hit
 * (work every replay of the same answer would repeat). Bounded in bytes; the shared cache stays
 * the authority on what exists, and the tag versions on what is still valid.
 */
const HOT_BODY_BYTES = 16 * 1024 * 1024;

interface HotReplay extends Replay {
  readonly tags: Readonly<Record<string, string>>;
  /**
   * The cache's generation when the tags were last found current: while it is unchanged, no read
   * of the versions is needed (each would be a store read on every replay).
   */
  checkedAt: number | undefined;
}

export function createGraphqlResponseCache(
  cache: UpstreamCache,
  now: () => number = Date.now,
): GraphqlResponseCache {
  const hot = new LRUCache<string, HotReplay>({
    maxSize: HOT_BODY_BYTES,
    sizeCalculation: (replay) => replay.body.length + 256,
  });
  /** Whether a write invalidated none of the replay's tags since it was stored. */
  const stillValid = async (replay: HotReplay): Promise<boolean> => {
    const generation = cache.generation?.();
    if (generation !== undefined && replay.checkedAt === generation) return true;
    const current = await cache.versions(Object.keys(replay.tags));
    const valid = Object.entries(replay.tags).every(([tag, version]) => current[tag] === version);
    if (valid) replay.checkedAt = generation;
    return valid;
  };
  // No TTL of the LRU's own: each lookup compares `freshUntil` with `now` already (the LRU's TTL
  // read the clock again and set a timer per get), and a stale entry is dropped when it is asked
  // for, or pushed out by the byte bound.
  const keepHot = (key: string, replay: HotReplay): HotReplay => {
    hot.set(key, replay);
    return replay;
  };

  return {
    keyOf: (parts) =>
      PREFIX +
      hash(
        'sha256',
        JSON.stringify([
          parts.credentialId,
          parts.storeIdHeader ?? null,
          parts.query === undefined ? null : normalizedDocumentHash(parts.query),
          parts.persistedHash ?? null,
          parts.operationName ?? null,
          parts.variables ?? null,
        ]),
        'base64url',
      ),

    known(key) {
      const known = hot.get(key);
      if (!known || now() >= known.freshUntil) return undefined;
      const generation = cache.generation?.();
      return generation !== undefined && known.checkedAt === generation ? known : undefined;
    },

    async lookup(key) {
      // The entry names its tags; then their current versions say whether a write invalidated it.
      const known = hot.get(key);
      if (known && now() < known.freshUntil) {
        if (await stillValid(known)) return known;
        hot.delete(key);
        return undefined;
      }
      if (known) hot.delete(key);
      const { entry } = await cache.lookup(key, []);
      if (!entry || now() >= entry.freshUntil) return undefined;
      const stored = entry.data as StoredReplay;
      const replay: HotReplay = {
        body: Buffer.from(stored.body),
        operationName: stored.operationName,
        etag: stored.etag,
        freshUntil: entry.freshUntil,
        tags: entry.tags,
        checkedAt: undefined,
      };
      return (await stillValid(replay)) ? keepHot(key, replay) : undefined;
    },

    async offer(key, dataText, operationName, replayability) {
      const { cacheable, freshUntil, tags } = replayability;
      if (!cacheable || freshUntil === undefined) return undefined;
      const ttlMs = freshUntil - now();
      if (ttlMs <= 0) return undefined;
      const text = `{"data":${dataText}}`;
      const etag = `"${hash('sha256', text, 'base64url').slice(0, 27)}"`;
      const stored: StoredReplay = { body: text, operationName, etag };
      await cache.store(
        key,
        { status: 200, data: stored, headers: {}, storedAt: now(), freshUntil, tags },
        ttlMs,
      );
      // Not kept hot yet: most responses are never asked for again (a miss path pays no encoding);
      // the first replay reads it from the shared cache and keeps it.
      return { etag, freshUntil };
    },

    async forget(keys) {
      for (const key of keys) hot.delete(key);
      await cache.forget(keys);
    },
  };
}
