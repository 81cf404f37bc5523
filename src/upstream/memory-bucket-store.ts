/**
 * Token buckets in this process's memory: the store of a single replica without `REDIS_URL`, and
 * each replica's fallback while Redis is unreachable (then with `share` < 1, see
 * `fallback-bucket-store.ts`). Same algorithm as the Redis Lua script (`token-bucket.ts`).
 */
import { LRUCache } from 'lru-cache';
import { entryBound } from './entry-bound.ts';
import type { BudgetSnapshot } from './budget-tracker.ts';
import type { RouteClass } from './upstream-routes.ts';
import {
  correctBucket,
  credentialWaitMs,
  newBucket,
  probeWaitMs,
  refillBucket,
  shareOf,
  sharedClassLimits,
  snapshotOf,
  type BucketState,
  type BucketStore,
  type CredentialBudget,
} from './token-bucket.ts';

export interface MemoryBucketStoreOptions {
  readonly budget: CredentialBudget;
  /** Share of every limit this store may hand out (1 = all of it). */
  readonly share?: number;
  readonly now?: () => number;
  /** Credentials remembered at once; the least recently used is forgotten past this. */
  readonly maxCredentials?: number;
}

interface ClassLog {
  /** Times of the calls of the last window, oldest first. */
  readonly calls: number[];
  blockedUntil: number;
}

/** A store that can also follow a shared store while the shared one is in use. */
export interface LocalBucketStore extends BucketStore {
  /**
   * What the shared bucket said was left after one of this replica's calls: this store then holds
   * no more than its share of it. Other replicas' calls lower the shared bucket, not this one, so
   * without this a replica would fall back to its share of an older, larger view. Neither a call
   * nor an answer of the upstream: the view's freshness and probes are left as they were.
   */
  followShared(credentialId: string, remaining: number): void;
  /**
   * Every view becomes stale, so each credential's next call is a probe whose answer sets its view
   * again: at a switch from the shared store, what this replica last saw may already be spent by the
   * others' calls in flight.
   */
  forgetFreshness(): void;
}

