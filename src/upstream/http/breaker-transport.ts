/**
 * The circuit breaker as a layer around the (budgeted) transport: an open circuit refuses the call
 * before it spends budget or a socket, with UPSTREAM_UNAVAILABLE and `retryAfterSec`.
 */
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError, UpstreamError } from '../../errors/gateway-errors.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import type { Transport } from '../transport.ts';
import { UNDECLARED_BREAKER, type RoutedCall } from '../upstream-routes.ts';

/** An answer that says the upstream part is failing (not the caller's fault, not the budget). */
const isFailureStatus = (status: number): boolean => status >= 500;

export function createBreakerTransport(
  inner: Transport<RoutedCall>,
  breaker: CircuitBreaker,
): Transport<RoutedCall> {
  return {
    async send(call, signal, deadlineAt) {
      const breakerClass = call.declared?.breaker ?? UNDECLARED_BREAKER;
      const admission = breaker.admit(breakerClass);
      if (!admission.allowed) {
        throw new GatewayError(
          ErrorCode.UPSTREAM_UNAVAILABLE,
          `The upstream ${breakerClass} service is failing; not calling it for ${admission.retryAfterSec}s`,
          { retryAfterSec: admission.retryAfterSec, breaker: breakerClass },
        );
      }
      try {
        const response = await inner.send(call, signal, deadlineAt);
        breaker.record(
          breakerClass,
          isFailureStatus(response.status) ? 'failure' : 'success',
          admission.probe,
        );
        return response;
      } catch (error) {
        // Only the upstream's own failures count; a refusal by the budget is not one.
        const upstreamFailed = error instanceof UpstreamError && error.kind !== 'refused';
        breaker.record(breakerClass, upstreamFailed ? 'failure' : 'skipped', admission.probe);
        throw error;
      }
    },
    probe: (signal) => inner.probe(signal),
    close: () => inner.close(),
  };
}
