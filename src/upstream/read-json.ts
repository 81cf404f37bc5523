/**
 * The one shape of a GET through the upstream client on behalf of a request: every domain API reads
 * this way, so the credential, the request scope and the options travel the same path.
 */
import { callerOf, type RequestScope } from './request-scope.ts';
import type { QueryValue } from './upstream-call.ts';
import type { UpstreamClient } from './upstream-client.ts';

export interface ReadOptions {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** Skip a cached answer (polling). */
  readonly fresh?: boolean;
}

/** GET `route` as the request's caller and return the parsed body. */
export async function readJson<T>(
  upstream: UpstreamClient,
  scope: RequestScope,
  route: string,
  options: ReadOptions = {},
): Promise<T> {
  const response = await upstream.request<T>({
    method: 'GET',
    route,
    params: options.params ?? {},
    ...(options.query ? { query: options.query } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.fresh ? { fresh: true } : {}),
    ...callerOf(scope),
  });
  return response.data;
}
