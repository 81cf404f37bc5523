/**
 * What every transport layer is (the HTTP attempt in `http/http-transport.ts` and the layers around
 * it: budget, breaker, refused credentials, metrics): the contract they share, and how a failed
 * attempt says whether the request ever left.
 */
import type { UpstreamError } from '../errors/gateway-errors.ts';
import type { UpstreamCall } from './upstream-call.ts';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** Sends attempts; `Call` is what its callers hand it (below the route lookup, a `RoutedCall`). */
export interface Transport<Call extends UpstreamCall = UpstreamCall> {
  /**
   * Sends one attempt; throws {@link UpstreamError} of kind network/timeout/too-large/refused.
   * `signal` ends it at the call's deadline, `deadlineAt` (ms, `Date.now` clock) says when that is.
   */
  send(call: Call, signal: AbortSignal, deadlineAt?: number): Promise<RawResponse>;
  /** Any HTTP answer from the origin (no credential, no budget): used by `/readyz`. */
  probe(signal: AbortSignal): Promise<boolean>;
  /**
   * Lets calls still under way finish for up to a grace period (`CLOSE_GRACE_MS`,
   * `http/http-transport.ts`), then aborts them.
   */
  close(): Promise<void>;
}

/** Errors raised before a single byte of the request left: a write that failed this way did not happen. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export const routeLabel = (call: Pick<UpstreamCall, 'method' | 'route'>): string =>
  `${call.method} ${call.route}`;

/** Whether an error from `send` means the request never reached the upstream. */
export const wasNotSent = (error: UpstreamError): boolean => {
  const cause = error.cause as { code?: string } | undefined;
  return error.kind === 'refused' || (cause?.code !== undefined && NOT_SENT_CODES.has(cause.code));
};
