/**
 * One credential bucket's arithmetic (docs/budget.md "Budget"), the same in every store and in
 * the lease script: a bucket no answer has corrected, its refill, what an upstream answer changes,
 * the part of a window a priority leaves to the ones before it, what it tells the client, and how
 * long until it has room; and a credential's fair share of a route class the gateway shares.
 */
import type { BudgetSnapshot } from '../budget-tracker.ts';
import type { RouteClass } from '../upstream-routes.ts';
import type { BudgetCorrection, CredentialBudget } from './bucket-store.ts';
import { reserveShareOf, reservedCalls, type CallPriority } from './call-priority.ts';
import { INITIAL_SEND_WINDOW, answerWindow, type SendWindowState } from './send-window.ts';

/** Without an answer for this long, a credential's view is stale (another client may spend it). */
export const STALE_AFTER_MS = 60_000;

/**
 * Fair sharing of a route class the whole gateway shares (the upstream's per-IP limits): one
 * credential takes at most the class's limit less this share of it, so however hard one tenant
 * bursts, the others always find room (hosting reads: 96 of 120 a minute for one tenant, 24 kept;
 * source uploads and deploys: 8 of 10, 2 kept). Tokens the upstream has never answered are bounded
 * by their calls in flight per client address instead (`unproven-gate.ts`).
 */
export const RESERVED_SHARE_OF_SHARED_CLASS = 0.2;

/** A credential's own limit in a shared class (0 for a per-credential class: none). */
export function fairShareOf(routeClass: RouteClass, limit: number): number {
  if (routeClass.perCredential) return 0;
  return Math.max(1, limit - Math.ceil(limit * RESERVED_SHARE_OF_SHARED_CLASS));
}

/** The state of one credential bucket (in memory: a replica's own view, with Redis too). */
export interface BucketState extends SendWindowState {
  tokens: number;
  /** Last update, ms. */
  ts: number;
  /** End of the upstream window we know of, ms; 0 = unknown (refill continuously). */
  resetAt: number;
  cap: number;
  /** Until when the view is fresh (an answer came), ms; before any answer 0 (unproven). */
  freshUntil: number;
}

/** A bucket no answer has corrected yet. */
export const newBucket = (capacity: number, now: number): BucketState => ({
  tokens: capacity,
  ts: now,
  resetAt: 0,
  cap: capacity,
  freshUntil: 0,
  window: INITIAL_SEND_WINDOW,
  lastAnswerAt: 0,
  rttMs: 0,
});

/** Brings a bucket to `now`: the window's end refills it, an unknown window refills continuously. */
export function refillBucket(state: BucketState, now: number, budget: CredentialBudget): void {
  if (state.resetAt > 0) {
    if (now >= state.resetAt) {
      state.tokens = state.cap;
      state.resetAt = 0;
    }
  } else if (now > state.ts) {
    state.tokens = Math.min(
      state.cap,
      state.tokens + ((now - state.ts) * state.cap) / budget.windowMs,
    );
  }
  state.ts = Math.max(state.ts, now);
}

/**
 * Applies an upstream answer to a bucket already brought to `now` (see {@link refillBucket});
 * `inFlight` is how many of the credential's calls were unanswered, this one included, and
 * `rttMs` how long ago this one was sent (unknown for a call no longer in the window).
 */
export function correctBucket(
  state: BucketState,
  now: number,
  budget: CredentialBudget,
  correction: BudgetCorrection,
  inFlight: number,
  rttMs?: number,
): void {
  const capacity = budget.capacity;
  if (correction.limit !== undefined && correction.limit >= 1) {
    state.cap = Math.min(capacity, correction.limit);
    state.tokens = Math.min(state.tokens, state.cap);
  }
  if (correction.remaining !== undefined && correction.remaining < state.tokens) {
    state.tokens = Math.max(0, correction.remaining);
  }
  if (correction.resetMs !== undefined) state.resetAt = now + Math.max(0, correction.resetMs);
  const windowSpent = correction.blockMs !== undefined && !correction.blockRouteClass;
  if (windowSpent) {
    state.tokens = 0;
    // At most one window: a longer Retry-After is honoured that long, then probed.
    state.resetAt = now + Math.min(Math.max(1, correction.blockMs ?? 1), budget.windowMs);
  }
  // A refused token's answer proves nothing about a window of its own: it stays unproven, and its
  // send window neither widens nor shrinks.
  if (correction.unauthenticated) return;
  const freshFor =
    state.resetAt > 0 ? Math.min(state.resetAt - now, STALE_AFTER_MS) : STALE_AFTER_MS;
  state.freshUntil = now + freshFor;
  answerWindow(state, now, inFlight, windowSpent, rttMs);
}

/** The calls of `state`'s window a call of this priority leaves to the ones before it. */
export const floorOf = (state: { cap: number }, budget: CredentialBudget, priority: CallPriority) =>
  reservedCalls(state.cap, reserveShareOf(priority, budget.writeReserveShare ?? 0));

/**
 * `resetSec` while no upstream answer has said when the window ends. A bucket with calls spent
 * refills in (cap − tokens) × window / cap. A full one has no window running: the next call starts
 * one, which ends a whole window later — the figure a client can plan with, where 0 would read as
 * "resets now" (docs/clients.md "The budget"). The lease script says the same.
 */
const unknownWindowResetMs = (state: BucketState, budget: CredentialBudget): number =>
  state.tokens >= state.cap
    ? budget.windowMs
    : ((state.cap - state.tokens) * budget.windowMs) / Math.max(1, state.cap);

export function snapshotOf(
  state: BucketState,
  now: number,
  budget: CredentialBudget,
): BudgetSnapshot {
  const resetMs = state.resetAt > 0 ? state.resetAt - now : unknownWindowResetMs(state, budget);
  return {
    limit: state.cap,
    remaining: Math.max(0, Math.floor(state.tokens)),
    resetSec: Math.max(0, Math.ceil(resetMs / 1000)),
    writeReserve: floorOf(state, budget, 'read'),
  };
}

/** The wait until the bucket holds `need` tokens (1, or the priority's floor and one more). */
export function credentialWaitMs(
  state: BucketState,
  now: number,
  budget: CredentialBudget,
  need = 1,
): number {
  if (state.resetAt > 0) return Math.max(1, state.resetAt - now);
  return Math.max(1, Math.ceil(((need - state.tokens) * budget.windowMs) / Math.max(1, state.cap)));
}
