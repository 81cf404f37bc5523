/**
 * A per-request DataLoader for upstream reads that have no batch endpoint: each distinct key is
 * fetched once per request (deduplicated and cached for the request), and one key's failure fails
 * only that key. Each key's call names the fields that asked for it in the upstream ledger.
 */
import DataLoader from 'dataloader';
import { trackAskers, type LoaderAskers } from './loader-askers.ts';

export function createKeyedLoader<K, V>(
  fetchOne: (key: K) => Promise<V>,
  cacheKey: (key: K) => string,
): DataLoader<K, V, string> {
  const loader: DataLoader<K, V, string> = new DataLoader<K, V, string>(
    async (keys): Promise<(V | Error)[]> => {
      // Each key's call as made for the fields that asked for that key.
      const settled = await Promise.allSettled(
        keys.map((key) => askers.run([key], () => fetchOne(key))),
      );
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
  const askers: LoaderAskers<K> = trackAskers(loader, cacheKey);
  return loader;
}
