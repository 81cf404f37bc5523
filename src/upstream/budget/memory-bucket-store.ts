/**
 * Token buckets in this process's memory: the store of a single replica without Redis, and with
 * Redis each replica's own view under its leases (`leased-bucket-store.ts`): its send window and its
 * priorities, corrected by the upstream's answers (`token-bucket.ts`); the route classes are leased.
 */
import { LRUCache } from 'lru-cache';
import { entryBound } from '../entry-bound.ts';
import type { BudgetSnapshot } from '../budget-tracker.ts';
import type { RouteClass } from '../upstream-routes.ts';
import { classRoomOf, type CallPriority } from './call-priority.ts';
import { CALL_LEASE_MS, WINDOW_POLL_MS, currentWindow } from './send-window.ts';
import {
  correctBucket,
  credentialWaitMs,
  fairShareOf,
  floorOf,
  newBucket,
  refillBucket,
  snapshotOf,
  type BucketState,
} from './bucket-state.ts';
import { newTicket } from './token-bucket.ts';
import { type BucketStore, type CredentialBudget, type TakeVerdict } from './bucket-store.ts';

export interface MemoryBucketStoreOptions {
  readonly budget: CredentialBudget;
  readonly now?: () => number;
  /** Credentials remembered at once; the least recently used is forgotten past this. */
  readonly maxCredentials?: number;
}

interface Credential {
  readonly state: BucketState;
  /** The calls in flight (the send window): ticket → end of its lease. */
  readonly inFlight: Map<string, number>;
}

interface ClassLog {
  /** The calls of the last window, oldest first. */
  readonly calls: { at: number; ticket: string }[];
  blockedUntil: number;
  /** Calls in flight for tokens the upstream has never answered: ticket → end of its lease. */
  readonly unproven: Map<string, number>;
}

/** What the leased store needs of a replica's own buckets besides the calls. */
export interface LocalBucketStore extends BucketStore {
  /**
   * A call this store allowed that did not go out after all (a check after this store's said no):
   * its token, its place in the send window and in its class's logs come back.
   */
  refund(credentialId: string, routeClass: RouteClass | undefined, ticket: string): Promise<void>;
  /** Whether the upstream has ever answered this credential (its token is proven). */
  answered(credentialId: string): boolean;
}

/**
 * Drops the leases that ended; returns the end of the earliest one left (Infinity: none). Every lease
 * is as long ({@link CALL_LEASE_MS}) and set when its call is taken, so a map holds them in the order
 * they end: the walk stops at the first one still running instead of visiting every call in flight
 * on every take (at 50 calls in flight, that walk was most of a take). Should the clock step back, a
 * later lease may end first: it goes when the ones before it have, the step later at most.
 */
function expireLeases(leases: Map<string, number>, at: number): number {
  for (const [ticket, until] of leases) {
    if (until > at) return until;
    leases.delete(ticket);
  }
  return Infinity;
}

