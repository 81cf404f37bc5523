/**
 * The upstream ledger as the explorer reads it from a response (`extensions.upstream`, sent when the
 * request carries `Weft-Ledger: 1`; docs/budget.md), and what the panel shows of it. This is the wire
 * format, written down on this side on purpose: the panel reads what arrives and checks it, it does
 * not trust a server type.
 */

export type LedgerSource = 'network' | 'cache' | 'stale' | 'coalesced' | 'refused';

export interface LedgerCall {
  readonly method: string;
  /** The route template (`/v2/apps/{appId}`), never a filled path. */
  readonly route: string;
  readonly status: number | null;
  readonly source: LedgerSource;
  /** The limiter that refused it (`source: refused`). */
  readonly limiter?: string;
  readonly attempts: number;
  readonly durationMs: number;
  /** The fields that asked (at most 8 named, each at most 200 characters). */
  readonly paths: readonly string[];
  /** Fields that asked beyond those named (absent when it names them all). */
  readonly morePaths?: number;
}

export interface LedgerBudget {
  readonly limit: number;
  readonly remaining: number;
  readonly resetSec: number;
  readonly writeReserve: number;
}

export interface Ledger {
  readonly calls: readonly LedgerCall[];
  /** Calls that reached the upstream (attempts), calls served without it. */
  readonly totals: { readonly upstream: number; readonly withoutUpstream: number };
  readonly budget: LedgerBudget | null;
  /** A whole-response replay: no calls listed. */
  readonly replayed?: true;
  /**
   * The operation's upper bound of upstream calls, computed before it ran (`estimate.calls`,
   * docs/budget.md); null when the gateway computed none (a subscription, an error before it).
   */
  readonly bound: number | null;
  /** The bound again once the unpaged lists it assumed arrived (`estimate.refinedCalls`). */
  readonly refinedBound?: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

function readCall(value: unknown): LedgerCall | undefined {
  if (!isObject(value)) return undefined;
  const { method, route, status, source, limiter, attempts, durationMs, paths, morePaths } = value;
  if (typeof method !== 'string' || typeof route !== 'string') return undefined;
  if (status !== null && !isNumber(status)) return undefined;
  if (typeof source !== 'string' || !isNumber(attempts) || !isNumber(durationMs)) return undefined;
  return {
    method,
    route,
    status,
    source: source as LedgerSource,
    ...(typeof limiter === 'string' ? { limiter } : {}),
    attempts,
    durationMs,
    paths: Array.isArray(paths) ? paths.filter((path) => typeof path === 'string') : [],
    ...(isNumber(morePaths) && morePaths > 0 ? { morePaths } : {}),
  };
}

function readBudget(value: unknown): LedgerBudget | null {
  if (!isObject(value)) return null;
  const { limit, remaining, resetSec, writeReserve } = value;
  if (!isNumber(limit) || !isNumber(remaining) || !isNumber(resetSec)) return null;
  return { limit, remaining, resetSec, writeReserve: isNumber(writeReserve) ? writeReserve : 0 };
}

/** The ledger of one GraphQL result (a response, or one event of a stream); undefined when none. */
export function readLedger(result: unknown): Ledger | undefined {
  if (!isObject(result) || !isObject(result.extensions)) return undefined;
  const upstream = result.extensions.upstream;
  if (!isObject(upstream)) return undefined;
  const calls = Array.isArray(upstream.calls)
    ? upstream.calls.map(readCall).filter((call) => call !== undefined)
    : [];
  const totals = isObject(upstream.totals) ? upstream.totals : {};
  return {
    calls,
    totals: {
      upstream: isNumber(totals.upstream) ? totals.upstream : 0,
      withoutUpstream: isNumber(totals.withoutUpstream) ? totals.withoutUpstream : 0,
    },
    budget: readBudget(upstream.budget),
    bound:
      isObject(upstream.estimate) && isNumber(upstream.estimate.calls)
        ? upstream.estimate.calls
        : null,
    ...(isObject(upstream.estimate) && isNumber(upstream.estimate.refinedCalls)
      ? { refinedBound: upstream.estimate.refinedCalls }
      : {}),
    ...(upstream.replayed === true ? { replayed: true as const } : {}),
  };
}

/** One row of the panel's table. */
export interface LedgerRow {
  readonly method: string;
  readonly route: string;
  /** The status, or `—` when no answer came. */
  readonly status: string;
  /** The source, with the limiter of a refusal: `refused (CREDENTIAL)`. */
  readonly source: LedgerSource;
  readonly detail: string;
  readonly attempts: number;
  /** Milliseconds, one decimal. */
  readonly ms: string;
  readonly paths: string;
}

export function ledgerRows(ledger: Ledger): LedgerRow[] {
  return ledger.calls.map((call) => ({
    method: call.method,
    route: call.route,
    status: call.status === null ? '—' : String(call.status),
    source: call.source,
    detail: call.limiter === undefined ? call.source : `${call.source} (${call.limiter})`,
    attempts: call.attempts,
    ms: call.durationMs.toFixed(1),
    paths: [...call.paths, ...(call.morePaths ? [`+${call.morePaths} more`] : [])].join(', '),
  }));
}

/** Milliseconds spent on calls, summed (calls overlap, so this is work, not wall time). */
export function callTimeMs(ledger: Ledger): number {
  return ledger.calls.reduce((sum, call) => sum + call.durationMs, 0);
}
