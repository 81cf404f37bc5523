/**
 * A per-request DataLoader for upstream reads that have no batch endpoint: each distinct key is
 * fetched once per request (deduplicated and cached for the request), and one key's failure fails
 * only that key.
 */
import DataLoader from 'dataloader';

export function createKeyedLoader<K, V>(
  fetchOne: (key: K) => Promise<V>,
  cacheKey: (key: K) => string,
): DataLoader<K, V, string> {
  return new DataLoader<K, V, string>(
    async (keys) => {
      const settled = await Promise.allSettled(keys.map(fetchOne));
      return settled.map((result) =>
        result.status === 'fulfilled'
          ? result.value
          : result.reason instanceof Error
            ? result.reason
            : new Error(String(result.reason)),
      );
    },
    { cacheKeyFn: cacheKey },
  );
}
