/**
 * The upstream ledger of one GraphQL request (docs/ledger.md): every upstream call the operation
 * needed, in order, with what served it — the network, the cache, a stale value, another request's
 * call it joined, a local refusal, or nothing (dropped: its client left before it was sent) — its attempts, its time and the GraphQL path that asked. A
 * request keeps one only when it asks (`Weft-Trace: 1`); without one, every layer skips all of this.
 *
 * An entry opens where a call enters the stack (`route-lookup.ts`) and travels with it
 * (`RoutedCall.ledgerEntry`); the layers below note what they did (the cache layer its source, the
 * retry layer each answered attempt), and the entry settles with the call's outcome. Nothing in it is
 * secret: route templates, statuses, counts and field paths, never a path's ids, a token or a value.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { GatewayError, UpstreamError } from '../errors/gateway-errors.ts';
import { ErrorCode } from '../errors/error-codes.ts';
import type { BudgetSnapshot } from './budget-tracker.ts';

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
  /** The GraphQL field paths that asked for it (e.g. `apps.2.status`); empty outside a field. */
  readonly paths: readonly string[];
}

/** `extensions.upstream` of a response. */
export interface LedgerReport {
  /** The first {@link MAX_LEDGER_CALLS} calls; `totals` count them all. */
  readonly calls: readonly LedgerCall[];
  readonly totals: { readonly upstream: number; readonly withoutUpstream: number };
  readonly budget: BudgetSnapshot | null;
}

/** Calls listed at most: one request cannot grow its response without bound. */
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
  report(budget: BudgetSnapshot | null): LedgerReport;
}

/**
 * The GraphQL paths of the fields a call is made for: the field whose resolver is running
 * (`graph/ledger-paths.ts`), or every field that asked a loader for the key it fetches
 * (`kit/loader-askers.ts`; the array grows while the call is in flight). Set only for a request that
 * lists its ledger: the upstream layer reads it without the domains passing it down.
 */
export const fieldPath = new AsyncLocalStorage<string[]>();

/**
 * The ledger of work outside a request's own scope — a subscription's shared poller — for the
 * calls made within it (`kit/shared-pollers.ts`): a request's own ledger comes first.
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
 * One line: the call as the report shows it (its own fields serialise; the start time is private)
 * and the entry the layers note on. A class, not closures: with metrics on, every upstream call of
 * every request opens one.
 */
class Line implements LedgerCall, LedgerEntry {
  status: number | null = null;
  source: LedgerSource = 'network';
  limiter?: string;
  attempts = 0;
  durationMs = 0;
  readonly method: string;
  readonly route: string;
  readonly paths: readonly string[];
  readonly #startedAt: number;

  constructor(method: string, route: string, paths: string[] | undefined, startedAt: number) {
    this.method = method;
    this.route = route;
    this.paths = paths ?? [];
    this.#startedAt = startedAt;
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
}

export function createUpstreamLedger(
  now: () => number = performance.now.bind(performance),
): UpstreamLedger {
  const lines: Line[] = [];
  let open = 0;
  let allSettled: (() => void) | undefined;
  return {
    open(method, route) {
      const line = new Line(method, route, fieldPath.getStore(), now());
      lines.push(line);
      open += 1;
      return line;
    },
    settle(entry, error) {
      (entry as Line).settle(now(), error);
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
    report(budget) {
      let upstream = 0;
      let withoutUpstream = 0;
      for (const line of lines) {
        upstream += line.attempts;
        if (line.attempts === 0) withoutUpstream += 1;
      }
      return {
        calls: lines.slice(0, MAX_LEDGER_CALLS),
        totals: { upstream, withoutUpstream },
        budget,
      };
    },
  };
}