export function createMemoryBucketStore(options: MemoryBucketStoreOptions): LocalBucketStore {
  const now = options.now ?? Date.now;
  const share = options.share ?? 1;
  const capacity = shareOf(options.budget.capacity, share);
  const localBudget = { capacity, windowMs: options.budget.windowMs };
  const buckets = new LRUCache<string, BucketState>(entryBound(options.maxCredentials ?? 100_000));
  const classes = new Map<string, ClassLog>();

  const bucketAt = (credentialId: string, at: number): BucketState => {
    let state = buckets.get(credentialId);
    if (!state) {
      state = newBucket(capacity, at);
      buckets.set(credentialId, state);
    }
    refillBucket(state, at, options.budget);
    return state;
  };

  const logAt = (key: string, windowMs: number, at: number): ClassLog => {
    let log = classes.get(key);
    if (!log) {
      log = { calls: [], blockedUntil: 0 };
      classes.set(key, log);
    }
    const horizon = at - windowMs;
    let drop = 0;
    while (drop < log.calls.length && (log.calls[drop] ?? 0) <= horizon) drop += 1;
    if (drop > 0) log.calls.splice(0, drop);
    return log;
  };

  /** The class's own log (per credential, or one for everyone). */
  const classLogOf = (credentialId: string, routeClass: RouteClass, at: number): ClassLog =>
    logAt(
      routeClass.perCredential ? `${routeClass.name}:${credentialId}` : routeClass.name,
      routeClass.windowMs,
      at,
    );

  /**
   * Every window a call of this class must find room in, with its limit: the class's, and for a
   * shared class the credential's fair share and — for a credential never answered — the
   * unproven credentials' pool.
   */
  const windowsOf = (
    credentialId: string,
    routeClass: RouteClass,
    state: BucketState,
    at: number,
  ): { log: ClassLog; limit: number }[] => {
    const limit = shareOf(routeClass.limit, share);
    const windows = [{ log: classLogOf(credentialId, routeClass, at), limit }];
    const sub = sharedClassLimits(routeClass, limit);
    if (sub.perCredential > 0) {
      const key = `${routeClass.name}:credential:${credentialId}`;
      windows.push({ log: logAt(key, routeClass.windowMs, at), limit: sub.perCredential });
    }
    if (sub.unproven > 0 && state.freshUntil === 0) {
      const key = `${routeClass.name}:unproven`;
      windows.push({ log: logAt(key, routeClass.windowMs, at), limit: sub.unproven });
    }
    return windows;
  };

  const waitIn = (log: ClassLog, limit: number, windowMs: number, at: number): number => {
    if (log.blockedUntil > at) return log.blockedUntil - at;
    if (log.calls.length < limit) return 0;
    return Math.max(1, (log.calls[0] ?? at) + windowMs - at);
  };

  return {
    async take(credentialId, routeClass) {
      const at = now();
      const state = bucketAt(credentialId, at);
      const windows = routeClass ? windowsOf(credentialId, routeClass, state, at) : [];
      const classWait = Math.max(
        0,
        ...windows.map(({ log, limit }) => waitIn(log, limit, routeClass?.windowMs ?? 0, at)),
      );
      if (state.tokens < 1) {
        return {
          allowed: false,
          waitMs: credentialWaitMs(state, at, options.budget),
          deniedBy: 'credential',
          budget: snapshotOf(state, at, options.budget),
        };
      }
      if (classWait > 0) {
        return {
          allowed: false,
          waitMs: classWait,
          deniedBy: 'route-class',
          budget: snapshotOf(state, at, options.budget),
        };
      }
      const probeWait = probeWaitMs(state, at);
      if (probeWait !== undefined) {
        return {
          allowed: false,
          waitMs: probeWait,
          deniedBy: 'probe',
          budget: snapshotOf(state, at, options.budget),
        };
      }
      state.tokens -= 1;
      for (const { log } of windows) log.calls.push(at);
      return {
        allowed: true,
        waitMs: 0,
        deniedBy: undefined,
        budget: snapshotOf(state, at, options.budget),
      };
    },

    async correct(credentialId, routeClass, correction): Promise<BudgetSnapshot> {
      const at = now();
      const state = bucketAt(credentialId, at);
      correctBucket(state, at, localBudget, {
        ...correction,
        // A share of the upstream's limit and of what it says is left: the other replicas hold
        // the rest (late in a window, a share of the capacity could be more than is left).
        ...(correction.limit === undefined ? {} : { limit: shareOf(correction.limit, share) }),
        ...(correction.remaining === undefined || share >= 1
          ? {}
          : { remaining: Math.floor(correction.remaining * share) }),
      });
      if (correction.unauthenticated && routeClass) {
        // The upstream never counted the call: the class and the credential's share get it back.
        // The unproven tokens' pool does not: it is Weft's own bound on calls for unknown tokens.
        // (windowsOf lists the class's log first, then a shared class's per-credential log.)
        const [classLog, credentialLog] = windowsOf(credentialId, routeClass, state, at);
        classLog?.log.calls.pop();
        credentialLog?.log.calls.pop();
      }
      if (correction.blockMs !== undefined && correction.blockRouteClass && routeClass) {
        const log = classLogOf(credentialId, routeClass, at);
        log.blockedUntil = Math.max(log.blockedUntil, at + correction.blockMs);
      }
      return snapshotOf(state, at, options.budget);
    },

    async release(credentialId) {
      const state = buckets.get(credentialId);
      if (state) state.probeUntil = 0;
    },

    forgetFreshness() {
      for (const state of buckets.values()) {
        // Stale, not unproven: 0 would mean the upstream never answered this credential.
        if (state.freshUntil > 1) state.freshUntil = 1;
        state.probeUntil = 0;
      }
    },

    followShared(credentialId, remaining) {
      const state = bucketAt(credentialId, now());
      state.tokens = Math.min(state.tokens, Math.max(0, Math.floor(remaining * share)));
    },

    async peek(credentialId) {
      const at = now();
      const known = buckets.get(credentialId);
      const state: BucketState = known ? { ...known } : newBucket(capacity, at);
      refillBucket(state, at, options.budget);
      return snapshotOf(state, at, options.budget);
    },
  };
}
