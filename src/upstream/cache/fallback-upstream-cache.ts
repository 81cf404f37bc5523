/**
 * The Redis-down policy of the upstream cache. With Redis, the cache is shared by every replica; when
 * Redis is unreachable (or fails a command), each replica caches in its own memory until Redis
 * answers again, so an outage does not turn every read into an upstream call — the budget is what
 * runs out first, and with no cache it ran out in seconds under a screen's reads.
 *
 * The memory cache is this replica's alone: a write through another replica during the outage does
 * not invalidate its entries, which then live at most their route's TTL (docs/replicas.md). It is
 * dropped when Redis is back — writes made through other replicas while this one used Redis again
 * never reached it — and made anew at the next outage.
 */
import type { FastifyBaseLogger } from 'fastify';
import { createRedisFallback } from '../../redis/redis-fallback.ts';
import type { UpstreamCache } from './upstream-cache.ts';

export interface FallbackUpstreamCacheOptions {
  readonly shared: UpstreamCache;
  /** Makes the memory cache an outage uses. */
  readonly local: () => UpstreamCache;
  /** Whether Redis can take commands now. */
  readonly usable: () => Promise<boolean>;
  readonly logger: FastifyBaseLogger;
}

export function createFallbackUpstreamCache(options: FallbackUpstreamCacheOptions): UpstreamCache {
  const { shared } = options;
  let local: UpstreamCache | undefined;
  const localCache = () => (local ??= options.local());
  const either = createRedisFallback({
    usable: options.usable,
    logger: options.logger,
    onDown: 'upstream cache: Redis unavailable, each replica caches in its own memory',
    onUp: 'upstream cache: back on the shared Redis cache',
    backOnRedis: () => {
      local = undefined;
    },
  });
  return {
    lookup: (key, tags) =>
      either(
        () => shared.lookup(key, tags),
        () => localCache().lookup(key, tags),
      ),
    versions: (tags) =>
      either(
        () => shared.versions(tags),
        () => localCache().versions(tags),
      ),
    store: (key, answer, ttlMs) =>
      either(
        () => shared.store(key, answer, ttlMs),
        () => localCache().store(key, answer, ttlMs),
      ),
    forget: (keys) =>
      either(
        () => shared.forget(keys),
        () => localCache().forget(keys),
      ),
    invalidate: (tags) =>
      either(
        () => shared.invalidate(tags),
        () => localCache().invalidate(tags),
      ),
  };
}
