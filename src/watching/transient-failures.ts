/**
 * Which failed polls a watch waits out and which end it. Timeouts, network failures, 5xx and rate
 * limiting pass (the next poll may well answer), a few times in a row; anything else, or one too
 * many, is the watch's last event. The poll loop backs off between tries (`poll-loop.ts`), never
 * sooner than a rate-limited answer asked.
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError, UpstreamError } from '../errors/gateway-errors.ts';

/** Seconds a rate-limited poll should wait, when the failure says so. */
function retryAfterMs(error: unknown): number | undefined {
  if (error instanceof UpstreamError && error.retryAfterSec !== undefined) {
    return error.retryAfterSec * 1000;
  }
  if (error instanceof GatewayError && typeof error.details.retryAfterSec === 'number') {
    return error.details.retryAfterSec * 1000;
  }
  return undefined;
}

function isTransient(error: unknown): boolean {
  if (error instanceof UpstreamError) {
    if (error.kind === 'timeout' || error.kind === 'network') return true;
    return error.kind === 'http' && (error.status === 429 || (error.status ?? 0) >= 500);
  }
  return (
    error instanceof GatewayError &&
    (error.code === ErrorCode.RATE_LIMITED || error.code === ErrorCode.UPSTREAM_UNAVAILABLE)
  );
}

/** A failure to wait out: how many in a row so far, and the least wait the upstream asked for. */
export interface Tolerated {
  readonly inRow: number;
  readonly retryAfterMs: number;
}

/** One watch's failures in a row. */
export class TransientFailures {
  #inRow = 0;
  readonly #limit: number;

  /** `limit`: consecutive transient failures tolerated before the watch ends with the last one. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Counts a failed poll: how to wait it out, or undefined when the watch ends with it. */
  tolerate(error: unknown): Tolerated | undefined {
    this.#inRow += 1;
    if (!isTransient(error) || this.#inRow > this.#limit) return undefined;
    return { inRow: this.#inRow, retryAfterMs: retryAfterMs(error) ?? 0 };
  }

  /** A poll answered. */
  reset(): void {
    this.#inRow = 0;
  }
}
