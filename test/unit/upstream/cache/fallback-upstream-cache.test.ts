/**
 * The upstream cache while Redis is gone (`fallback-upstream-cache.ts`): each replica caches in its
 * own memory, so an outage does not make every read an upstream call; that memory is dropped when
 * Redis answers again (writes through other replicas meanwhile never reached it).
 */
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createFallbackUpstreamCache } from '../../../../src/upstream/cache/fallback-upstream-cache.ts';
import {
  createUpstreamCache,
  type CachedAnswer,
  type UpstreamCache,
} from '../../../../src/upstream/cache/upstream-cache.ts';

const inMemory = (): UpstreamCache =>
  createUpstreamCache({ store: { type: 'memory', maxBytes: 1 << 20 }, tagTtlMs: 60_000 });

/** A shared cache (memory standing in for Redis) that fails every command while `down`. */
function flakyShared() {
  const inner = inMemory();
  const state = { down: false };
  const guard =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      state.down ? Promise.reject(new Error('Redis node is not connected')) : run(...args);
  const shared: UpstreamCache = {
    lookup: guard(inner.lookup),
    versions: guard(inner.versions),
    store: guard(inner.store),
    forget: guard(inner.forget),
    invalidate: guard(inner.invalidate),
  };
  return { shared, state };
}

const answer = (data: unknown): CachedAnswer => ({
  status: 200,
  data,
  headers: {},
  storedAt: Date.now(),
  freshUntil: Date.now() + 60_000,
  tags: { 'cert:1': '0' },
});

function cacheWithOutage() {
  const { shared, state } = flakyShared();
  let usable = true;
  const cache = createFallbackUpstreamCache({
    shared,
    local: inMemory,
    usable: async () => usable && !state.down,
    logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
  });
  const setDown = (down: boolean) => {
    state.down = down;
    usable = !down;
  };
  return { cache, shared, setDown };
}

describe('the upstream cache while Redis is gone', () => {
  it('keeps what it reads in this replica’s memory, and invalidates it there', async () => {
    const { cache, setDown } = cacheWithOutage();
    setDown(true);
    expect((await cache.lookup('k', ['cert:1'])).entry).toBeUndefined();
    await cache.store('k', answer('during'), 60_000);
    expect((await cache.lookup('k', ['cert:1'])).entry?.data).toBe('during');
    await cache.invalidate(['cert:1']);
    expect((await cache.lookup('k', ['cert:1'])).entry).toBeUndefined();
  });

  it('reads the shared cache again once Redis answers, and forgets what the outage kept', async () => {
    const { cache, shared, setDown } = cacheWithOutage();
    await cache.store('k', answer('shared'), 60_000);
    setDown(true);
    await cache.store('k', answer('during'), 60_000);
    expect((await cache.lookup('k', ['cert:1'])).entry?.data).toBe('during');
    setDown(false);
    expect((await cache.lookup('k', ['cert:1'])).entry?.data).toBe('shared');
    // Another replica's write while this one was back on Redis: the next outage starts empty
    // rather than answering from what the last one kept.
    await shared.invalidate(['cert:1']);
    setDown(true);
    expect((await cache.lookup('k', ['cert:1'])).entry).toBeUndefined();
  });

  it('falls back on a failing command even while the connection says it is usable', async () => {
    const { shared, state } = flakyShared();
    const cache = createFallbackUpstreamCache({
      shared,
      local: inMemory,
      usable: async () => true,
      logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
    });
    state.down = true;
    await cache.store('k', answer('during'), 60_000);
    expect((await cache.lookup('k', ['cert:1'])).entry?.data).toBe('during');
  });
});