export function createMemoryBucketStore(options: MemoryBucketStoreOptions): LocalBucketStore {
  const now = options.now ?? Date.now;
  const capacity = options.budget.capacity;
  const localBudget = options.budget;
  const credentials = new LRUCache<string, Credential>(
    entryBound(options.maxCredentials ?? 100_000),
  );
  const classes = new Map<string, ClassLog>();

  const credentialAt = (credentialId: string, at: number): Credential => {
    let entry = credentials.get(credentialId);
    if (!entry) {
      entry = { state: newBucket(capacity, at), inFlight: new Map() };
      credentials.set(credentialId, entry);
    }
    refillBucket(entry.state, at, options.budget);
    return entry;
  };

  const logAt = (key: string, windowMs: number, at: number): ClassLog => {
    let log = classes.get(key);
    if (!log) {
      log = { calls: [], blockedUntil: 0, unproven: new Map() };
      classes.set(key, log);
    }
    const horizon = at - windowMs;
    let drop = 0;
    while (drop < log.calls.length && (log.calls[drop]?.at ?? 0) <= horizon) drop += 1;
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
   * Every window a call of this class must find room in, with the room its priority may use: the
   * class's, and for a shared class the credential's fair share of it.
   */
  const windowsOf = (
    credentialId: string,
    routeClass: RouteClass,
    at: number,
    priority: CallPriority,
  ): { log: ClassLog; limit: number }[] => {
    const { limit } = routeClass;
    const windows = [
      { log: classLogOf(credentialId, routeClass, at), limit: classRoomOf(limit, priority) },
    ];
    const fair = fairShareOf(routeClass, limit);
    if (fair > 0) {
      const key = `${routeClass.name}:credential:${credentialId}`;
      windows.push({
        log: logAt(key, routeClass.windowMs, at),
        limit: classRoomOf(fair, priority),
      });
    }
    return windows;
  };

  /**
   * The wait until a call fits in a class log with room for `limit` calls: until the call that
   * leaves `limit - 1` after it has left the window. A full class that holds calls of unproven
   * tokens still in flight may have room in a moment (a refused token's call is given back): ask
   * again soon rather than wait out the window.
   */
  const waitIn = (log: ClassLog, limit: number, windowMs: number, at: number): number => {
    if (log.blockedUntil > at) return log.blockedUntil - at;
    if (log.calls.length < limit) return 0;
    if (expireLeases(log.unproven, at) < Infinity) return WINDOW_POLL_MS;
    return Math.max(1, (log.calls[log.calls.length - limit]?.at ?? at) + windowMs - at);
  };

  const denied = (
    deniedBy: TakeVerdict['deniedBy'],
    waitMs: number,
    state: BucketState,
    at: number,
  ): TakeVerdict => ({
    allowed: false,
    waitMs,
    deniedBy,
    budget: snapshotOf(state, at, localBudget),
    ticket: undefined,
  });

  const forgetCall = (credentialId: string, routeClass: RouteClass | undefined, ticket: string) => {
    credentials.get(credentialId)?.inFlight.delete(ticket);
    if (routeClass) classLogOf(credentialId, routeClass, now()).unproven.delete(ticket);
  };

  return {
    async take(credentialId, routeClass, request = {}) {
      const at = now();
      const { state, inFlight } = credentialAt(credentialId, at);
      const earliestLease = expireLeases(inFlight, at);
      const priority = request.priority ?? 'write';
      const windows = routeClass ? windowsOf(credentialId, routeClass, at, priority) : [];
      const classWait = Math.max(
        0,
        ...windows.map(({ log, limit }) => waitIn(log, limit, routeClass?.windowMs ?? 0, at)),
      );
      if (state.tokens < 1) {
        return denied('credential', credentialWaitMs(state, at, localBudget), state, at);
      }
      const floor = floorOf(state, localBudget, priority);
      if (state.tokens - floor < 1) {
        return denied('reserve', credentialWaitMs(state, at, localBudget, floor + 1), state, at);
      }
      if (classWait > 0) return denied('route-class', classWait, state, at);
      if (inFlight.size >= currentWindow(state, at < state.freshUntil, at)) {
        return denied(
          'window',
          Math.max(1, Math.min(WINDOW_POLL_MS, earliestLease - at)),
          state,
          at,
        );
      }
      const ticket = request.ticket ?? newTicket();
      state.tokens -= 1;
      inFlight.set(ticket, at + CALL_LEASE_MS);
      for (const { log } of windows) log.calls.push({ at, ticket });
      if (state.freshUntil === 0) windows[0]?.log.unproven.set(ticket, at + CALL_LEASE_MS);
      return {
        allowed: true,
        waitMs: 0,
        deniedBy: undefined,
        budget: snapshotOf(state, at, localBudget),
        ticket,
      };
    },

    async correct(credentialId, routeClass, correction): Promise<BudgetSnapshot> {
      const at = now();
      const { state, inFlight } = credentialAt(credentialId, at);
      const { ticket } = correction;
      const leaseEnd = ticket === undefined ? undefined : inFlight.get(ticket);
      const answered = ticket !== undefined && inFlight.delete(ticket) ? 1 : 0;
      correctBucket(
        state,
        at,
        localBudget,
        correction,
        inFlight.size + answered,
        // The call was taken a lease before its lease's end: its round trip.
        leaseEnd === undefined ? undefined : at - (leaseEnd - CALL_LEASE_MS),
      );
      if (routeClass && ticket !== undefined) {
        classLogOf(credentialId, routeClass, at).unproven.delete(ticket);
        if (correction.unauthenticated) {
          // The upstream never counted the call (a refused token): every log gets it back.
          for (const { log } of windowsOf(credentialId, routeClass, at, 'write')) {
            const index = log.calls.findLastIndex((call) => call.ticket === ticket);
            if (index >= 0) log.calls.splice(index, 1);
          }
        }
      }
      if (correction.blockMs !== undefined && correction.blockRouteClass && routeClass) {
        const log = classLogOf(credentialId, routeClass, at);
        log.blockedUntil = Math.max(log.blockedUntil, at + correction.blockMs);
      }
      return snapshotOf(state, at, localBudget);
    },

    async release(credentialId, routeClass, ticket) {
      forgetCall(credentialId, routeClass, ticket);
    },

    async refund(credentialId, routeClass, ticket) {
      const known = credentials.get(credentialId);
      if (!known?.inFlight.delete(ticket)) return;
      known.state.tokens = Math.min(capacity, known.state.tokens + 1);
      if (!routeClass) return;
      const at = now();
      classLogOf(credentialId, routeClass, at).unproven.delete(ticket);
      for (const { log } of windowsOf(credentialId, routeClass, at, 'write')) {
        const index = log.calls.findLastIndex((call) => call.ticket === ticket);
        if (index >= 0) log.calls.splice(index, 1);
      }
    },

    answered: (credentialId) => (credentials.get(credentialId)?.state.freshUntil ?? 0) !== 0,

    async peek(credentialId) {
      const at = now();
      const known = credentials.get(credentialId);
      const state: BucketState = known ? { ...known.state } : newBucket(capacity, at);
      refillBucket(state, at, options.budget);
      return snapshotOf(state, at, localBudget);
    },
  };
}
