/**
 * The token bucket as a layer around the transport: every attempt the upstream client makes (first
 * try and retries alike, each is one upstream request) takes a token first, and every answer feeds
 * the buckets back (RateLimit-* headers, 429s). The spend is reported to the request's facts so the
 * response can carry the budget.
 */
import type { Transport, RawResponse } from './http-transport.ts';
import {
  parseErrorEnvelope,
  parseRateLimitHeaders,
  retryAfterSeconds,
} from './response-envelope.ts';
import type { RouteClass, RoutedCall } from './upstream-routes.ts';
import type { BudgetSnapshot } from './budget-tracker.ts';
import type { BudgetCorrection, TokenBucketLimiter } from './token-bucket.ts';

/** What an upstream answer says about the budgets. */
export function correctionOf(
  response: RawResponse,
  routeClass: RouteClass | undefined,
): BudgetCorrection {
  const headers = parseRateLimitHeaders(response.headers);
  const base: BudgetCorrection = headers
    ? { limit: headers.limit, remaining: headers.remaining, resetMs: headers.resetSec * 1000 }
    : {};
  // The upstream refuses a bad token before it counts the call per IP (simulator decision, see
  // docs/simulator.md): the route class gets the call back, the credential stays unproven.
  if (response.status === 401) return { ...base, unauthenticated: true };
  if (response.status !== 429) return base;
  const blockMs = retryAfterSeconds(parseErrorEnvelope(response.body), response.headers) * 1000;
  // A 429 while the credential's window still has room is the route class's limit (a per-IP or
  // burst limit): that bucket waits, the credential's does not.
  const fromRouteClass = routeClass !== undefined && headers !== undefined && headers.remaining > 0;
  return fromRouteClass
    ? { ...base, blockMs, blockRouteClass: true }
    : { limit: base.limit, blockMs, blockRouteClass: false };
}

/**
 * Whether an answer only confirms the budget its take reported (the usual case inside a known
 * window: both count down together). Then the shared bucket need not hear of it.
 */
export function isRedundant(
  status: number,
  taken: BudgetSnapshot,
  correction: BudgetCorrection,
): boolean {
  if (status === 429 || correction.blockMs !== undefined || correction.unauthenticated) {
    return false;
  }
  const { limit, remaining, resetMs } = correction;
  if (limit === undefined || remaining === undefined || resetMs === undefined) return false;
  const resetSec = resetMs / 1000;
  return (
    taken.limit <= limit &&
    taken.remaining <= remaining &&
    taken.resetSec >= resetSec &&
    taken.resetSec - resetSec <= 1
  );
}

export function createBudgetedTransport(
  inner: Transport<RoutedCall>,
  limiter: TokenBucketLimiter,
): Transport<RoutedCall> {
  return {
    async send(call, signal) {
      const routeClass = call.declared?.limitClass;
      const credentialId = call.credential.id;
      const budget = await limiter.acquire(credentialId, routeClass, signal);
      call.scope?.facts?.recordSpend(budget);
      let response: RawResponse;
      try {
        response = await inner.send(call, signal);
      } catch (error) {
        // No answer, so nothing to learn about the budget; but a slow-start probe that got none
        // must not keep the credential's other calls waiting for it.
        await limiter.release(credentialId);
        throw error;
      }
      const correction = correctionOf(response, routeClass);
      const redundant = isRedundant(response.status, budget, correction);
      const corrected = await limiter.observe(credentialId, routeClass, {
        ...correction,
        redundant,
      });
      call.scope?.facts?.recordBudget(redundant ? budget : corrected);
      return response;
    },
    probe: (signal) => inner.probe(signal),
    close: () => inner.close(),
  };
}
