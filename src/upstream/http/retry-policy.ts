/**
 * When a call may be sent again, and how long to wait first.
 * - Only GET (and calls explicitly marked idempotent) are ever retried: the seeds say GETs are safe to
 *   retry and that a write must not be resubmitted before the current state has been read.
 * - Retried on network errors, timeouts of one attempt, and 502/503/504.
 * - Exponential backoff with full jitter (sleep = random(0, min(cap, base·2^attempt))).
 * - A 429 is never retried sooner than its Retry-After; if that wait passes the deadline the caller
 *   gets RATE_LIMITED with `retryAfterSec` instead.
 */
import type { HttpMethod } from '../upstream-call.ts';

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 100,
  maxDelayMs: 2_000,
};

const RETRYABLE_STATUS = new Set([502, 503, 504]);

export const isRetryableMethod = (method: HttpMethod, idempotent = false): boolean =>
  method === 'GET' || idempotent;

export const isRetryableStatus = (status: number): boolean => RETRYABLE_STATUS.has(status);

/** Full-jitter delay before attempt `attempt + 1` (attempt counts from 1). */
export function backoffDelayMs(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}
