/**
 * The per-credential token bucket in front of every upstream call (docs/efficiency.md "Budget"),
 * plus the route-class buckets a route may declare (`upstream-routes.ts`).
 *
 * The credential bucket mirrors the upstream's window ("600 requests per ~1399 s per credential"):
 * - capacity and refill come from config (`UPSTREAM_RATE_LIMIT` per `UPSTREAM_RATE_WINDOW_SEC`);
 * - every upstream response corrects it: `RateLimit-Remaining` lowers the tokens (only lowers: calls
 *   still in flight were already taken), `RateLimit-Limit` lowers the capacity, and
 *   `RateLimit-Reset` pins the window: inside a known window nothing refills, at its end the bucket
 *   is full again. Only a credential never answered refills continuously (capacity per window);
 * - a 429 empties it until the reset it names — at most one window ({@link CredentialBudget}
 *   `windowMs`): a longer `Retry-After` is honoured for one window, then probed (below);
 * - slow start: while the view of a credential is stale — never answered, its known window over, or
 *   no answer for {@link STALE_AFTER_MS} — other clients of the same token may have spent the
 *   window, so ONE call goes out (the probe) and the others wait for its answer, whose
 *   `RateLimit-Remaining` then bounds them. A probe that never answers is replaced after
 *   {@link PROBE_LEASE_MS}; one that fails without an answer (connection refused or cut, timeout)
 *   ends its lease at once ({@link BucketStore.release}), so the calls waiting for it go on to the
 *   upstream (and fail for what it is) instead of waiting out the lease and being refused as if
 *   the budget were spent.
 * So the gateway never sends the request that the upstream would answer 429, and a bucket shared by
 * several replicas (Redis) never lets them spend more than the window together.
 *
 * When a bucket is empty a call waits up to `UPSTREAM_BUCKET_WAIT_MS` for a token, then fails with
 * RATE_LIMITED and `retryAfterSec`; the cache may still answer it from a stale value.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import type { BudgetSnapshot, BudgetTracker } from './budget-tracker.ts';
import type { Credential } from './credential.ts';
import type { RouteClass } from './upstream-routes.ts';

/** The configured budget of every credential. */
export interface CredentialBudget {
  readonly capacity: number;
  readonly windowMs: number;
}

/** `probe`: the credential's view is stale and its probe is in flight (wait for its answer). */
export type DeniedBy = 'credential' | 'route-class' | 'probe';

/** Without an answer for this long, a credential's view is stale (another client may spend it). */
export const STALE_AFTER_MS = 60_000;
/** How long the other calls of a stale credential wait for its probe's answer, at most. */
export const PROBE_LEASE_MS = 5_000;
/** How often a call waiting for a probe asks again. */
export const PROBE_POLL_MS = 10;

/**
 * Fair sharing of a route class the whole gateway shares (the upstream's per-IP limits): one
 * credential takes at most the class's limit less this share of it, so however hard one tenant
 * bursts, the others always find room (hosting reads: 96 of 120 a minute for one tenant, 24 kept;
 * source uploads and deploys: 8 of 10, 2 kept)…
 */
export const RESERVED_SHARE_OF_SHARED_CLASS = 0.2;
/**
 * …and credentials the upstream has never answered (a new token, or junk) take together at most
 * this share, so a flood of junk tokens cannot use up the class before their 401s come back.
 */
export const UNPROVEN_SHARE_OF_SHARED_CLASS = 0.25;

/** The sub-limits of a shared class (0 for a per-credential class: none). */
export function sharedClassLimits(routeClass: RouteClass, limit: number) {
  if (routeClass.perCredential) return { perCredential: 0, unproven: 0 };
  return {
    perCredential: Math.max(1, limit - Math.ceil(limit * RESERVED_SHARE_OF_SHARED_CLASS)),
    unproven: Math.max(1, Math.ceil(limit * UNPROVEN_SHARE_OF_SHARED_CLASS)),
  };
}

export interface TakeVerdict {
  readonly allowed: boolean;
  /** When denied: how long until the denying bucket can give a token. */
  readonly waitMs: number;
  readonly deniedBy: DeniedBy | undefined;
  /** The credential bucket after the take. */
  readonly budget: BudgetSnapshot;
}

