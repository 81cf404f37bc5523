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
 * - priorities: a call may not take the part of the window its priority leaves to the ones before
 *   it (`call-priority.ts`: the write reserve and below), nor that part of its route class and of
 *   its fair share of a shared class (`classRoomOf`);
 * - the send window (`send-window.ts`): however fresh the view, at most a few calls the upstream has
 *   not answered yet are in flight per credential; answers widen it, a surprise 429 halves it, and
 *   a stale view (never answered, its window over, or no answer for {@link STALE_AFTER_MS}) lets
 *   one call out: others of the same token may have spent the window behind Weft's back.
 * So the gateway never sends the request that the upstream would answer 429 when it can know, and a
 * bucket shared by several replicas (Redis) never lets them spend more than the window together.
 *
 * A call waits for room that comes before its deadline (and within `UPSTREAM_BUCKET_WAIT_MS`), and
 * is refused at once with RATE_LIMITED and `retryAfterSec` when it would not; the cache may still
 * answer it from a stale value.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import type { BudgetSnapshot, BudgetTracker } from '../budget-tracker.ts';
import type { Credential } from '../credential.ts';
import type { RouteClass } from '../upstream-routes.ts';
import { reserveShareOf, reservedCalls, type CallPriority } from './call-priority.ts';
import { clientGone } from '../call-interest.ts';
import {
  CALL_LEASE_MS,
  INITIAL_SEND_WINDOW,
  WINDOW_POLL_MS,
  answerWindow,
  type SendWindowState,
} from './send-window.ts';
import { createWindowQueue, type WindowPlace } from './window-queue.ts';

/** The configured budget of every credential. */
export interface CredentialBudget {
  readonly capacity: number;
  readonly windowMs: number;
  /** The share of each window kept for writes (`UPSTREAM_WRITE_RESERVE_SHARE`); default none. */
  readonly writeReserveShare?: number;
}

/**
 * What said no: the credential's window, the part of it the call's priority may not take
 * (`reserve`), the route class's limit, the send window (`window`: calls of this credential are
 * in flight that the upstream has not answered yet; wait for their answers), or, with replicas
 * sharing Redis, that the shared budget cannot be reached and nothing of it is held
 * (`shared-budget`).
 */
export type DeniedBy = 'credential' | 'reserve' | 'route-class' | 'window' | 'shared-budget';

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

/** One take: who asks, and the ticket that names the call until it is answered or released. */
export interface TakeRequest {
  readonly priority?: CallPriority;
  /** Unique per call; a store makes one when absent. */
  readonly ticket?: string;
}

export interface TakeVerdict {
  readonly allowed: boolean;
  /** When denied: how long until the denying bucket can give a token. */
  readonly waitMs: number;
  readonly deniedBy: DeniedBy | undefined;
  /** The credential bucket after the take. */
  readonly budget: BudgetSnapshot;
  /** When allowed: the call's ticket, for its answer ({@link BucketStore.correct}) or release. */
  readonly ticket: string | undefined;
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
   * the class gets the call back, so junk tokens hold room only while their calls are in flight;
   * and the credential stays unproven (never answered), whatever the answer's headers say.
   */
  readonly unauthenticated?: boolean;
  /** The ticket of the call this answers: it leaves the send window. */
  readonly ticket?: string;
}

/**
 * Where bucket state lives. Implementations: memory (one process), and the leased store of replicas
 * sharing Redis (`leased-bucket-store.ts`: the memory store under leases of the shared bucket).
 */
