/**
 * Where a call enters the upstream stack: its route's declaration is looked up here, once, and
 * travels with the call (`RoutedCall.declared`) through every layer below — the cache policy, the
 * redaction, the refused-token check, the circuit breaker and the route-class bucket all read it
 * there instead of each looking the route up again.
 */
import type { UpstreamClient } from './upstream-client.ts';
import type { RoutedCall, RouteTable } from './upstream-routes.ts';

export function createRouteLookup(
  inner: UpstreamClient<RoutedCall>,
  table: RouteTable,
): UpstreamClient {
  return {
    request: (call) => inner.request({ ...call, declared: table.of(call) }),
    probe: (timeoutMs) => inner.probe(timeoutMs),
    close: () => inner.close(),
  };
}
