/**
 * Token leases (docs/efficiency.md "Leases"): instead of one Redis script run per upstream call, a
 * replica takes a slice of a credential's shared bucket in one script run, spends it locally, and
 * settles it when the lease is renewed or ends. These are the policy's pure functions — no I/O, no
 * clock, no import — so that the simulation (`scripts/lease-simulation.ts`), the replica's side
 * (`credential-leases.ts`, `leased-bucket-store.ts`) and the Redis script (`redis-leases.ts`, which
 * mirrors {@link leaseOf}, {@link grantOf}, {@link settledTokens} and {@link correctedShared})
 * decide the same way.
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
 * - `lapse` for a single token while the bucket is plentiful ({@link Lease}): no script run; the
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

// ---------------------------------------------------------------------------------------------
// The shared side (the Redis script): grants, settlements, corrections.

/** Another replica's live lease of the credential ({@link isLive}), as the shared bucket records it. */
export interface Holder {
  /** Tokens it was granted and has not reported spent. */
  readonly held: number;
  /** Its demand as it last reported it. */
  readonly demandPerSec: number;
}

/** The shared bucket of one credential, as the script sees it when a replica asks. */
export interface SharedView {
  /** Tokens left and not leased. */
  readonly tokens: number;
  /** The write reserve: what reads leave (writes take single tokens from it). */
  readonly writeReserve: number;
  /**
   * Whether an upstream answer has confirmed the view lately (token-bucket.ts: fresh). A stale
   * view grants one token, the probe whose answer says what is left.
   */
  readonly fresh: boolean;
  /** The other replicas' live leases (ended ones, past their grace, are not here). */
  readonly others: readonly Holder[];
  /**
   * The tokens granted per second lately, by every replica ({@link withCall} of each grant): how
   * fast the bucket drains, whether or not the replicas that drain it hold a lease now.
   */
  readonly drainPerSec?: number;
}

/** One replica's request, as the script receives it. */
export interface GrantRequest {
  readonly ask: number;
  readonly demandPerSec: number;
  /** What the asker still holds (it reports it; its record is replaced by held + grant). */
  readonly held: number;
  /** The tokens the asking call's priority must leave (0 for a write, the reserve for a read …). */
  readonly floor: number;
  /** Calls waiting at the asker for a token now (0: a renewal ahead of need). */
  readonly waiting: number;
}

/**
 * The grant: the fewest of what was asked, what is above the asker's floor, at most
 * {@link LeaseConfig.maxShareOfFree} of it, its demand over the longest lease, and its fair share —
 * what is above the reserve (held leases included) in proportion to the demand each holder
 * reported, less what it holds.
 * Near the reserve (or on a stale view) a grant is one token, and only for a call waiting for it:
 * no replica holds a spare token there. A replica that holds nothing and has a call waiting always
 * gets one while one is free, so a small demand is served like a call of today's design.
 */
export function grantOf(
  shared: SharedView,
  request: GrantRequest,
  config = DEFAULT_LEASE_CONFIG,
): number {
  const free = Math.floor(shared.tokens - request.floor);
  if (free < 1 || request.ask < 1) return 0;
  const single = request.waiting >= 1 ? 1 : 0;
  if (!shared.fresh) return single;
  const aboveReserve = Math.max(0, Math.floor(shared.tokens - shared.writeReserve));
  const holders = shared.others.length + 1;
  if (aboveReserve <= config.singlesBelowPerHolder * holders) return single;
  const othersHeld = shared.others.reduce((sum, holder) => sum + holder.held, 0);
  const othersDemand = shared.others.reduce((sum, holder) => sum + holder.demandPerSec, 0);
  const totalDemand = othersDemand + request.demandPerSec;
  const pool = aboveReserve + othersHeld + request.held;
  const share = totalDemand > 0 ? request.demandPerSec / totalDemand : 1 / holders;
  const fair = Math.floor(pool * share) - request.held;
  const slice = Math.max(1, Math.floor(free * config.maxShareOfFree));
  // Whoever asks first must not take what the others' demand, not reported yet, will need: its
  // calls waiting now, and what its demand spends in the longest lease.
  const forDemand =
    request.waiting + Math.ceil((request.demandPerSec * config.maxLeaseMs) / 1_000) + 1;
  const floorGrant = request.held < 1 ? single : 0;
  return Math.max(0, Math.min(request.ask, free, slice, forDemand, Math.max(fair, floorGrant)));
}

/**
 * The longest lease the shared side grants now: what is above the reserve lasts
 * `aboveReserve / totalDemand` seconds (the bucket's drain, or the demand the live holders reported
 * when that is higher); a lease lasts at most {@link LeaseConfig.poolTimeShare} of that, so that as
 * the budget runs low the leases shorten with it, and what they hold comes back while others can
 * still use it.
 */
export function leaseDurationCapOf(
  aboveReserve: number,
  totalDemandPerSec: number,
  config = DEFAULT_LEASE_CONFIG,
): number {
  if (totalDemandPerSec <= 0) return config.maxLeaseMs;
  const poolLastsMs = (Math.max(0, aboveReserve) / totalDemandPerSec) * 1_000;
  return Math.min(
    config.maxLeaseMs,
    Math.max(config.minLeaseMs, poolLastsMs * config.poolTimeShare),
  );
}

