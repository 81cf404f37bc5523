/** The keyv upstream cache, in memory and on Redis: entries, tag invalidation, bounds. */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { createRedisConnection } from '../../../../src/redis/redis-connection.ts';
import {
  createUpstreamCache,
  type CachedAnswer,
  type UpstreamCache,
} from '../../../../src/upstream/cache/upstream-cache.ts';
import {
  openTestConnection,
  keysUnder,
  testPrefix,
  testRedisAvailable,
  useTestRedis,
  describeWithoutRedis,
} from '../../../support/redis.ts';
import { until } from '../../../support/clock.ts';

const answer = (data: unknown, versions: Record<string, string>): CachedAnswer => ({
  status: 200,
  data,
  headers: { 'content-type': 'application/json' },
  storedAt: 1,
  freshUntil: 2,
  tags: versions,
});

function cacheCases(name: string, make: () => UpstreamCache) {
  describe(`${name} upstream cache`, () => {
    it('stores an answer and gives it back while its tags are unchanged', async () => {
      const cache = make();
      const miss = await cache.lookup('cred1:app:k1', ['app:a1']);
      expect(miss.entry).toBeUndefined();
      await cache.store('cred1:app:k1', answer({ appId: 'a1' }, miss.versions), 60_000);
      const hit = await cache.lookup('cred1:app:k1', ['app:a1']);
      expect(hit.entry?.data).toEqual({ appId: 'a1' });
    });

    it('drops every entry of a tag on invalidation, and only those', async () => {
      const cache = make();
      const v1 = (await cache.lookup('cred1:app:x', ['app:x1', 'apps'])).versions;
      await cache.store('cred1:app:x', answer('x', v1), 60_000);
      const v2 = (await cache.lookup('cred2:app:x', ['app:x1'])).versions;
      await cache.store('cred2:app:x', answer('x for cred2', v2), 60_000);
      const v3 = (await cache.lookup('cred1:app:y', ['app:y1'])).versions;
      await cache.store('cred1:app:y', answer('y', v3), 60_000);

      await cache.invalidate(['app:x1']);
      expect((await cache.lookup('cred1:app:x', ['app:x1', 'apps'])).entry).toBeUndefined();
      expect((await cache.lookup('cred2:app:x', ['app:x1'])).entry).toBeUndefined();
      expect((await cache.lookup('cred1:app:y', ['app:y1'])).entry?.data).toBe('y');
    });

    it('never resurrects the old state: an answer fetched across a write is born invalid', async () => {
      const cache = make();
      const before = (await cache.lookup('cred1:app:z', ['app:z1'])).versions;
      // … the upstream call is in flight, and a write lands meanwhile …
      await cache.invalidate(['app:z1']);
      await cache.store('cred1:app:z', answer('old state', before), 60_000);
      expect((await cache.lookup('cred1:app:z', ['app:z1'])).entry).toBeUndefined();
    });

    it('forgets the entries it is told to, and only those', async () => {
      const cache = make();
      for (const key of ['cred1:f:1', 'cred1:f:2', 'cred1:f:3']) {
        await cache.store(key, answer(key, {}), 60_000);
      }
      await cache.forget(['cred1:f:1', 'cred1:f:3', 'cred1:f:never-stored']);
      expect((await cache.lookup('cred1:f:1', [])).entry).toBeUndefined();
      expect((await cache.lookup('cred1:f:2', [])).entry?.data).toBe('cred1:f:2');
      expect((await cache.lookup('cred1:f:3', [])).entry).toBeUndefined();
      await cache.forget([]);
    });

    it('lets entries expire with their TTL', async () => {
      const cache = make();
      const { versions } = await cache.lookup('cred1:t:short', []);
      const storing = performance.now();
      await cache.store('cred1:t:short', answer('short', versions), 50);
      // The store's own clock (Redis's, or lru-cache's) ends the entry: wait for that, not a delay.
      await until(
        async () => (await cache.lookup('cred1:t:short', [])).entry === undefined,
        'the entry to expire',
        2_000,
      );
      // Never before its TTL (lru-cache reads its clock to the millisecond, hence the one ms).
      expect(performance.now() - storing).toBeGreaterThanOrEqual(49);
    });
  });
}

cacheCases('memory', () =>
  createUpstreamCache({ store: { type: 'memory', maxBytes: 1024 * 1024 }, tagTtlMs: 600_000 }),
);

