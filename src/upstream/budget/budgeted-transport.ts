/**
 * The token bucket as a layer around the transport: every attempt the upstream client makes (first
 * try and retries alike, each is one upstream request) takes a token first — at its priority, up to
 * its deadline, through the gate for unproven tokens — and every answer feeds the buckets back
 * (RateLimit-* headers, 429s). The spend is reported to the request's facts so the response can
 * carry the budget. A read nobody waits for any more (`RoutedCall.unwanted`: its clients left)
 * leaves the gate's queue, the send window's line or a bucket's wait with CLIENT_GONE: it took no
 * token and holds no place; a call already sent finishes (its answer still fills the cache).
 */
import type { Transport, RawResponse } from '../transport.ts';
import {
  parseErrorEnvelope,
  parseRateLimitHeaders,
  retryAfterSeconds,
} from '../response-envelope.ts';
import type { RouteClass, RoutedCall } from '../upstream-routes.ts';
import type { BudgetCorrection } from './bucket-store.ts';
import type { Grant, TokenBucketLimiter } from './token-bucket.ts';
import { priorityOf, type CallPriority } from './call-priority.ts';
import { createUnprovenGate, type UnprovenGate } from './unproven-gate.ts';
import { clientGone, isClientGone } from '../call-interest.ts';

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

export interface BudgetedTransportOptions {
  readonly limiter: TokenBucketLimiter;
  /** Room for tokens the upstream has never answered; default one of this transport's own. */
  readonly unproven?: UnprovenGate;
  /** Told of each upstream 429 (metrics): the limiter did not foresee it. */
  readonly onUpstream429?: (priority: CallPriority) => void;
  /** Told of each call dropped before it was sent because nobody waited for it (logs, metrics). */
  readonly onDropped?: (call: RoutedCall) => void;
}

export function createBudgetedTransport(
  inner: Transport<RoutedCall>,
  options: BudgetedTransportOptions,
): Transport<RoutedCall> {
  const { limiter } = options;
  const unproven = options.unproven ?? createUnprovenGate();
  /** `error`, told to `onDropped` when it drops the call (nobody waited for it). */
  const droppedIf = (call: RoutedCall, error: unknown) => {
    if (isClientGone(error)) options.onDropped?.(call);
    return error;
  };
  return {
    async send(call, signal, deadlineAt) {
      const routeClass = call.declared?.limitClass;
      const credentialId = call.credential.id;
      const priority = priorityOf(call);
      const { unwanted } = call;
      const dropped = (error: unknown) => droppedIf(call, error);
      if (unwanted?.aborted) throw dropped(clientGone());
      let leave: () => void;
      try {
        leave = await unproven.enter(credentialId, call.scope?.clientAddress, signal, unwanted);
      } catch (error) {
        throw dropped(error);
      }
      try {
        let grant: Grant;
        try {
          grant = await limiter.acquire(credentialId, routeClass, {
            priority,
            deadlineAt,
            signal,
            unwanted,
          });
        } catch (error) {
          throw dropped(error);
        }
        const { budget, ticket } = grant;
        call.scope?.facts?.recordSpend(budget);
        let response: RawResponse;
        try {
          response = await inner.send(call, signal, deadlineAt);
        } catch (error) {
          // No answer, so nothing to learn about the budget; but the call leaves the send window,
          // or the credential's other calls would wait for an answer that is not coming.
          await limiter.release(credentialId, routeClass, ticket);
          throw error;
        }
        if (response.status === 429) options.onUpstream429?.(priority);
        if (response.status !== 401) unproven.proven(credentialId);
        // The token's calls waiting behind this one are refused without reaching the upstream.
        else if (!call.declared?.resourceScoped401) unproven.refused(credentialId);
        const corrected = await limiter.observe(credentialId, routeClass, {
          ...correctionOf(response, routeClass),
          ticket,
        });
        call.scope?.facts?.recordBudget(corrected);
        return response;
      } finally {
        leave();
      }
    },
    probe: (signal) => inner.probe(signal),
    close: () => inner.close(),
  };
}
