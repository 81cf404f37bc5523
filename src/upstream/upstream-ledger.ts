/**
 * The upstream ledger of one GraphQL request (docs/budget.md): every upstream call the operation
 * needed, in order, with what served it — the network, the cache, a stale value, another request's
 * call it joined, a local refusal, or nothing (dropped: its client left before it was sent) — its attempts, its time and the GraphQL path that asked. A
 * request keeps one only when it asks (`Weft-Trace: 1`); without one, every layer skips all of this.
 *
 * An entry opens where a call enters the stack (`route-lookup.ts`) and travels with it
 * (`RoutedCall.ledgerEntry`); the layers below note what they did (the cache layer its source, the
 * retry layer each answered attempt), and the entry settles with the call's outcome. Nothing in it is
 * secret: route templates, statuses, counts and field paths, never a path's ids, a token or a value.
 * What a report adds to a response is bounded whatever the document: at most MAX_LEDGER_CALLS calls,
 * each naming at most 8 fields in bounded text (`ledger-field-paths.ts`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { GatewayError, UpstreamError } from '../errors/gateway-errors.ts';
import { ErrorCode } from '../errors/error-codes.ts';
import type { BudgetSnapshot } from './budget-tracker.ts';
import { type FieldAskers, pathsOfReport } from './ledger-field-paths.ts';

/** What served a call. */
export type LedgerSource = 'network' | 'cache' | 'stale' | 'coalesced' | 'refused' | 'dropped';

export interface LedgerCall {
  readonly method: string;
  /** The route template, e.g. `GET /v2/apps/{appId}`: never a filled path. */
  readonly route: string;
  /** The last upstream status (an error's included); null when no answer came. */
  status: number | null;
  source: LedgerSource;
  /** Which limiter refused it (`source: refused`): the error's `limiter`, or CIRCUIT. */
  limiter?: string;
  /** Upstream requests that got an answer (retries included). */
  attempts: number;
  durationMs: number;
  /**
   * The GraphQL fields that asked for it (e.g. `apps.2.status`), each named once and bounded
   * (`ledger-field-paths.ts`): at most 8, cut to 200 characters; empty outside a field.
   */
  readonly paths: readonly string[];
  /** Fields that asked beyond those `paths` names (absent when it names them all). */
  readonly morePaths?: number;
}

/** `extensions.upstream` of a response. */
export interface LedgerReport {
  /** The first {@link MAX_LEDGER_CALLS} calls; `totals` count them all. */
  readonly calls: readonly LedgerCall[];
  readonly totals: { readonly upstream: number; readonly withoutUpstream: number };
  readonly budget: BudgetSnapshot | null;
}

/**
 * Calls listed at most: one request cannot grow its response without bound. Calls past it are
 * counted in `totals` and not kept.
 */
export const MAX_LEDGER_CALLS = 500;

export interface LedgerEntry {
  /** One attempt got an answer with this status. */
  attempted(status: number): void;
  /** What served it, when not the network (set by the cache layer). */
  servedBy(source: Exclude<LedgerSource, 'network' | 'refused' | 'dropped'>): void;
}

export interface UpstreamLedger {
  open(method: string, route: string): LedgerEntry;
  /** Ends an entry with the call's outcome (its error when it failed). */
  settle(entry: LedgerEntry, error?: unknown): void;
  /**
   * Resolves once every call opened so far has settled. A field that fails can end its part of the
   * result while sibling calls are still in flight; the upstream sees them all, so the ledger waits
   * for them (each ends by its deadline).
   */
  settled(): Promise<void>;
  /** The totals alone (what metrics count): names no path. */
  totals(): LedgerReport['totals'];
  report(budget: BudgetSnapshot | null): LedgerReport;
}

/**
 * The fields a call is made for: the field whose resolver is running (`graph/ledger-paths.ts`), or
 * every field that asked a loader for the key it fetches (`kit/loader-askers.ts`). Set only for a
 * request that lists its ledger: the upstream layer reads it without the domains passing it down.
 */
export const fieldPath = new AsyncLocalStorage<FieldAskers>();

/**
 * The ledger of work outside a request's own scope — a subscription's shared poller — for the
 * calls made within it (`watching/`): a request's own ledger comes first.
 */
export const activeLedger = new AsyncLocalStorage<UpstreamLedger>();

/** The ledger of something that cost no upstream call (a subscriber joining a watch under way). */
export const emptyLedgerReport = (): LedgerReport => ({
  calls: [],
  totals: { upstream: 0, withoutUpstream: 0 },
  budget: null,
});