/** What an upstream answer says about the budgets. */
export interface BudgetCorrection {
  /** `RateLimit-Limit`. */
  readonly limit?: number;
  /** `RateLimit-Remaining`. */
  readonly remaining?: number;
  /** `RateLimit-Reset`, in ms from now. */
  readonly resetMs?: number;
  /** A 429: nothing more until this many ms from now. */
  readonly blockMs?: number;
  /** The 429 came from the route class's limit, not the credential's window. */
  readonly blockRouteClass?: boolean;
  /**
   * The upstream refused the token (401) before counting the call against the route class's limit:
   * the class gets its call back, so junk tokens hold room only while their calls are in flight;
   * and the credential stays unproven (never answered), whatever the answer's headers say.
   */
  readonly unauthenticated?: boolean;
  /**
   * The budget the take before this answer reported already agrees with it (limit and remaining no
   * higher, window end no earlier): a shared store may skip its round trip. Local stores apply it.
   */
  readonly redundant?: boolean;
}

/**
 * Where bucket state lives. Implementations: memory (one process) and Redis (one atomic Lua script
 * per operation, on Redis `TIME`), and the fallback that picks between them.
 */
export interface BucketStore {
  take(credentialId: string, routeClass: RouteClass | undefined): Promise<TakeVerdict>;
  correct(
    credentialId: string,
    routeClass: RouteClass | undefined,
    correction: BudgetCorrection,
  ): Promise<BudgetSnapshot>;
  peek(credentialId: string): Promise<BudgetSnapshot>;
  /**
   * An attempt of this credential ended without an answer: the probe lease ends (whichever call
   * held it — with the upstream unreachable, another probe costs nothing), the budget stays spent.
   */
  release(credentialId: string): Promise<void>;
}

/** The state of one credential bucket (the same fields the Lua script keeps in a Redis hash). */
export interface BucketState {
  tokens: number;
  /** Last update, ms. */
  ts: number;
  /** End of the upstream window we know of, ms; 0 = unknown (refill continuously). */
  resetAt: number;
  cap: number;
  /** Until when the view is fresh (an answer came), ms; before any answer 0 (stale). */
  freshUntil: number;
  /** While a stale credential's probe is in flight, ms; 0 = none. */
  probeUntil: number;
}

