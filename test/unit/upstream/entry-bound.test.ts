import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import { entryBound } from '../../../src/upstream/entry-bound.ts';
import { LruKeyvStore } from '../../../src/upstream/cache/lru-keyv-store.ts';

describe('entryBound', () => {
  it('holds at most that many entries, the least recently used going first', () => {
    const cache = new LRUCache<string, number>(entryBound(3));
    for (const [index, key] of ['a', 'b', 'c'].entries()) cache.set(key, index);
    cache.get('a');
    cache.set('d', 3);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    expect(cache.size).toBe(3);
  });

  it('bounds a keyv store given only an entry count', async () => {
    const evicted: string[] = [];
    const store = new LruKeyvStore({ max: 2, onEvict: (key) => evicted.push(key) });
    await store.set('one', '1');
    await store.set('two', '2');
    await store.set('three', '3');
    expect(store.size).toBe(2);
    expect(evicted).toEqual(['one']);
  });
});