/** The limiter a local refusal names; undefined when the error is not one. */
function refusalOf(error: unknown): string | undefined {
  if (!(error instanceof GatewayError)) return undefined;
  if (error.code === ErrorCode.UPSTREAM_UNAVAILABLE) return 'CIRCUIT';
  if (error.code === ErrorCode.UNAUTHENTICATED) return 'REFUSED_TOKEN';
  if (error.code !== ErrorCode.RATE_LIMITED) return undefined;
  const limiter = error.details.limiter;
  return typeof limiter === 'string' ? limiter : 'CREDENTIAL';
}

/**
 * One line: the call and the entry the layers note on; the report names its fields
 * (`call`). A class, not closures: with metrics on, every upstream call of every request opens one.
 */
class Line implements LedgerEntry {
  status: number | null = null;
  source: LedgerSource = 'network';
  limiter?: string;
  attempts = 0;
  durationMs = 0;
  readonly method: string;
  readonly route: string;
  /** Kept for the report (one of the first {@link MAX_LEDGER_CALLS}), or only counted. */
  readonly listed: boolean;
  readonly #askers: FieldAskers | undefined;
  readonly #startedAt: number;

  constructor(
    method: string,
    route: string,
    askers: FieldAskers | undefined,
    startedAt: number,
    listed: boolean,
  ) {
    this.method = method;
    this.route = route;
    this.#askers = askers;
    this.#startedAt = startedAt;
    this.listed = listed;
  }

  attempted(status: number): void {
    this.attempts += 1;
    this.status = status;
  }

  servedBy(source: Exclude<LedgerSource, 'network' | 'refused' | 'dropped'>): void {
    this.source = source;
  }

  settle(at: number, error: unknown): void {
    this.durationMs = Math.round((at - this.#startedAt) * 10) / 10;
    if (error === undefined || this.source === 'stale') return;
    // Not sent: its client left before the call's turn came (`call-interest.ts`).
    if (this.attempts === 0 && error instanceof GatewayError) {
      if (error.code === ErrorCode.CLIENT_GONE) {
        this.source = 'dropped';
        return;
      }
    }
    const limiter = this.attempts === 0 ? refusalOf(error) : undefined;
    if (limiter !== undefined) {
      this.source = 'refused';
      this.limiter = limiter;
    } else if (error instanceof UpstreamError && error.status !== undefined) {
      this.status = error.status;
    }
  }

  /** The call as a report lists it, its paths named within the report's room. */
  call(pathsOf: ReturnType<typeof pathsOfReport>): LedgerCall {
    return {
      method: this.method,
      route: this.route,
      status: this.status,
      source: this.source,
      ...(this.limiter === undefined ? {} : { limiter: this.limiter }),
      attempts: this.attempts,
      durationMs: this.durationMs,
      ...pathsOf(this.#askers),
    };
  }
}

export function createUpstreamLedger(
  now: () => number = performance.now.bind(performance),
): UpstreamLedger {
  const lines: Line[] = [];
  /** The calls past {@link MAX_LEDGER_CALLS}, counted as they settle. */
  const unlisted = { upstream: 0, withoutUpstream: 0 };
  let open = 0;
  let allSettled: (() => void) | undefined;
  const totals = () => {
    let { upstream, withoutUpstream } = unlisted;
    for (const line of lines) {
      upstream += line.attempts;
      if (line.attempts === 0) withoutUpstream += 1;
    }
    return { upstream, withoutUpstream };
  };
  return {
    open(method, route) {
      const listed = lines.length < MAX_LEDGER_CALLS;
      const line = new Line(method, route, fieldPath.getStore(), now(), listed);
      if (listed) lines.push(line);
      open += 1;
      return line;
    },
    settle(entry, error) {
      const line = entry as Line;
      line.settle(now(), error);
      if (!line.listed) {
        unlisted.upstream += line.attempts;
        if (line.attempts === 0) unlisted.withoutUpstream += 1;
      }
      open -= 1;
      if (open === 0) allSettled?.();
    },
    settled() {
      if (open === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const before = allSettled;
        allSettled = () => {
          before?.();
          resolve();
        };
      });
    },
    totals,
    report(budget) {
      const pathsOf = pathsOfReport();
      return { calls: lines.map((line) => line.call(pathsOf)), totals: totals(), budget };
    },
  };
}