/** What the script answers a lease request. */
export interface Lease {
  /** New tokens, taken from the shared bucket. */
  readonly grant: number;
  /** Of what the asker held, what its new lease keeps ... */
  readonly carried: number;
  /** ... and what goes back to the shared bucket (held − carried). */
  readonly returned: number;
  /** How long the lease lasts: what was asked, within {@link leaseDurationCapOf}. */
  readonly durationMs: number;
  /**
   * Whether the budget is plentiful (the cap did not bind): a single token may then lapse at the
   * lease's end instead of being given back with a run of its own.
   */
  readonly plentiful: boolean;
}

/**
 * The script's answer to a lease request (urgent, or a renewal of a live lease whose unspent
 * tokens the asker reports as `held`): the lease's duration ({@link leaseDurationCapOf}); what it
 * should hold ({@link tokensForLease} — a shortened lease holds fewer spares, and near the reserve
 * none: only the calls waiting); of what the asker held, what it keeps (up to that) and what it
 * gives back; and {@link grantOf} for the rest.
 */
export function leaseOf(
  shared: SharedView,
  request: GrantRequest & { readonly durationMs: number },
  config = DEFAULT_LEASE_CONFIG,
): Lease {
  const reported = shared.others.reduce(
    (sum, holder) => sum + holder.demandPerSec,
    request.demandPerSec,
  );
  const totalDemand = Math.max(reported, shared.drainPerSec ?? 0);
  const aboveReserve = shared.tokens - shared.writeReserve;
  const cap = leaseDurationCapOf(aboveReserve, totalDemand, config);
  const durationMs = Math.min(request.durationMs, cap);
  const nearReserve = aboveReserve <= config.singlesBelowPerHolder * (shared.others.length + 1);
  const target = nearReserve
    ? request.waiting
    : tokensForLease(request.demandPerSec, durationMs, 0, request.waiting);
  const carried = Math.max(0, Math.min(request.held, target));
  const returned = Math.max(0, request.held) - carried;
  const ask = Math.min(request.ask, target - carried);
  const grant =
    ask < 1
      ? 0
      : grantOf(
          { ...shared, tokens: shared.tokens + returned },
          { ...request, ask, held: carried },
          config,
        );
  return { grant, carried, returned, durationMs, plentiful: cap >= config.maxLeaseMs };
}

/**
 * What a lease's settlement gives back to the shared bucket: what its holder says it did not spend,
 * never more than it was granted — while the lease runs, or after it ended (its holder stopped
 * spending at its end), provided the window it was granted in is still the current one: at a
 * window's end the bucket was refilled without it ({@link tokensAtReset}).
 */
export function settledTokens(granted: number, unspent: number, sameWindow: boolean): number {
  if (!sameWindow) return 0;
  return Math.max(0, Math.min(granted, unspent));
}

/**
 * Whether the shared side still counts a lease among the live holders (for the fair shares): until
 * its end and a grace (the holder's clock started before Redis's, a reply may be in flight). An
 * ended lease stays on record, unsettled, until its holder settles it or the window ends.
 */
export const isLive = (leaseEndsAt: number, now: number, config = DEFAULT_LEASE_CONFIG): boolean =>
  now <= leaseEndsAt + config.graceMs;

/** The shared bucket's tokens, and its capacity. */
export interface SharedTokens {
  readonly tokens: number;
  readonly cap: number;
}

/** An upstream answer a replica reports (with its next lease run, or at once after a 429). */
export interface ReportedAnswer {
  /** `RateLimit-Limit`. */
  readonly limit?: number;
  /** `RateLimit-Remaining` (0 after a 429 of the credential's window). */
  readonly remaining?: number;
  /** The reporter's tokens not counted by the upstream when it answered: held, and in flight. */
  readonly reporterOutstanding: number;
}

/**
 * `RateLimit-*` with leases outstanding. Every token of Weft's is either in the shared bucket, held
 * by a replica, in flight, or counted by the upstream; so while nobody else spends the credential,
 * `RateLimit-Remaining` is at least the shared tokens plus the reporter's own outstanding ones, and
 * the shared tokens drop only below what it leaves after the reporter's outstanding: what was spent
 * behind Weft's back. The other holders' leases are not subtracted: the shared side only knows what
 * they were granted, and what they spent since is already counted in Remaining — subtracting it
 * would take it twice, and drain the bucket a little with every answer. Only ever lowers, as today;
 * `RateLimit-Limit` lowers the capacity.
 */
export function correctedShared(shared: SharedTokens, answer: ReportedAnswer): SharedTokens {
  const cap =
    answer.limit !== undefined && answer.limit >= 1
      ? Math.min(shared.cap, answer.limit)
      : shared.cap;
  let tokens = Math.min(shared.tokens, cap);
  if (answer.remaining !== undefined) {
    tokens = Math.min(tokens, Math.max(0, answer.remaining - answer.reporterOutstanding));
  }
  return { tokens, cap };
}

/**
 * At the window's end the bucket is full again, less what the leases still running hold: their
 * tokens may be spent in the new window. Ended leases are not subtracted (their holders stopped
 * spending at their end); their records are dropped, and settle for nothing.
 */
export const tokensAtReset = (cap: number, held: number): number => Math.max(0, cap - held);
