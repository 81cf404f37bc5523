/**
 * A per-request DataLoader for upstream reads that have no batch endpoint: each distinct key is
 * fetched once per request (deduplicated and cached for the request), one key's failure fails only
 * that key, and each key is answered as soon as its own call is — not when the slowest call of its
 * batch is: a field whose read came back goes on (the next part of an answer in parts, a streamed
 * list's next item) while the others are still out. Each key's call names the fields that asked for
 * it in the upstream ledger.
 */
import DataLoader from 'dataloader';
import { trackAskers, type LoaderAskers } from './loader-askers.ts';

const asError = (reason: unknown): Error =>
  reason instanceof Error ? reason : new Error(String(reason));

export function createKeyedLoader<K, V>(
  fetchOne: (key: K) => Promise<V>,
  cacheKey: (key: K) => string,
): DataLoader<K, V, string> {
  const loader: DataLoader<K, V, string> = new DataLoader<K, V, string>(
    // Each key's call as made for the fields that asked for that key. The batch answers at once
    // with each key's own promise, which DataLoader hands to that key's `load` (a promise resolved
    // with a promise follows it): the key settles when its call does.
    async (keys) =>
      keys.map((key) =>
        askers
          .run([key], () => fetchOne(key))
          .catch((reason: unknown) => {
            throw asError(reason);
          }),
      ) as unknown as V[],
    { cacheKeyFn: cacheKey },
  );
  const askers: LoaderAskers<K> = trackAskers(loader, cacheKey);
  return loader;
}
