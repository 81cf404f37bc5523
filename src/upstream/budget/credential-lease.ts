/**
 * One credential's lease on this replica (`credential-leases.ts` keeps one per credential and runs
 * the script for it): what it holds and until when, what it has to tell the shared bucket, and the
 * steps that change it without Redis — a lease that ends, a token given back, a script's reply
 * applied, and whether it is idle enough to forget.
 */
import { DEFAULT_LEASE_CONFIG, NO_DEMAND, demandAt, type Demand } from './lease-policy.ts';
import type { LeaseReply, ReportedAnswer } from './redis-leases.ts';

/** A run's reply, and whether it asked for calls waiting (a renewal ahead of need does not). */
export interface RunOutcome {
  readonly reply: LeaseReply;
  readonly forWaiting: boolean;
}

/** One credential's lease on this replica, and what it has to tell the shared bucket. */
export interface CredentialLease {
  /** Tokens held and not spent, of the lease that ends at `endsAt` (this replica's clock). */
  held: number;
  endsAt: number;
  /** Tokens of an ended lease not settled yet (given back with the next run). */
  unsettled: number;
  /** Tokens spent out of what a run took back while it was on its way (reported with the next). */
  debt: number;
  /** What the shared bucket had left after the last run, its capacity, and when its window ends. */
  sharedLeft: number;
  /** When a token above the last asker's floor is free in the shared bucket. */
  freeAt: number;
  cap: number;
  resetAt: number;
  othersHeld: number;
  /** What Redis records this replica holds (its grant at the last run; spent calls are in it). */
  recorded: number;
  /** Its last grant was the stale view's probe: the probe's answer is reported at once. */
  probe: boolean;
  /** Its probe ended without confirming the view (a 401, no answer): reported with the next run. */
  probeEnded: boolean;
  demand: Demand;
  /** Calls waiting for this credential's run now. */
  waiting: number;
  inFlight: number;
  /** The latest upstream answer not reported yet. */
  answer: ReportedAnswer | undefined;
  /** When this replica last asked the others to give back what they hold. */
  recalledAt: number;
  /** When the answer's reset and block end, on this replica's clock. */
  answerResetAt: number | undefined;
  answerBlockUntil: number | undefined;
  /**
   * Of the latest answer's outstanding tokens, those held (not in flight) when it came: a run on
   * its way then may give them back to the shared bucket, which then counts them itself.
   */
  answerHeld: number;
  running: Promise<RunOutcome> | undefined;
}

/** A credential's lease before any run: the bucket is assumed full. */
export function newCredentialLease(capacity: number): CredentialLease {
  return {
    held: 0,
    endsAt: 0,
    unsettled: 0,
    debt: 0,
    sharedLeft: capacity,
    freeAt: 0,
    cap: capacity,
    resetAt: 0,
    othersHeld: 0,
    recorded: 0,
    probe: false,
    probeEnded: false,
    demand: NO_DEMAND,
    waiting: 0,
    inFlight: 0,
    answer: undefined,
    recalledAt: 0,
    answerResetAt: undefined,
    answerBlockUntil: undefined,
    answerHeld: 0,
    running: undefined,
  };
}

/** A lease that ended keeps its tokens aside, to be settled, never spent. */
export function endIfOver(entry: CredentialLease, at: number): void {
  if (entry.held > 0 && at >= entry.endsAt) {
    entry.unsettled += entry.held;
    entry.held = 0;
  }
}

/** A token taken for a call that did not go out: it pays a debt first, else it is held again. */
export function unspend(entry: CredentialLease): void {
  if (entry.debt > 0) entry.debt -= 1;
  else entry.held += 1;
}

/** Whether the lease holds nothing and has nothing to tell (then it is forgotten). */
export function isIdle(entry: CredentialLease, at: number, config = DEFAULT_LEASE_CONFIG): boolean {
  return (
    entry.held === 0 &&
    entry.unsettled === 0 &&
    entry.debt === 0 &&
    entry.inFlight === 0 &&
    entry.waiting === 0 &&
    entry.answer === undefined &&
    entry.running === undefined &&
    // A record Redis still counts as held is this entry's to clear when recalled.
    (entry.recorded === 0 || at > entry.endsAt + config.graceMs) &&
    demandAt(entry.demand, at, config) < 0.01
  );
}

/** Applies a run's reply; returns the debt it added (tokens spent out of what went back). */
export function applyReply(
  entry: CredentialLease,
  reply: LeaseReply,
  sentAt: number,
  reportedLive: number,
  at: number,
): number {
  // Calls spent out of the reported tokens while the run was on its way.
  const spentMeanwhile = Math.max(0, reportedLive - entry.held);
  const kept = reply.carried + reply.grant - spentMeanwhile;
  entry.held = Math.max(0, kept);
  const debt = Math.max(0, -kept);
  entry.debt += debt;
  entry.endsAt = sentAt + reply.durationMs;
  entry.sharedLeft = reply.sharedLeft;
  entry.cap = reply.cap;
  entry.resetAt = at + reply.resetMs;
  entry.freeAt = at + reply.waitMs;
  entry.othersHeld = reply.othersHeld;
  entry.recorded = reply.carried + reply.grant;
  if (reply.grant > 0) entry.probe = !reply.fresh;
  return debt;
}
