/**
 * Persisted operations: automatic persisted queries (APQ) for mobile clients, or — with
 * TRUSTED_DOCUMENTS_PATH — trusted-documents mode, in which only the manifest's operations run.
 *
 * APQ is Apollo Server's own protocol (`extensions.persistedQuery.sha256Hash`; a miss answers
 * `PersistedQueryNotFound`, the client resends with the text, then the hash alone works). Documents
 * live in keyv: Redis when REDIS_URL is set, so every replica knows what any replica registered; a
 * size-bounded LRU otherwise. Only the document text is stored, never variables.
 */
import { Keyv } from 'keyv';
import type { FastifyBaseLogger } from 'fastify';
import type { RedisConnection } from '../../redis/redis-connection.ts';
import { LruKeyvStore } from '../../upstream/cache/lru-keyv-store.ts';
import { createKeyvDocumentCache, type DocumentCache } from './document-cache.ts';
import { loadTrustedDocuments, type TrustedDocuments } from './trusted-documents.ts';
import { redisKeys } from '../../redis/redis-keys.ts';

/** Options of {@link createPersistedOperations}. */
export interface PersistedOperationsOptions {
  readonly ttlSec: number;
  readonly trustedDocumentsPath: string | undefined;
  /** Shared Redis: APQ documents go to `<keyPrefix>:persisted:apq:<sha256>`. */
  readonly redis: { readonly connection: RedisConnection; readonly keyPrefix: string } | undefined;
  readonly logger: FastifyBaseLogger;
}

/** What the gateway needs of persisted operations: Apollo's option and the trusted set. */
export interface PersistedOperations {
  /** Apollo Server's `persistedQueries` option. */
  readonly apolloOptions: { readonly cache: DocumentCache; readonly ttl: number | null };
  /** Set in trusted-documents mode: the only documents the gateway serves. */
  readonly trusted: TrustedDocuments | undefined;
}

/** In-memory APQ room: documents are ≤ LIMIT_MAX_DOCUMENT_BYTES, most a few hundred bytes. */
const MEMORY_STORE_BYTES = 16 * 1024 * 1024;

function apqKeyv(options: PersistedOperationsOptions): Keyv {
  // keyv hands its own namespace to the store, so both get it; the store alone prefixes keys.
  const namespace = options.redis ? redisKeys.persisted(options.redis.keyPrefix) : undefined;
  const keyv = options.redis
    ? new Keyv({
        store: options.redis.connection.keyvStore({
          namespace,
          keyPrefixSeparator: ':',
          throwOnErrors: true,
          throwOnConnectError: false,
        }),
        namespace,
        useKeyPrefix: false,
        throwOnErrors: true,
      })
    : new Keyv({
        store: new LruKeyvStore({ maxSize: MEMORY_STORE_BYTES }),
        useKeyPrefix: false,
        throwOnErrors: true,
      });
  // The cache adapter logs failures per call; keyv's error events would only repeat them.
  keyv.on('error', () => undefined);
  return keyv;
}

/**
 * APQ over keyv, or — with a manifest path — trusted-documents mode (start-up fails on a bad manifest).
 */
export async function createPersistedOperations(
  options: PersistedOperationsOptions,
): Promise<PersistedOperations> {
  const log = options.logger.child({ component: 'persisted-operations' });
  if (options.trustedDocumentsPath !== undefined) {
    const trusted = await loadTrustedDocuments(options.trustedDocumentsPath);
    log.info({ documents: trusted.size }, 'trusted-documents mode: only the manifest is served');
    return { apolloOptions: { cache: trusted.cache, ttl: null }, trusted };
  }
  return {
    apolloOptions: {
      cache: createKeyvDocumentCache(apqKeyv(options), log),
      ttl: options.ttlSec,
    },
    trusted: undefined,
  };
}
