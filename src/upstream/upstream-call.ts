/** The shape of one call through the upstream client, and of its answer. */
import type { Readable } from 'node:stream';
import type { Credential } from './credential.ts';
import type { RequestScope } from './request-scope.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** A streamed request body (multipart upload): sent as is, never buffered by the client. */
export interface StreamBody {
  readonly stream: Readable;
  readonly contentType: string;
}

export interface UpstreamCall {
  readonly method: HttpMethod;
  /**
   * Path template with `{param}` placeholders, e.g. `/things/{thingId}/parts`.
   * The template (not the filled path) names the call in errors, metrics and rate-limit classes.
   */
  readonly route: string;
  /** Values for the template's placeholders; each is URI-encoded. */
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** JSON body, or a stream. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly credential: Credential;
  /** The GraphQL request this call serves (absent for calls made outside a request). */
  readonly scope?: RequestScope;
  /** Marks a non-GET method as safe to retry (none of the seed operations is). */
  readonly idempotent?: boolean;
  /**
   * Skip a cached answer (the caller is polling for a change, e.g. a subscription): the call goes
   * upstream and its answer refreshes the cache.
   */
  readonly fresh?: boolean;
  /** Overrides the configured per-operation deadline. */
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
}

/** `RateLimit-Limit/Remaining/Reset` as sent by the upstream. */
export interface RateLimitHeaders {
  readonly limit: number;
  readonly remaining: number;
  readonly resetSec: number;
}

export interface UpstreamResponse<T> {
  readonly status: number;
  readonly data: T;
  readonly headers: Readonly<Record<string, string>>;
  readonly rateLimit: RateLimitHeaders | undefined;
}

export const isStreamBody = (body: unknown): body is StreamBody =>
  typeof body === 'object' &&
  body !== null &&
  'stream' in body &&
  typeof (body as StreamBody).stream?.pipe === 'function';

/** Fills `{param}` placeholders; a missing value is a programming error. */
export function fillRoute(route: string, params: Readonly<Record<string, string>> = {}): string {
  return route.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${route} needs parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** Query string with repeated keys for arrays; undefined values are left out. */
export function buildQuery(query: Readonly<Record<string, QueryValue>> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) search.append(key, item);
    else search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** Makes calls; `Call` is what its callers hand it (below the route lookup, a `RoutedCall`). */
export interface UpstreamClient<Call extends UpstreamCall = UpstreamCall> {
  request<T>(call: Call): Promise<UpstreamResponse<T>>;
  probe(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}
