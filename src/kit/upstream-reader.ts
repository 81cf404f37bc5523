/**
 * The one way a domain reads from the upstream on behalf of a request: a GET through the upstream
 * client as the request's caller, so the credential, the request scope and the options travel the
 * same path for every domain.
 */
import { callerOf, type RequestScope } from '../upstream/request-scope.ts';
import type { QueryValue } from '../upstream/upstream-call.ts';
import type { UpstreamClient } from '../upstream/upstream-call.ts';

export interface ReadOptions {
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal | undefined;
  /** Skip a cached answer (polling). */
  readonly fresh?: boolean;
}

/** GETs `route` with its path parameters and returns the parsed body. */
export type UpstreamReader = <T>(
  route: string,
  params: Readonly<Record<string, string>>,
  options?: ReadOptions,
) => Promise<T>;

/** The reader of one request's domain API. */
export function createUpstreamReader(
  upstream: UpstreamClient,
  scope: RequestScope,
): UpstreamReader {
  return async <T>(
    route: string,
    params: Readonly<Record<string, string>>,
    options: ReadOptions = {},
  ): Promise<T> => {
    const response = await upstream.request<T>({
      method: 'GET',
      route,
      params,
      ...(options.query ? { query: options.query } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.fresh ? { fresh: true } : {}),
      ...callerOf(scope),
    });
    return response.data;
  };
}