/** A bucket no answer has corrected yet. */
export const newBucket = (capacity: number, now: number): BucketState => ({
  tokens: capacity,
  ts: now,
  resetAt: 0,
  cap: capacity,
  freshUntil: 0,
  probeUntil: 0,
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

/** Applies an upstream answer to a bucket already brought to `now` (see {@link refillBucket}). */
export function correctBucket(
  state: BucketState,
  now: number,
  budget: CredentialBudget,
  correction: BudgetCorrection,
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
  if (correction.blockMs !== undefined && !correction.blockRouteClass) {
    state.tokens = 0;
    // At most one window: a longer Retry-After is honoured that long, then probed.
    state.resetAt = now + Math.min(Math.max(1, correction.blockMs), budget.windowMs);
  }
  // An answer came: the view is fresh until its window ends or for a while, and no probe is due
  // (a refused token's answer proves nothing about a window of its own: it stays unproven).
  if (!correction.unauthenticated) {
    const freshFor =
      state.resetAt > 0 ? Math.min(state.resetAt - now, STALE_AFTER_MS) : STALE_AFTER_MS;
    state.freshUntil = now + freshFor;
  }
  state.probeUntil = 0;
}

/**
 * Slow start: undefined when a call may go as far as the view is concerned; otherwise the wait for
 * the probe in flight. A stale view with no probe in flight makes this call the probe.
 */
export function probeWaitMs(state: BucketState, now: number): number | undefined {
  if (now < state.freshUntil) return undefined;
  if (state.probeUntil > now) return Math.min(PROBE_POLL_MS, state.probeUntil - now);
  state.probeUntil = now + PROBE_LEASE_MS;
  return undefined;
}

export function snapshotOf(
  state: BucketState,
  now: number,
  budget: CredentialBudget,
): BudgetSnapshot {
  const resetMs =
    state.resetAt > 0
      ? state.resetAt - now
      : ((state.cap - state.tokens) * budget.windowMs) / Math.max(1, state.cap);
  return {
    limit: state.cap,
    remaining: Math.max(0, Math.floor(state.tokens)),
    resetSec: Math.max(0, Math.ceil(resetMs / 1000)),
  };
}

/** The wait a denied credential bucket asks for. */
export function credentialWaitMs(
  state: BucketState,
  now: number,
  budget: CredentialBudget,
): number {
  if (state.resetAt > 0) return Math.max(1, state.resetAt - now);
  return Math.max(1, Math.ceil(((1 - state.tokens) * budget.windowMs) / Math.max(1, state.cap)));
}

/** A share of a limit, never below one call (a replica on its own must still make progress). */
export const shareOf = (limit: number, share: number): number =>
  Math.max(1, Math.floor(limit * share));

export interface TokenBucketLimiter extends BudgetTracker {
  /**
   * Takes a token from the credential's bucket and from the route class's, waiting up to the
   * configured time; throws RATE_LIMITED (with `retryAfterSec`) when that is not enough. `signal`
   * (the attempt's deadline) ends any wait: waiting for another call's probe then fails with
   * UPSTREAM_TIMEOUT (that probe's answer is what did not come), waiting for a token with
   * RATE_LIMITED.
   */
  acquire(
    credentialId: string,
    routeClass: RouteClass | undefined,
    signal?: AbortSignal,
  ): Promise<BudgetSnapshot>;
  /** Feeds an upstream answer back into the buckets; returns the corrected budget. */
  observe(
    credentialId: string,
    routeClass: RouteClass | undefined,
    correction: BudgetCorrection,
  ): Promise<BudgetSnapshot>;
  /** An attempt ended without an answer (see {@link BucketStore.release}). */
  release(credentialId: string): Promise<void>;
}

export interface LimiterOptions {
  readonly store: BucketStore;
  /** How long a call may wait for a token (`UPSTREAM_BUCKET_WAIT_MS`). */
  readonly maxWaitMs: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<unknown>;
  /** Told when a call waits for a token, and when it is refused (metrics). */
  readonly onWait?: (bucket: string) => void;
  readonly onRefuse?: (bucket: string) => void;
}

/** Metrics name of the bucket that said no: the route class's, or the credential's. */
const bucketName = (deniedBy: DeniedBy | undefined, routeClass: RouteClass | undefined): string =>
  deniedBy === 'route-class' && routeClass ? routeClass.name : 'credential';

/** The error of a call whose deadline passed while it waited for its credential's probe. */
export function probeUnanswered(): GatewayError {
  return new GatewayError(
    ErrorCode.UPSTREAM_TIMEOUT,
    'The upstream did not answer within the deadline (this call waited for the answer to an earlier call of the same credential, which tells how much budget is left)',
  );
}

/** Resolves when `signal` aborts (never without one); `dispose` removes the listener. */
function abortOf(signal: AbortSignal | undefined): { aborted: Promise<void>; dispose(): void } {
  if (!signal) return { aborted: new Promise<void>(() => undefined), dispose: () => undefined };
  let onAbort = () => undefined as void;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { aborted, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** The error of a call the buckets refused: the same code as an upstream 429. */
export function budgetExhausted(deniedBy: DeniedBy | undefined, waitMs: number): GatewayError {
  const retryAfterSec = Math.max(1, Math.ceil(waitMs / 1000));
  const what =
    deniedBy === 'route-class'
      ? "The upstream's per-route request rate is used up"
      : "The credential's upstream request budget is used up";
  return new GatewayError(ErrorCode.RATE_LIMITED, `${what}; retry in ${retryAfterSec} s`, {
    retryAfterSec,
    limiter: deniedBy === 'route-class' ? 'ROUTE_CLASS' : 'CREDENTIAL',
  });
}

export function createTokenBucketLimiter(options: LimiterOptions): TokenBucketLimiter {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const { store } = options;
  return {
    async acquire(credentialId, routeClass, signal) {
      const giveUpAt = now() + options.maxWaitMs;
      // Waiting for a probe's answer is waiting for one upstream call, not for the budget.
      const probeGiveUpAt = giveUpAt + PROBE_LEASE_MS;
      const abort = abortOf(signal);
      /** Sleeps unless the deadline comes first; then `refusal` is what the caller gets. */
      const wait = async (ms: number, refusal: () => GatewayError) => {
        const slept = await Promise.race([
          sleep(ms).then(() => !signal?.aborted),
          abort.aborted.then(() => false),
        ]);
        if (!slept) throw refusal();
      };
      try {
        for (;;) {
          const verdict = await store.take(credentialId, routeClass);
          if (verdict.allowed) return verdict.budget;
          if (verdict.deniedBy === 'probe') {
            // Not the budget: an answer that did not come (or not in time) is what held it up.
            if (now() + verdict.waitMs > probeGiveUpAt) throw probeUnanswered();
            await wait(verdict.waitMs, probeUnanswered);
            continue;
          }
          // Waiting only helps when a token comes back within the allowed wait.
          const bucket = bucketName(verdict.deniedBy, routeClass);
          const refuse = () => {
            options.onRefuse?.(bucket);
            return budgetExhausted(verdict.deniedBy, verdict.waitMs);
          };
          if (now() + verdict.waitMs > giveUpAt) throw refuse();
          options.onWait?.(bucket);
          await wait(verdict.waitMs, refuse);
        }
      } finally {
        abort.dispose();
      }
    },
    observe: (credentialId, routeClass, correction) =>
      store.correct(credentialId, routeClass, correction),
    release: (credentialId) => store.release(credentialId),
    snapshot: (credential: Credential) => store.peek(credential.id),
  };
}
