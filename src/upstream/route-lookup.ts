/**
 * Where a call enters the upstream stack: its route's declaration is looked up here, once, and
 * travels with the call (`RoutedCall.declared`) through every layer below — the cache policy, the
 * redaction, the refused-token check, the circuit breaker and the route-class bucket all read it
 * there instead of each looking the route up again. A request that keeps a ledger gets the call's
 * line opened here, carried the same way, and settled with the call's outcome. A read also gets
 * what says when nobody waits for it any more (`RoutedCall.unwanted`): the caller's own signal when
 * it passed one (a subscription's poller, stopped with its last subscriber), else its request's.
 */
import { isRetryableMethod } from './http/retry-policy.ts';
import type { UpstreamCall } from './upstream-call.ts';
import type { UpstreamClient } from './upstream-call.ts';
import { activeLedger, type UpstreamLedger } from './upstream-ledger.ts';
import type { RoutedCall, RouteTable } from './upstream-routes.ts';

/** What says a call is no longer wanted: reads only (`RoutedCall.unwanted`). */
const unwantedOf = (call: UpstreamCall): AbortSignal | undefined =>
  isRetryableMethod(call.method, call.idempotent) ? (call.signal ?? call.scope?.gone) : undefined;

export function createRouteLookup(
  inner: UpstreamClient<RoutedCall>,
  table: RouteTable,
): UpstreamClient {
  /** A call of a request that keeps a ledger: its line opens here and settles with its outcome. */
  async function listed<T>(call: UpstreamCall, ledger: UpstreamLedger) {
    const ledgerEntry = ledger.open(call.method, call.route);
    try {
      const response = await inner.request<T>({
        ...call,
        declared: table.of(call),
        ledgerEntry,
        unwanted: unwantedOf(call),
      });
      ledger.settle(ledgerEntry);
      return response;
    } catch (error) {
      ledger.settle(ledgerEntry, error);
      throw error;
    }
  }

  return {
    request<T>(call: UpstreamCall) {
      const ledger = call.scope?.facts?.ledger ?? activeLedger.getStore();
      return ledger
        ? listed<T>(call, ledger)
        : inner.request<T>({ ...call, declared: table.of(call), unwanted: unwantedOf(call) });
    },
    probe: (timeoutMs) => inner.probe(timeoutMs),
    close: () => inner.close(),
  };
}
