/** The whole-response cache's replay check: a write invalidates a kept replay at once. */
import { describe, expect, it, vi } from 'vitest';
import { createGraphqlResponseCache } from '../../../src/server/response-cache/graphql-response-cache.ts';
import {
  createUpstreamCache,
  type UpstreamCache,
} from '../../../src/upstream/cache/upstream-cache.ts';

const memoryCache = () =>
  createUpstreamCache({ store: { type: 'memory', maxBytes: 1024 * 1024 }, tagTtlMs: 600_000 });

/** Stores one replayable response tagged `app:a1` and returns its key. */
async function storedReplay(
  responses: ReturnType<typeof createGraphqlResponseCache>,
  cache: UpstreamCache,
) {
  const key = responses.keyOf({
    credentialId: 'cred',
    storeIdHeader: undefined,
    query: '{ app(appId: "a1") { appId } }',
    persistedHash: undefined,
    operationName: undefined,
    variables: undefined,
  });
  const { versions } = await cache.lookup('upstream:app:a1', ['app:a1']);
  const stored = await responses.offer(key, JSON.stringify({ app: { appId: 'a1' } }), null, {
    cacheable: true,
    tags: versions,
    freshUntil: Date.now() + 60_000,
  });
  expect(stored).toBeDefined();
  return key;
}

describe('whole-response cache replay check', () => {
  it('reads the tag versions again only after this process changed one (memory store)', async () => {
    const cache = memoryCache();
    const versions = vi.spyOn(cache, 'versions');
    const responses = createGraphqlResponseCache(cache);
    const key = await storedReplay(responses, cache);

    for (let i = 0; i < 5; i += 1) expect(await responses.lookup(key)).toBeDefined();
    expect(versions).toHaveBeenCalledTimes(1);

    // A write elsewhere in the graph changes the generation: checked again, still valid.
    await cache.invalidate(['apps']);
    expect(await responses.lookup(key)).toBeDefined();
    expect(versions).toHaveBeenCalledTimes(2);

    // A write to one of its tags ends the replay, kept in memory or not.
    await cache.invalidate(['app:a1']);
    expect(await responses.lookup(key)).toBeUndefined();
    expect(await responses.lookup(key)).toBeUndefined();
  });

  it('reads the tag versions on every replay when another process may change them', async () => {
    const memory = memoryCache();
    // As the Redis store: no generation, so another replica's write is never missed.
    const shared: UpstreamCache = { ...memory, generation: undefined };
    const versions = vi.spyOn(shared, 'versions');
    const responses = createGraphqlResponseCache(shared);
    const key = await storedReplay(responses, shared);

    for (let i = 0; i < 3; i += 1) expect(await responses.lookup(key)).toBeDefined();
    expect(versions).toHaveBeenCalledTimes(3);
    await memory.invalidate(['app:a1']);
    expect(await responses.lookup(key)).toBeUndefined();
  });
});

describe('whole-response cache forgetting', () => {
  it('stops replaying a forgotten response, kept in memory or not', async () => {
    const cache = memoryCache();
    const responses = createGraphqlResponseCache(cache);
    const key = await storedReplay(responses, cache);
    expect(await responses.lookup(key)).toBeDefined(); // now kept hot in this process too
    await responses.forget([key]);
    expect(await responses.lookup(key)).toBeUndefined();
    expect((await cache.lookup(key, [])).entry).toBeUndefined();
  });
});
