/**
 * Where a call enters the upstream stack: its route's declaration is looked up here, once, and
 * travels with the call (`RoutedCall.declared`) through every layer below — the cache policy, the
 * redaction, the refused-token check, the circuit breaker and the route-class bucket all read it
 * there instead of each looking the route up again. A request that keeps a ledger gets the call's
 * line opened here, carried the same way, and settled with the call's outcome.
 */
import type { UpstreamCall } from './upstream-call.ts';
import type { UpstreamClient } from './upstream-client.ts';
import { activeLedger, type UpstreamLedger } from './upstream-ledger.ts';
import type { RoutedCall, RouteTable } from './upstream-routes.ts';

export function createRouteLookup(
  inner: UpstreamClient<RoutedCall>,
  table: RouteTable,
): UpstreamClient {
  /** A call of a request that keeps a ledger: its line opens here and settles with its outcome. */
  async function listed<T>(call: UpstreamCall, ledger: UpstreamLedger) {
    const ledgerEntry = ledger.open(call.method, call.route);
    try {
      const response = await inner.request<T>({ ...call, declared: table.of(call), ledgerEntry });
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
        : inner.request<T>({ ...call, declared: table.of(call) });
    },
    probe: (timeoutMs) => inner.probe(timeoutMs),
    close: () => inner.close(),
  };
}
