/**
 * What the upstream layer learned while serving one GraphQL request, reported back on the response:
 * the caller's budget after the last upstream call that spent it (`RateLimit-*` headers and
 * `extensions.rateLimit`), and the values served stale because the upstream failed
 * (`extensions.stale`). The server creates one per request and hands it down inside the
 * {@link RequestScope}; the domains never touch it.
 */
import type { BudgetSnapshot } from './budget-tracker.ts';
import type { UpstreamLedger } from './upstream-ledger.ts';

/** Why a cached value was served past its freshness. */
export type StaleReason = 'UPSTREAM_ERROR' | 'RATE_LIMITED';

/** One upstream read answered from the cache after its TTL because the upstream could not answer. */
export interface StaleFact {
  /** Route template, e.g. `GET /things/{thingId}`: never a raw path with ids. */
  readonly route: string;
  /** Age of the served value in whole seconds. */
  readonly ageSec: number;
  readonly reason: StaleReason;
}

/**
 * Whether the whole GraphQL response may be replayed from the response cache: only when every
 * upstream read it needed came from (or went into) the upstream cache, and then no longer than the
 * shortest of their freshness, and only while none of their tags changed.
 */
export interface Replayability {
  readonly cacheable: boolean;
  /** The tag versions of every upstream entry the response used. */
  readonly tags: Readonly<Record<string, string>>;
  /** The earliest `freshUntil` of those entries (ms); undefined when none was used. */
  readonly freshUntil: number | undefined;
}

export interface RequestFacts {
  /**
   * Every upstream call of the request: kept when the request asked for them (`Weft-Trace: 1`,
   * then `listed`) or when metrics count calls per operation.
   */
  readonly ledger: UpstreamLedger | undefined;
  /** The response lists the ledger, with each call's field path. */
  readonly listed: boolean;
  /** The operation's upper bound of upstream calls, once known (docs/budget.md). */
  readonly estimate: number | undefined;
  recordEstimate(calls: number): void;
  /**
   * The bound again once the unpaged lists it assumed arrived with their real lengths: worked out
   * when read (only a response that lists its ledger shows it), not on every list's arrival.
   */
  readonly refinedEstimate: number | undefined;
  /**
   * How to work out the refined bound from the lists arrived so far (read later, or never):
   * undefined while none has arrived.
   */
  refineEstimateWith(refine: () => number | undefined): void;
  /** An unpaged list arrived (`Type.field`, its length): told to the handler, which may refuse. */
  listArrived(field: string, length: number): void;
  /** Set by the operation pipeline when the operation's bound assumed unpaged lists' lengths. */
  onListArrival(handler: (field: string, length: number) => void): void;
  /** Upstream calls that took a token for this request. */
  readonly spent: number;
  /** The budget after the latest spend (or correction by the upstream's headers). */
  readonly budget: BudgetSnapshot | undefined;
  readonly stale: readonly StaleFact[];
  recordSpend(budget: BudgetSnapshot): void;
  /** A later correction (the upstream's own RateLimit headers) of the budget already reported. */
  recordBudget(budget: BudgetSnapshot): void;
  recordStale(fact: StaleFact): void;
  /** A fresh upstream cache entry was used (or stored) to answer this request. */
  recordCacheUse(tags: Readonly<Record<string, string>>, freshUntil: number): void;
  /** Something in this response cannot be replayed (an uncached read, a write, a live value). */
  markUnreplayable(): void;
  readonly replayability: Replayability;
}

/**
 * One request's facts. A class, not an object literal with getters: such a literal makes a hidden
 * class per request holding its getters, and young-generation collections keep what those reach —
 * the request's ledger and what it answered — until the next full collection (docs/performance.md
 * "Memory and start-up").
 */
class RecordedFacts implements RequestFacts {
  readonly ledger: UpstreamLedger | undefined;
  readonly listed: boolean;
  readonly stale: StaleFact[] = [];
  #spent = 0;
  #budget: BudgetSnapshot | undefined;
  #replayable = true;
  #estimate: number | undefined;
  #refineEstimate: (() => number | undefined) | undefined;
  #listArrival: ((field: string, length: number) => void) | undefined;
  #freshUntil: number | undefined;
  readonly #tags: Record<string, string> = {};

  constructor(ledger: UpstreamLedger | undefined, listed: boolean) {
    this.ledger = ledger;
    this.listed = listed && ledger !== undefined;
  }

  get estimate() {
    return this.#estimate;
  }

  recordEstimate(calls: number) {
    this.#estimate = calls;
  }

  get refinedEstimate() {
    return this.#refineEstimate?.();
  }

  refineEstimateWith(refine: () => number | undefined) {
    this.#refineEstimate = refine;
  }

  listArrived(field: string, length: number) {
    this.#listArrival?.(field, length);
  }

  onListArrival(handler: (field: string, length: number) => void) {
    this.#listArrival = handler;
  }

  get spent() {
    return this.#spent;
  }

  get budget() {
    return this.#budget;
  }

  recordSpend(next: BudgetSnapshot) {
    this.#spent += 1;
    this.#budget = next;
  }

  recordBudget(next: BudgetSnapshot) {
    if (this.#spent > 0) this.#budget = next;
  }

  recordStale(fact: StaleFact) {
    this.#replayable = false;
    // Bounded: one request cannot grow the response without limit.
    if (this.stale.length < 50) this.stale.push(fact);
  }

  recordCacheUse(entryTags: Readonly<Record<string, string>>, entryFreshUntil: number) {
    Object.assign(this.#tags, entryTags);
    this.#freshUntil =
      this.#freshUntil === undefined
        ? entryFreshUntil
        : Math.min(this.#freshUntil, entryFreshUntil);
  }

  markUnreplayable() {
    this.#replayable = false;
  }

  get replayability(): Replayability {
    const freshUntil = this.#freshUntil;
    return {
      cacheable: this.#replayable && freshUntil !== undefined,
      tags: this.#tags,
      freshUntil,
    };
  }
}

export function createRequestFacts(ledger?: UpstreamLedger, listed = false): RequestFacts {
  return new RecordedFacts(ledger, listed);
}
