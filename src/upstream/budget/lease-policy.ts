/**
 * Token leases (docs/budget.md "Across replicas: leases"): instead of one Redis script run per
 * upstream call, a replica takes a slice of a credential's shared bucket in one script run, spends
 * it locally, and settles it when the lease is renewed or ends. These are the policy's pure
 * functions — no I/O, no clock, no import — so that the simulation (`scripts/lease-simulation.ts`),
 * the replica's side (`credential-leases.ts`, `leased-bucket-store.ts`) and the Redis script
 * (`redis-leases.ts`, which mirrors the shared side's functions, `lease-grants.ts`) decide the same
 * way. This file holds the configuration and the replica's side: its demand, what it asks for, when
 * it renews, what it may spend.
 *
 * The invariant every function keeps: what the shared bucket has left (`tokens`) plus what every
 * replica holds is never more than what the bucket had. A replica spends only what it holds, and
 * only until its lease ends (by its own clock, started before Redis granted it); so whatever fails
 * — Redis, a cluster master, the network between a replica and Redis — the sum of the replicas'
 * spends never exceeds the bucket. A lease's tokens come back only by its holder's word (what it
 * did not spend), never because its lease ran out: until its holder says so, an ended lease counts
 * as spent.
 */

export interface LeaseConfig {
  /** A lease should last for this many of the replica's calls: one script run per this many calls. */
  readonly callsPerLease: number;
  /** The shortest and the longest lease. */
  readonly minLeaseMs: number;
  readonly maxLeaseMs: number;
  /** A replica renews once what it holds covers fewer than this many Redis round trips of demand. */
  readonly renewAheadRtts: number;
  /** Renewal never waits for less than this (a round trip of a few µs must not renew per call). */
  readonly renewAheadMinMs: number;
  /**
   * Near the write reserve: while what is above it is below this many tokens per holder (the
   * asking replica included), every grant is a single token, so no replica holds what another needs.
   */
  readonly singlesBelowPerHolder: number;
  /** One grant takes at most this share of what is above the reserve (at least one token). */
  readonly maxShareOfFree: number;
  /**
   * How long past its end the shared side still counts a lease among the live holders, and carries
   * it over when its holder renews (the holder's clock started before Redis's; a request may be in
   * flight).
   */
  readonly graceMs: number;
  /** The time constant of a replica's demand: its rate is averaged over about this long. */
  readonly demandTauMs: number;
  /**
   * A lease lasts at most this share of the time what is above the reserve lasts at the bucket's
   * drain (or the holders' reported demand, when higher): spares come back well before the bucket
   * runs dry.
   */
  readonly poolTimeShare: number;
}

export const DEFAULT_LEASE_CONFIG: LeaseConfig = {
  callsPerLease: 8,
  minLeaseMs: 1_000,
  maxLeaseMs: 30_000,
  renewAheadRtts: 4,
  renewAheadMinMs: 20,
  singlesBelowPerHolder: 2,
  maxShareOfFree: 0.5,
  graceMs: 1_000,
  demandTauMs: 10_000,
  poolTimeShare: 0.25,
};

// ---------------------------------------------------------------------------------------------
// The replica's side: its demand, what it asks for, when it renews, what it may spend.

/** A replica's demand for one credential: calls per second, exponentially weighted, as of `at`. */
export interface Demand {
  readonly perSec: number;
  readonly at: number;
}

export const NO_DEMAND: Demand = { perSec: 0, at: 0 };

/** The demand as of `now`, decayed by the silence since it was last updated. */
export function demandAt(demand: Demand, now: number, config = DEFAULT_LEASE_CONFIG): number {
  const silence = Math.max(0, now - demand.at);
  return demand.perSec * Math.exp(-silence / config.demandTauMs);
}

/**
 * The demand after `count` more calls at `now` (each adds 1/τ to the rate; a steady λ → λ). The
 * shared side keeps one too, of the tokens it grants: its drain, every replica's demand together.
 */
export function withCall(
  demand: Demand,
  now: number,
  config = DEFAULT_LEASE_CONFIG,
  count = 1,
): Demand {
  return { perSec: demandAt(demand, now, config) + (1_000 * count) / config.demandTauMs, at: now };
}

/** What a replica knows when it asks for a lease of one credential. */
export interface ReplicaView {
  /** Its demand now, calls per second ({@link demandAt}). */
  readonly demandPerSec: number;
  /** Its smoothed Redis round trip, ms. */
  readonly redisRttMs: number;
  /** Tokens it holds and has not spent. */
  readonly held: number;
  /** Calls waiting for a token now (each needs one at once). */
  readonly waiting: number;
}

