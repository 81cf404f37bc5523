/**
 * Metrics and trace spans for every upstream attempt, at the innermost layer so that each HTTP
 * request is counted once (retries included, cache hits and refusals excluded). Labels and span
 * attributes carry the route template, never a raw path. With tracing on, each request carries the
 * `traceparent` of its attempt's span (docs/observability.md).
 */
import { UpstreamError } from '../../errors/gateway-errors.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import type { Tracing } from '../../observability/tracing.ts';
import type { Transport } from '../transport.ts';
import type { UpstreamCall } from '../upstream-call.ts';

/**
 * How many attempts of a call reached this layer before this one (`http.request.resend_count`).
 * The client retries with the same call object and the same deadline; a call object used again
 * later (a poller's) comes with a new deadline and counts from zero.
 */
function createResendCounter(): (call: UpstreamCall, deadlineAt: number | undefined) => number {
  const seen = new WeakMap<UpstreamCall, { deadlineAt: number | undefined; attempts: number }>();
  return (call, deadlineAt) => {
    const entry = seen.get(call);
    if (entry && entry.deadlineAt === deadlineAt) return entry.attempts++;
    seen.set(call, { deadlineAt, attempts: 1 });
    return 0;
  };
}

export function createInstrumentedTransport(
  inner: Transport,
  observers: { metrics?: GatewayMetrics | undefined; tracing?: Tracing | undefined },
): Transport {
  const { metrics, tracing } = observers;
  if (!metrics && !tracing) return inner;
  const resendCountOf = tracing ? createResendCounter() : undefined;
  return {
    async send(call, signal, deadlineAt) {
      const attempt =
        tracing &&
        resendCountOf &&
        tracing.startUpstream(call.scope?.trace?.span, call, resendCountOf(call, deadlineAt));
      const sent = attempt ? { ...call, headers: { ...call.headers, ...attempt.headers } } : call;
      const startedAt = Date.now();
      let status: number | 'error' = 'error';
      try {
        const response = await inner.send(sent, signal, deadlineAt);
        status = response.status;
        attempt?.end(response);
        return response;
      } catch (error) {
        attempt?.end({ error: error instanceof UpstreamError ? error.kind : 'error' });
        throw error;
      } finally {
        metrics?.upstreamCall(call.method, call.route, status, (Date.now() - startedAt) / 1000);
      }
    },
    probe: (signal) => inner.probe(signal),
    close: () => inner.close(),
  };
}
