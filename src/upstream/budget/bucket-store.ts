/**
 * Where bucket state lives, as the limiter sees it (`token-bucket.ts`): the budget every
 * credential is configured with, a take and its verdict, what an upstream answer corrects, and the
 * store's interface — in this process's memory (`memory-bucket-store.ts`) or under leases of the
 * buckets replicas share (`leased-bucket-store.ts`).
 */
import type { BudgetSnapshot } from '../budget-tracker.ts';
import type { RouteClass } from '../upstream-routes.ts';
import type { CallPriority } from './call-priority.ts';

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
