/**
 * The store of automatic persisted queries: Apollo's `KeyValueCache<string>` contract (written out
 * here rather than imported from Apollo's transitive utility package) over keyv — Redis when
 * REDIS_URL is set, a bounded in-memory LRU otherwise. A store failure is a miss, never a failed
 * request: the client then sends the full document and the operation still runs.
 */
import type { Keyv } from 'keyv';
import type { FastifyBaseLogger } from 'fastify';

/** Apollo's `KeyValueCache<string>` (what `persistedQueries.cache` takes). */
export interface DocumentCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, options?: { ttl?: number | null }): Promise<void>;
  delete(key: string): Promise<boolean | void>;
}

/** Apollo passes keys as `apq:<sha256>`; the hash is the part after the last colon. */
export function hashOfCacheKey(key: string): string {
  return key.slice(key.lastIndexOf(':') + 1);
}

/** Stores documents in keyv under `<keyv namespace>:apq:<sha256>`; TTLs are seconds (Apollo's). */
export function createKeyvDocumentCache(keyv: Keyv, logger: FastifyBaseLogger): DocumentCache {
  const warn = (action: string, error: unknown) =>
    logger.warn(
      { err: { message: error instanceof Error ? error.message : String(error) }, action },
      'persisted query store failed; treating it as a miss',
    );
  return {
    async get(key) {
      try {
        const value: unknown = await keyv.get(key);
        return typeof value === 'string' ? value : undefined;
      } catch (error) {
        warn('get', error);
        return undefined;
      }
    },
    async set(key, value, options) {
      try {
        const ttl = options?.ttl;
        await keyv.set(key, value, typeof ttl === 'number' && ttl > 0 ? ttl * 1000 : undefined);
      } catch (error) {
        warn('set', error);
      }
    },
    async delete(key) {
      try {
        return await keyv.delete(key);
      } catch (error) {
        warn('delete', error);
        return false;
      }
    },
  };
}