export interface BucketStore {
  take(
    credentialId: string,
    routeClass: RouteClass | undefined,
    request?: TakeRequest,
  ): Promise<TakeVerdict>;
  correct(
    credentialId: string,
    routeClass: RouteClass | undefined,
    correction: BudgetCorrection,
  ): Promise<BudgetSnapshot>;
  peek(credentialId: string): Promise<BudgetSnapshot>;
  /**
   * The call with this ticket ended without an answer: it leaves the send window (with the upstream
   * unreachable, the next call costs nothing), the budget stays spent.
   */
  release(credentialId: string, routeClass: RouteClass | undefined, ticket: string): Promise<void>;
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

/** One call asking for room: its priority and when it must have been answered. */
export interface AcquireRequest {
  readonly priority: CallPriority;
  /** The call's deadline (ms, on the limiter's clock): room later than this is no use. */
  readonly deadlineAt?: number;
  /** The attempt's signal: ends any wait. */
  readonly signal?: AbortSignal;
  /**
   * Aborts once nobody waits for the call's answer (`call-interest.ts`): the call leaves its place
   * in line with CLIENT_GONE, refused by no bucket and spending nothing.
   */
  readonly unwanted?: AbortSignal | undefined;
}

/** Room for one call: the budget after the take, and the ticket to hand back with its answer. */
export interface Grant {
  readonly budget: BudgetSnapshot;
  readonly ticket: string;
}

export interface TokenBucketLimiter extends BudgetTracker {
  /**
   * Takes a token from the credential's bucket and from the route class's. A call whose room comes
   * before its deadline (and within `UPSTREAM_BUCKET_WAIT_MS`) waits for it; otherwise it is
   * refused at once with RATE_LIMITED and `retryAfterSec`. Waiting for answers to the credential's
   * calls in flight (the send window) ends at the deadline with UPSTREAM_TIMEOUT: an answer that did
   * not come is what held it up, not the budget.
   */
  acquire(
    credentialId: string,
    routeClass: RouteClass | undefined,
    request: AcquireRequest,
  ): Promise<Grant>;
  /** Feeds an upstream answer back into the buckets; returns the corrected budget. */
  observe(
    credentialId: string,
    routeClass: RouteClass | undefined,
    correction: BudgetCorrection,
  ): Promise<BudgetSnapshot>;
  /** An attempt ended without an answer (see {@link BucketStore.release}). */
  release(credentialId: string, routeClass: RouteClass | undefined, ticket: string): Promise<void>;
}

export interface LimiterOptions {
  readonly store: BucketStore;
  /** The longest a call waits for a token (`UPSTREAM_BUCKET_WAIT_MS`), deadline permitting. */
  readonly maxWaitMs: number;
  readonly now?: () => number;
  /** Sleeps `ms`; `signal` ends the sleep early (the wait is over for another reason). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
  /** Told when a call waits for a token, and when it is refused (metrics). */
  readonly onWait?: (bucket: string, priority: CallPriority) => void;
  readonly onRefuse?: (bucket: string, priority: CallPriority) => void;
}

/** Metrics name of the bucket that said no: the route class's, the reserve, or the credential's. */
function bucketName(deniedBy: DeniedBy | undefined, routeClass: RouteClass | undefined): string {
  if (deniedBy === 'route-class' && routeClass) return routeClass.name;
  if (deniedBy === 'shared-budget') return 'shared';
  return deniedBy === 'reserve' ? 'reserve' : 'credential';
}

/** The error of a call whose deadline passed while it waited for its credential's answers. */
export function answersDidNotCome(): GatewayError {
  return new GatewayError(
    ErrorCode.UPSTREAM_TIMEOUT,
    'The upstream did not answer within the deadline (this call waited for the answers to earlier calls of the same credential, which tell how much budget is left)',
  );
}

/** Resolves when one of `signals` aborts (never without one); `dispose` removes the listeners. */
function abortOf(...signals: (AbortSignal | undefined)[]): {
  aborted: Promise<void>;
  dispose(): void;
} {
  let onAbort = () => undefined as void;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    for (const signal of signals) {
      if (signal?.aborted) resolve();
      else signal?.addEventListener('abort', onAbort, { once: true });
    }
  });
  return {
    aborted,
    dispose: () => {
      for (const signal of signals) signal?.removeEventListener('abort', onAbort);
    },
  };
}

const REFUSALS: Partial<Record<DeniedBy, string>> = {
  credential: "The credential's upstream request budget is used up",
  reserve: "What is left of the credential's upstream request budget is kept for writes",
  'route-class': "The upstream's per-route request rate is used up",
  'shared-budget':
    'The upstream request budget this credential shares with the other replicas cannot be reached (Redis), and this replica holds none of it',
};
const LIMITERS: Partial<Record<DeniedBy, string>> = {
  credential: 'CREDENTIAL',
  reserve: 'RESERVE',
  'route-class': 'ROUTE_CLASS',
  'shared-budget': 'SHARED_BUDGET',
};

/** The error of a call the buckets refused: the same code as an upstream 429. */
export function budgetExhausted(deniedBy: DeniedBy | undefined, waitMs: number): GatewayError {
  const retryAfterSec = Math.max(1, Math.ceil(waitMs / 1000));
  const what = REFUSALS[deniedBy ?? 'credential'] ?? REFUSALS.credential;
  const limiter = LIMITERS[deniedBy ?? 'credential'] ?? 'CREDENTIAL';
  return new GatewayError(ErrorCode.RATE_LIMITED, `${what}; retry in ${retryAfterSec} s`, {
    retryAfterSec,
    limiter,
  });
}

