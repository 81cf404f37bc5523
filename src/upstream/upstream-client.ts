/**
 * THE way out of the gateway (README "Layers"): every REST call and every subgraph request goes through
 * {@link UpstreamClient.request}. This layer owns the per-operation deadline, the retry policy and the
 * translation of non-2xx answers into typed {@link UpstreamError}s.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { UpstreamError } from '../errors/gateway-errors.ts';
import {
  parseErrorEnvelope,
  parseRateLimitHeaders,
  retryAfterSeconds,
} from './response-envelope.ts';
import {
  backoffDelayMs,
  isRetryableMethod,
  isRetryableStatus,
  type RetryPolicy,
} from './http/retry-policy.ts';
import { attemptDeadline } from './http/attempt-deadline.ts';
import { routeLabel, wasNotSent, type RawResponse, type Transport } from './transport.ts';
import {
  isStreamBody,
  type RateLimitHeaders,
  type UpstreamCall,
  type UpstreamClient,
  type UpstreamResponse,
} from './upstream-call.ts';

/** What the client reports after every attempt that got an HTTP answer (metrics, budget feedback). */
export interface UpstreamObservation<Call extends UpstreamCall = UpstreamCall> {
  readonly call: Call;
  readonly status: number;
  readonly rateLimit: RateLimitHeaders | undefined;
  readonly durationMs: number;
  readonly attempt: number;
}

export interface UpstreamClientOptions<Call extends UpstreamCall> {
  readonly transport: Transport<Call>;
  readonly deadlineMs: number;
  readonly retry: RetryPolicy;
  readonly observe?: (observation: UpstreamObservation<Call>) => void;
  readonly random?: () => number;
  readonly now?: () => number;
  /** Waits between attempts (injectable so tests can see the delays). */
  readonly sleep?: (ms: number) => Promise<unknown>;
}

function httpError(call: UpstreamCall, response: RawResponse): UpstreamError {
  const envelope = parseErrorEnvelope(response.body);
  return new UpstreamError({
    kind: 'http',
    method: call.method,
    route: call.route,
    status: response.status,
    upstreamCode: envelope.code,
    message: envelope.message ?? `HTTP ${response.status} from ${routeLabel(call)}`,
    fields: envelope.fields,
    ...(response.status === 429
      ? { retryAfterSec: retryAfterSeconds(envelope, response.headers) }
      : {}),
    ...(envelope.requiredScope ? { requiredScope: envelope.requiredScope } : {}),
    // A write answered 5xx may or may not have been applied.
    outcomeUnknown: response.status >= 500 && !isRetryableMethod(call.method, call.idempotent),
  });
}

/** A write that failed after it may have reached the upstream: its outcome is unknown. */
function withUnknownOutcome(call: UpstreamCall, error: UpstreamError): UpstreamError {
  if (
    isRetryableMethod(call.method, call.idempotent) ||
    wasNotSent(error) ||
    error.outcomeUnknown
  ) {
    return error;
  }
  return new UpstreamError({
    kind: error.kind,
    method: error.method,
    route: error.route,
    message: error.message,
    outcomeUnknown: true,
    cause: error.cause,
  });
}

export function createUpstreamClient<Call extends UpstreamCall>(
  options: UpstreamClientOptions<Call>,
): UpstreamClient<Call> {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));

  const deadlineError = (call: UpstreamCall, cause?: unknown) =>
    withUnknownOutcome(
      call,
      new UpstreamError({
        kind: 'timeout',
        method: call.method,
        route: call.route,
        message: `Upstream did not answer ${routeLabel(call)} within the deadline`,
        cause,
      }),
    );

  return {
    async request<T>(call: Call): Promise<UpstreamResponse<T>> {
      const deadline = now() + (call.deadlineMs ?? options.deadlineMs);
      // A streamed body can be read once: it is never resent, whatever the method.
      const retryable = isRetryableMethod(call.method, call.idempotent) && !isStreamBody(call.body);
      const maxAttempts = retryable ? options.retry.maxAttempts : 1;

      for (let attempt = 1; ; attempt += 1) {
        const remaining = deadline - now();
        if (remaining <= 0) throw deadlineError(call);
        const attemptSignal = attemptDeadline(remaining, call.signal);
        const started = now();
        let response: RawResponse;
        try {
          // The attempt's timer and caller listener end with it, answered or failed.
          response = await options.transport
            .send(call, attemptSignal.signal, deadline)
            .finally(attemptSignal.release);
        } catch (error) {
          if (!(error instanceof UpstreamError)) throw error;
          const canRetry =
            attempt < maxAttempts && (error.kind === 'network' || error.kind === 'timeout');
          const wait = backoffDelayMs(attempt, options.retry, random);
          if (canRetry && now() + wait < deadline) {
            await sleep(wait);
            continue;
          }
          throw error.kind === 'timeout'
            ? deadlineError(call, error.cause)
            : withUnknownOutcome(call, error);
        }

        const rateLimit = parseRateLimitHeaders(response.headers);
        options.observe?.({
          call,
          status: response.status,
          rateLimit,
          durationMs: now() - started,
          attempt,
        });
        if (response.status >= 200 && response.status < 300) {
          return {
            status: response.status,
            data: response.body as T,
            headers: response.headers,
            rateLimit,
          };
        }

        const error = httpError(call, response);
        if (attempt < maxAttempts) {
          const wait =
            response.status === 429
              ? (error.retryAfterSec ?? 1) * 1000
              : isRetryableStatus(response.status)
                ? backoffDelayMs(attempt, options.retry, random)
                : undefined;
          if (wait !== undefined && now() + wait < deadline) {
            await sleep(wait);
            continue;
          }
        }
        throw error;
      }
    },
    probe: (timeoutMs = 2_000) => options.transport.probe(AbortSignal.timeout(timeoutMs)),
    close: () => options.transport.close(),
  };
}
