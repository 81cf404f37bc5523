/**
 * lru-cache options that bound a cache to `entries` entries without allocating room for all of them
 * up front. lru-cache's own `max` preallocates its arrays at that length: a 100 000-entry bound held
 * all that room while empty, and the few such caches (buckets, quotas, tag versions) kept it in the
 * idle heap, scanned by every full GC. A size bound where each entry weighs 1 grows with use.
 */
export const entryBound = (entries: number) => ({
  maxSize: entries,
  sizeCalculation: () => 1,
});