describeWithoutRedis('memory upstream cache bounds', () => {
  it('stays within its byte budget, dropping the least recently used entries', async () => {
    const cache = createUpstreamCache({
      store: { type: 'memory', maxBytes: 64 * 1024 },
      tagTtlMs: 600_000,
    });
    const big = 'x'.repeat(4 * 1024);
    for (let i = 0; i < 40; i += 1) await cache.store(`c:k:${i}`, answer(big, {}), 60_000);
    const held = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => (await cache.lookup(`c:k:${i}`, [])).entry),
    );
    const kept = held.filter(Boolean).length;
    expect(kept).toBeLessThan(16); // 64 KiB / ~4 KiB
    expect(kept).toBeGreaterThan(5);
    expect(held[39]).toBeDefined(); // the newest stays
    expect(held[0]).toBeUndefined(); // the oldest went
  });

  it('bounds parsed answers by their heap weight, not by a count', async () => {
    const cache = createUpstreamCache({
      store: { type: 'memory', maxBytes: 64 * 1024 },
      tagTtlMs: 600_000,
    });
    // 50 records of a short string, a double and a boolean: ~4.4 KiB of heap, ~1.8 KiB as text.
    const page = (i: number) =>
      Array.from({ length: 50 }, (_, j) => ({ id: `r-${i}-${j}`, n: j + 0.5, ok: true }));
    for (let i = 0; i < 40; i += 1) await cache.store(`c:p:${i}`, answer(page(i), {}), 60_000);
    const held = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => (await cache.lookup(`c:p:${i}`, [])).entry),
    );
    const kept = held.filter(Boolean).length;
    expect(kept).toBeLessThan(16); // 64 KiB / ~4.4 KiB (by text length it would keep all 40)
    expect(kept).toBeGreaterThan(10);
    expect(held[39]).toBeDefined();
  });

  it('hands every reader the same answer, frozen: no request can change what another reads', async () => {
    const cache = createUpstreamCache({
      store: { type: 'memory', maxBytes: 1024 * 1024 },
      tagTtlMs: 600_000,
    });
    const data = { app: { appId: 'a1', variants: [{ name: 'v1' }] } };
    await cache.store('c:k', answer(data, {}), 60_000);
    const first = (await cache.lookup('c:k', [])).entry!;
    const second = (await cache.lookup('c:k', [])).entry!;
    expect(second.data).toBe(first.data); // no parse per hit
    expect(() => {
      (first.data as typeof data).app.variants[0]!.name = 'changed';
    }).toThrow(TypeError);
    expect(second.data).toEqual({ app: { appId: 'a1', variants: [{ name: 'v1' }] } });
  });

  it('drops every entry when it has to forget a tag version (never a resurrection)', async () => {
    const cache = createUpstreamCache({
      store: { type: 'memory', maxBytes: 1024 * 1024, maxTags: 3 },
      tagTtlMs: 600_000,
    });
    const { versions } = await cache.lookup('c:k', ['t0']);
    await cache.invalidate(['t0']);
    const after = await cache.lookup('c:k', ['t0']);
    await cache.store('c:k', answer('v', after.versions), 60_000);
    expect(versions).not.toEqual(after.versions);
    await cache.invalidate(['t1', 't2', 't3']); // t0's version is pushed out
    expect((await cache.lookup('c:k', ['t0'])).entry).toBeUndefined();
  });
});

describeWithoutRedis('memory upstream cache generation', () => {
  it('changes whenever a tag version may have changed, and only then', async () => {
    const cache = createUpstreamCache({
      store: { type: 'memory', maxBytes: 1024 * 1024, maxTags: 2 },
      tagTtlMs: 600_000,
    });
    const at = cache.generation!();
    const { versions } = await cache.lookup('c:k', ['t0']);
    await cache.store('c:k', answer('v', versions), 60_000);
    expect(cache.generation!()).toBe(at);
    await cache.invalidate(['t0']);
    const afterWrite = cache.generation!();
    expect(afterWrite).not.toBe(at);
    await cache.invalidate(['t1', 't2']); // t0's version is pushed out: it reads as never written
    expect(cache.generation!()).toBeGreaterThan(afterWrite + 1);
  });
});

describe.skipIf(!testRedisAvailable)('redis upstream cache', () => {
  const prefix = testPrefix('cache');
  const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
  const redis = useTestRedis(prefix);

  // One cache for the block, as a process has one: every store it opens adds its listeners to the
  // shared connection for good (the keys are what the tests keep apart, here as between replicas).
  let shared: ReturnType<typeof createUpstreamCache> | undefined;
  const make = () =>
    (shared ??= createUpstreamCache({
      store: { type: 'redis', connection: redis.connection(), prefix },
      tagTtlMs: 600_000,
    }));
  cacheCases('redis', make);

  it('has no generation: another replica changes versions unseen', () => {
    expect(make().generation).toBeUndefined();
  });

  it('is shared by two clients (replicas) and keeps its keys under the prefix', async () => {
    const other = await openTestConnection();
    try {
      const a = make();
      const b = createUpstreamCache({
        store: { type: 'redis', connection: other, prefix },
        tagTtlMs: 600_000,
      });
      const { versions } = await a.lookup('credX:store:k', ['store:s1']);
      await a.store('credX:store:k', answer({ storeId: 's1' }, versions), 60_000);
      expect((await b.lookup('credX:store:k', ['store:s1'])).entry?.data).toEqual({
        storeId: 's1',
      });
      await b.invalidate(['store:s1']);
      expect((await a.lookup('credX:store:k', ['store:s1'])).entry).toBeUndefined();
      const keys = await keysUnder(redis.admin(), prefix);
      expect(keys).toContain(`${prefix}:cache::credX:store:k`);
      expect(keys).toContain(`${prefix}:tag::store:s1`);
      // Entries carry their TTL in Redis too.
      expect(await redis.admin().pTTL(`${prefix}:cache::credX:store:k`)).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it('throws on lookup when Redis is unreachable (the caller then skips the cache)', async () => {
    const dead = createRedisConnection({
      url: 'redis://127.0.0.1:1',
      connectTimeoutMs: 100,
      commandTimeoutMs: 100,
      logger: silent,
    });
    try {
      await dead.usable();
      const cache = createUpstreamCache({
        store: { type: 'redis', connection: dead, prefix },
        tagTtlMs: 600_000,
      });
      await expect(cache.lookup('c:k', ['t'])).rejects.toThrow();
    } finally {
      await dead.close();
    }
  });
});
