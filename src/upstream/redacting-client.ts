/**
 * The redaction layer, right above the upstream client: a route's declared `redact` runs on every
 * successful answer before the cache stores it or anything else reads it, so what is sensitive is
 * never held at rest, in a log or in a resolver — and a cached answer looks like a fresh one.
 */
import type { UpstreamResponse } from './upstream-call.ts';
import type { UpstreamClient } from './upstream-call.ts';
import type { RoutedCall } from './upstream-routes.ts';

export function createRedactingClient(
  inner: UpstreamClient<RoutedCall>,
): UpstreamClient<RoutedCall> {
  return {
    async request<T>(call: RoutedCall) {
      const redact = call.declared?.redact;
      const response = await inner.request<T>(call);
      if (!redact) return response;
      return { ...response, data: redact(response.data) as T } satisfies UpstreamResponse<T>;
    },
    probe: (timeoutMs) => inner.probe(timeoutMs),
    close: () => inner.close(),
  };
}