/** Tickets are unique across replicas: a call of a never-answered token is one in a shared class's log. */
const TICKET_PREFIX = `${randomBytes(6).toString('hex')}.`;
let tickets = 0;
export const newTicket = (): string =>
  `${TICKET_PREFIX}${(tickets = (tickets + 1) % Number.MAX_SAFE_INTEGER).toString(36)}`;

/**
 * Sleeps `ms`, or until `signal` aborts. By hand rather than `timers/promises`, whose abort creates
 * an `AbortError` (a stack trace) for every wait another event ended: under load most waits in a
 * send window end that way.
 */
function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Why a wait's own timer is stopped: given, so that no `DOMException` is made for each wait. */
const WAIT_OVER = 'wait over';

export function createTokenBucketLimiter(options: LimiterOptions): TokenBucketLimiter {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepUnless;
  const { store } = options;
  const line = createWindowQueue();

  return {
    async acquire(credentialId, routeClass, { priority, deadlineAt, signal, unwanted }) {
      // Nobody waits for it any more (a retry of a departed client's read): it takes nothing.
      if (unwanted?.aborted) throw clientGone();
      const start = now();
      const giveUpAt = Math.min(start + options.maxWaitMs, deadlineAt ?? Infinity);
      // Waiting for answers is waiting for upstream calls, not for the budget: up to the deadline.
      const answersGiveUpAt = deadlineAt ?? start + options.maxWaitMs + CALL_LEASE_MS;
      const ticket = newTicket();
      /** What ends a wait early, listened to from the first wait on (most calls never wait). */
      let abort: ReturnType<typeof abortOf> | undefined;
      /** This call's place in line for its credential's send window, once it had to wait. */
      let place: WindowPlace | undefined;
      /**
       * Sleeps (or until `early` settles) unless the deadline comes first; then `refusal` is what
       * the caller gets.
       */
      const wait = async (ms: number, refusal: () => GatewayError, early?: Promise<void>) => {
        // Ended with the wait: thousands of calls in line must not leave a timer each behind.
        const timer = new AbortController();
        abort ??= abortOf(signal, unwanted);
        const slept = await Promise.race([
          sleep(ms, timer.signal).then(
            () => !signal?.aborted,
            () => false,
          ),
          abort.aborted.then(() => false),
          ...(early ? [early.then(() => !signal?.aborted)] : []),
        ]);
        timer.abort(WAIT_OVER);
        // Not a refusal: the call leaves the line because nobody waits for it.
        if (unwanted?.aborted) throw clientGone();
        if (!slept) throw refusal();
      };
      try {
        for (;;) {
          const verdict = await store.take(credentialId, routeClass, { priority, ticket });
          if (verdict.allowed) return { budget: verdict.budget, ticket };
          if (verdict.deniedBy === 'window') {
            if (now() + verdict.waitMs > answersGiveUpAt) throw answersDidNotCome();
            place ??= line.join(credentialId);
            const { woken, polls } = place.next();
            // Polling is for what this replica cannot hear of; the rest wait for their turn.
            const pollMs = polls ? Math.min(verdict.waitMs, WINDOW_POLL_MS) : CALL_LEASE_MS;
            await wait(pollMs, answersDidNotCome, woken);
            continue;
          }
          const bucket = bucketName(verdict.deniedBy, routeClass);
          const refuse = () => {
            options.onRefuse?.(bucket, priority);
            return budgetExhausted(verdict.deniedBy, Math.max(1, verdict.waitMs));
          };
          // Waiting only helps when the room comes while the answer is still of use.
          if (now() + verdict.waitMs > giveUpAt) throw refuse();
          options.onWait?.(bucket, priority);
          await wait(verdict.waitMs, refuse);
        }
      } finally {
        abort?.dispose();
        place?.leave();
      }
    },
    async observe(credentialId, routeClass, correction) {
      const corrected = await store.correct(credentialId, routeClass, correction);
      line.answered(credentialId);
      return corrected;
    },
    async release(credentialId, routeClass, ticket) {
      await store.release(credentialId, routeClass, ticket);
      line.answered(credentialId);
    },
    snapshot: (credential: Credential) => store.peek(credential.id),
  };
}
