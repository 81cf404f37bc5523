/**
 * Which fields asked a per-request loader for each key, for the upstream ledger's `paths`
 * (docs/budget.md): DataLoader runs its batch in the context of the first `load`, so without this
 * every call of a batch would name the first field that asked. Recorded only for a request that
 * lists its ledger (a field path is then set); otherwise one lookup per `load`. Each key keeps at
 * most a few fields and counts the others (`upstream/ledger-field-paths.ts`): a document that asks
 * for one key from thousands of fields holds a count, not thousands of paths.
 */
import type DataLoader from 'dataloader';
import { fieldPath } from '../upstream/upstream-ledger.ts';
import { FieldAskers } from '../upstream/ledger-field-paths.ts';

export interface LoaderAskers<K> {
  /** The fields that asked for these keys (undefined: nobody is listening). */
  of(keys: readonly K[]): FieldAskers | undefined;
  /** Runs `fetch` as made for the fields that asked for `keys`. */
  run<T>(keys: readonly K[], fetch: () => Promise<T>): Promise<T>;
}

/** Makes `loader` note the field path of every `load`; returns where to read them. */
export function trackAskers<K, V>(
  loader: DataLoader<K, V, string>,
  cacheKey: (key: K) => string,
): LoaderAskers<K> {
  const askedBy = new Map<string, FieldAskers>();
  const load = loader.load.bind(loader);
  // loadMany goes through load as well.
  loader.load = (key: K) => {
    const asking = fieldPath.getStore();
    if (asking) {
      const id = cacheKey(key);
      let askers = askedBy.get(id);
      if (!askers) askedBy.set(id, (askers = new FieldAskers()));
      askers.addAll(asking);
    }
    return load(key);
  };
  const of = (keys: readonly K[]) => {
    if (askedBy.size === 0) return undefined;
    const askers = new FieldAskers();
    for (const key of keys) {
      const asked = askedBy.get(cacheKey(key));
      if (asked) askers.addAll(asked);
    }
    return askers;
  };
  return {
    of,
    run(keys, fetch) {
      const askers = of(keys);
      return askers ? fieldPath.run(askers, fetch) : fetch();
    },
  };
}
