/**
 * Token leases, the shared side (docs/budget.md "Across replicas: leases"): what the Redis script
 * (`redis-leases.ts`) decides when a replica asks — the grant, the lease it makes of it, what a
 * lease's holder gives back, and how an upstream answer a replica reports corrects the shared
 * bucket. Pure functions like the replica's side (`lease-policy.ts`), which the script mirrors and
 * the simulation (`scripts/lease-simulation.ts`) runs at scale; the invariant is the one stated
 * there.
 */
import { DEFAULT_LEASE_CONFIG, tokensForLease } from './lease-policy.ts';

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
   * The tokens granted per second lately, by every replica (`withCall` of each grant): how
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
 * `LeaseConfig.maxShareOfFree` of it, its demand over the longest lease, and its fair share —
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
 * when that is higher); a lease lasts at most `LeaseConfig.poolTimeShare` of that, so that as
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
