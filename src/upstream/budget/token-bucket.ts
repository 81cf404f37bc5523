/**
 * The per-credential token bucket in front of every upstream call (docs/budget.md "Budget"),
 * plus the route-class buckets a route may declare (`upstream-routes.ts`).
 *
 * The credential bucket mirrors the upstream's window ("600 requests per ~1399 s per credential"):
 * - capacity and refill come from config (`UPSTREAM_RATE_LIMIT` per `UPSTREAM_RATE_WINDOW_SEC`);
 * - every upstream response corrects it: `RateLimit-Remaining` lowers the tokens (only lowers: calls
 *   still in flight were already taken), `RateLimit-Limit` lowers the capacity, and
 *   `RateLimit-Reset` pins the window: inside a known window nothing refills, at its end the bucket
 *   is full again. Only a credential never answered refills continuously (capacity per window);
 * - a 429 empties it until the reset it names — at most one window (`windowMs` of
 *   `CredentialBudget`, `bucket-store.ts`): a longer `Retry-After` is honoured for one window, then probed (below);
 * - priorities: a call may not take the part of the window its priority leaves to the ones before
 *   it (`call-priority.ts`: the write reserve and below), nor that part of its route class and of
 *   its fair share of a shared class (`classRoomOf`);
 * - the send window (`send-window.ts`): however fresh the view, at most a few calls the upstream has
 *   not answered yet are in flight per credential; answers widen it, a surprise 429 halves it, and
 *   a stale view (never answered, its window over, or no answer for `STALE_AFTER_MS`, `bucket-state.ts`) lets
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
import type { CallPriority } from './call-priority.ts';
import { clientGone } from '../call-interest.ts';
import type { BucketStore, BudgetCorrection, DeniedBy } from './bucket-store.ts';
import { CALL_LEASE_MS, WINDOW_POLL_MS } from './send-window.ts';
import { createWindowQueue, type WindowPlace } from './window-queue.ts';

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
