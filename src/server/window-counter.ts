/**
 * Counts per key in fixed windows, in this process's memory (bounded: the least recently used keys
 * are forgotten): what the per-credential quotas fall back to and what the refusal throttle counts.
 */
import { LRUCache } from 'lru-cache';
import { entryBound } from '../upstream/entry-bound.ts';

export interface WindowCount {
  readonly count: number;
  /** When the key's window ends (ms). */
  readonly until: number;
}

export interface WindowCounter {
  /** Counts one more for the key and returns its window's count. */
  add(key: string): WindowCount;
  /** The key's current window, without counting; undefined when it has none. */
  peek(key: string): WindowCount | undefined;
}

export function createWindowCounter(windowMs: number, now: () => number = Date.now): WindowCounter {
  const windows = new LRUCache<string, { count: number; until: number }>(entryBound(100_000));
  const current = (key: string) => {
    const known = windows.get(key);
    return known && known.until > now() ? known : undefined;
  };
  return {
    add(key) {
      const entry = current(key) ?? { count: 0, until: now() + windowMs };
      entry.count += 1;
      windows.set(key, entry);
      return entry;
    },
    peek: current,
  };
}