export interface LeaseAsk {
  /** Tokens asked for, at least one. */
  readonly ask: number;
  /** How long the lease should last. */
  readonly durationMs: number;
}

/**
 * How long a lease lasts: long enough for {@link LeaseConfig.callsPerLease} of the replica's calls,
 * within the bounds (a replica that barely calls gets the longest lease, and asks for one token).
 */
export function leaseDurationOf(demandPerSec: number, config = DEFAULT_LEASE_CONFIG): number {
  if (demandPerSec <= 0) return config.maxLeaseMs;
  const forCalls = (config.callsPerLease / demandPerSec) * 1_000;
  return Math.min(config.maxLeaseMs, Math.max(config.minLeaseMs, forCalls));
}

/**
 * The tokens a lease of `durationMs` should hold: the calls waiting, plus the calls expected in it
 * (whole ones: a replica that expects less than one call within the lease holds no spare) less
 * what is held.
 */
export const tokensForLease = (
  demandPerSec: number,
  durationMs: number,
  held: number,
  waiting: number,
): number => waiting + Math.max(0, Math.floor((demandPerSec * durationMs) / 1_000) - held);

/** What to ask for: {@link tokensForLease} of the lease its demand calls for, at least one. */
export function leaseAskOf(view: ReplicaView, config = DEFAULT_LEASE_CONFIG): LeaseAsk {
  const durationMs = leaseDurationOf(view.demandPerSec, config);
  const ask = Math.max(1, tokensForLease(view.demandPerSec, durationMs, view.held, view.waiting));
  return { ask, durationMs };
}

/** How long before it runs dry a replica renews: a few of its Redis round trips. */
export const renewAheadMsOf = (redisRttMs: number, config = DEFAULT_LEASE_CONFIG): number =>
  Math.max(config.renewAheadMinMs, config.renewAheadRtts * redisRttMs);

/**
 * Whether to renew now (one script run, in the background: no call waits for it): what is held
 * would run out within {@link renewAheadMsOf}, or the lease ends within it while there is demand.
 */
export function shouldRenew(
  view: ReplicaView,
  leaseEndsAt: number,
  now: number,
  config = DEFAULT_LEASE_CONFIG,
): boolean {
  if (view.demandPerSec <= 0) return false;
  const aheadMs = renewAheadMsOf(view.redisRttMs, config);
  const callsAhead = (view.demandPerSec * aheadMs) / 1_000;
  return view.held < 1 + callsAhead || now >= leaseEndsAt - aheadMs;
}

/**
 * Shortly before a lease ends with tokens left (decided {@link renewAheadMsOf} before its end):
 * - `renew` while the replica expects at least half a lease's calls in the next longest lease:
 *   what it holds is carried over, the lease extended and topped up (one script run);
 * - `give-back` when it holds more than one token: others may need them (one script run);
 * - `lapse` for a single token while the bucket is plentiful (`Lease`, `lease-grants.ts`): no script run; the
 *   lease ends, and the token is given back with the replica's next run for the credential, if it
 *   comes in the same window — a quiet credential costs no run at all between its calls.
 */
export function atLeaseEnd(
  demandPerSec: number,
  unspent: number,
  plentiful: boolean,
  config = DEFAULT_LEASE_CONFIG,
): 'renew' | 'give-back' | 'lapse' {
  if ((demandPerSec * config.maxLeaseMs) / 1_000 >= config.callsPerLease / 2) return 'renew';
  return unspent > 1 || !plentiful ? 'give-back' : 'lapse';
}

/** What a replica holds of one credential. */
export interface HeldLease {
  readonly held: number;
  /** The lease's end on the replica's clock (counted from when it sent the request: early). */
  readonly endsAt: number;
  /** What the shared bucket had left (not leased) after the last grant. */
  readonly sharedLeft: number;
}

/**
 * Whether a call whose priority must leave `floor` tokens of the window (its reserve: 0 for a
 * write, the write reserve for a read, more for background and explorer calls) may spend a held
 * token. The shared bucket's left plus what this replica holds is at most what remains (others
 * hold some too): a low priority stops early, never late. Redis unreachable changes nothing here —
 * a replica spends what it holds, within its lease, and nothing more.
 */
export function maySpend(lease: HeldLease, now: number, floor: number): boolean {
  return lease.held >= 1 && now < lease.endsAt && lease.sharedLeft + lease.held - 1 >= floor;
}

/**
 * An upstream answer on this replica: it cannot succeed more often than `RateLimit-Remaining`
 * allows, less its own calls still in flight, so it holds no more than that.
 */
export function heldAfterAnswer(held: number, remaining: number, inFlight: number): number {
  return Math.max(0, Math.min(held, remaining - inFlight));
}
