/**
 * Which fields asked a per-request loader for each key, for the upstream ledger's `paths`
 * (docs/ledger.md): DataLoader runs its batch in the context of the first `load`, so without this
 * every call of a batch would name the first field that asked. Recorded only for a request that
 * lists its ledger (a field path is then set); otherwise one lookup per `load`.
 */
import type DataLoader from 'dataloader';
import { fieldPath } from '../upstream/upstream-ledger.ts';

export interface LoaderAskers<K> {
  /** The paths that asked for these keys (undefined: nobody is listening). */
  of(keys: readonly K[]): string[] | undefined;
  /** Runs `fetch` as made for the fields that asked for `keys`. */
  run<T>(keys: readonly K[], fetch: () => Promise<T>): Promise<T>;
}

/** Makes `loader` note the field path of every `load`; returns where to read them. */
export function trackAskers<K, V>(
  loader: DataLoader<K, V, string>,
  cacheKey: (key: K) => string,
): LoaderAskers<K> {
  const askedBy = new Map<string, string[]>();
  const load = loader.load.bind(loader);
  // loadMany goes through load as well.
  loader.load = (key: K) => {
    const asking = fieldPath.getStore();
    if (asking) {
      const id = cacheKey(key);
      const paths = askedBy.get(id);
      if (paths) paths.push(...asking);
      else askedBy.set(id, [...asking]);
    }
    return load(key);
  };
  const of = (keys: readonly K[]) => {
    if (askedBy.size === 0) return undefined;
    const paths: string[] = [];
    for (const key of keys) paths.push(...(askedBy.get(cacheKey(key)) ?? []));
    return paths;
  };
  return {
    of,
    run(keys, fetch) {
      const paths = of(keys);
      return paths ? fieldPath.run(paths, fetch) : fetch();
    },
  };
}
