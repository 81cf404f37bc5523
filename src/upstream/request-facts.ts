/**
 * What the upstream layer learned while serving one GraphQL request, reported back on the response:
 * the caller's budget after the last upstream call that spent it (`RateLimit-*` headers and
 * `extensions.rateLimit`), and the values served stale because the upstream failed
 * (`extensions.stale`). The server creates one per request and hands it down inside the
 * {@link RequestScope}; the domains never touch it.
 */
import type { BudgetSnapshot } from './budget-tracker.js';

/** Why a cached value was served past its freshness. */
export type StaleReason = 'UPSTREAM_ERROR' | 'RATE_LIMITED';

/** One upstream read answered from the cache after its TTL because the upstream could not answer. */
export interface StaleFact {
  /** Route template, e.g. `GET /v1/hosting/nodejs/apps/{appId}`: never a raw path with ids. */
  readonly route: string;
  /** Age of the served value in whole seconds. */
  readonly ageSec: number;
  readonly reason: StaleReason;
}

export interface RequestFacts {
  /** Upstream calls that took a token for this request. */
  readonly spent: number;
  /** The budget after the latest spend (or correction by the upstream's headers). */
  readonly budget: BudgetSnapshot | undefined;
  readonly stale: readonly StaleFact[];
  recordSpend(budget: BudgetSnapshot): void;
  /** A later correction (the upstream's own RateLimit headers) of the budget already reported. */
  recordBudget(budget: BudgetSnapshot): void;
  recordStale(fact: StaleFact): void;
}

export function createRequestFacts(): RequestFacts {
  let spent = 0;
  let budget: BudgetSnapshot | undefined;
  const stale: StaleFact[] = [];
  return {
    get spent() {
      return spent;
    },
    get budget() {
      return budget;
    },
    stale,
    recordSpend(next) {
      spent += 1;
      budget = next;
    },
    recordBudget(next) {
      if (spent > 0) budget = next;
    },
    recordStale(fact) {
      // Bounded: one request cannot grow the response without limit.
      if (stale.length < 50) stale.push(fact);
    },
  };
}
