/**
 * Reading the upstream's conventions off a response: the error envelope `{code, message, fields}`,
 * the 429 wait (`retryAfterSec` body, `Retry-After` header, else `RateLimit-Reset`), and the
 * `RateLimit-*` headers.
 */
import type { UpstreamFieldError } from '../errors/gateway-errors.ts';
import type { RateLimitHeaders } from './upstream-call.ts';

export interface ErrorEnvelope {
  code: string | undefined;
  message: string | undefined;
  fields: UpstreamFieldError[];
  retryAfterSec: number | undefined;
  requiredScope: string | undefined;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function parseErrorEnvelope(body: unknown): ErrorEnvelope {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const fields = Array.isArray(b.fields)
    ? b.fields
        .filter((f): f is Record<string, unknown> => typeof f === 'object' && f !== null)
        .map((f) => ({
          path: str(f.path) ?? '$',
          code: str(f.code) ?? '',
          message: str(f.message) ?? '',
        }))
    : [];
  const retry =
    typeof b.retryAfterSec === 'number' && b.retryAfterSec >= 0 ? b.retryAfterSec : undefined;
  return {
    code: str(b.code),
    message: str(b.message),
    fields,
    retryAfterSec: retry,
    requiredScope: str(b.requiredScope),
  };
}

const header = (headers: Record<string, string>, name: string): string | undefined =>
  headers[name.toLowerCase()];

/** `Retry-After` as seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

export function parseRateLimitHeaders(
  headers: Record<string, string>,
): RateLimitHeaders | undefined {
  const limit = Number(header(headers, 'ratelimit-limit'));
  const remaining = Number(header(headers, 'ratelimit-remaining'));
  const resetSec = Number(header(headers, 'ratelimit-reset'));
  if (![limit, remaining, resetSec].every((n) => Number.isFinite(n) && n >= 0)) return undefined;
  if (header(headers, 'ratelimit-limit') === undefined) return undefined;
  return { limit, remaining, resetSec };
}

/** Seconds a 429 asks us to wait: body, then Retry-After, then RateLimit-Reset, then 1. */
export function retryAfterSeconds(
  envelope: ErrorEnvelope,
  headers: Record<string, string>,
): number {
  return (
    envelope.retryAfterSec ??
    parseRetryAfter(header(headers, 'retry-after')) ??
    parseRateLimitHeaders(headers)?.resetSec ??
    1
  );
}
