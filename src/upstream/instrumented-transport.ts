/**
 * Metrics and trace spans for every upstream attempt, at the innermost layer so that each HTTP
 * request is counted once (retries included, cache hits and refusals excluded). Labels and span
 * attributes carry the route template, never a raw path.
 */
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { Transport } from './http-transport.ts';

export function createInstrumentedTransport(
  inner: Transport,
  observers: { metrics?: GatewayMetrics | undefined; tracing?: Tracing | undefined },
): Transport {
  const { metrics, tracing } = observers;
  if (!metrics && !tracing) return inner;
  return {
    async send(call, signal, deadlineAt) {
      const startedAt = Date.now();
      let status: number | 'error' = 'error';
      try {
        const response = await inner.send(call, signal, deadlineAt);
        status = response.status;
        return response;
      } finally {
        const endedAt = Date.now();
        metrics?.upstreamCall(call.method, call.route, status, (endedAt - startedAt) / 1000);
        tracing?.recordUpstream(call.scope?.trace?.span, call, status, startedAt, endedAt);
      }
    },
    probe: (signal) => inner.probe(signal),
    close: () => inner.close(),
  };
}
