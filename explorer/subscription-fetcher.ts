/**
 * Subscriptions from the explorer, over GraphQL over SSE (graphql-sse's client, "distinct
 * connections" mode: one POST per subscription, answered with an event stream).
 *
 * Why SSE and not graphql-ws (docs/try-it.md "The explorer"): an SSE subscription is a
 * POST like every other run, so it carries the Headers tab as it is — `Authorization`, `X-Store-Id`,
 * any header the user types — and the explorer's own `Weft-Priority` and `Weft-Ledger`. A WebSocket
 * cannot carry headers: the token would have to be copied into connection parameters, where the
 * gateway reads only the token and `Weft-Ledger`, and the connection would outlive a token edited in
 * the Headers tab. Under the page's `connect-src 'self'` both work; SSE needs nothing more.
 */
import type { FetcherParams } from '@graphiql/toolkit';
import { createClient, NetworkError, type ExecutionResult } from 'graphql-sse';

/** The Headers tab's values as HTTP headers: strings, null and undefined dropped. */
export function headerValues(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return out;
  for (const [name, value] of Object.entries(headers)) {
    if (value === null || value === undefined) continue;
    out[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}

/**
 * A refusal answered before the stream (a non-2xx status with a GraphQL JSON body, e.g. 429) is
 * shown as the one result it is; any other failure is thrown (GraphiQL shows it as an error).
 */
async function refusalOf(
  error: unknown,
): Promise<ExecutionResult<Record<string, unknown>, unknown> | undefined> {
  if (!(error instanceof NetworkError) || !error.response) return undefined;
  try {
    const body: unknown = await (error.response as Response).json();
    if (typeof body === 'object' && body !== null && 'errors' in body)
      return body as ExecutionResult<Record<string, unknown>, unknown>;
  } catch {
    // Not JSON: the status line is the message.
  }
  return undefined;
}

/**
 * Runs one subscription: its events as an async iterator, ending when the server completes the
 * stream. `return()` (GraphiQL's stop button) closes the connection at once, even between events.
 */
export function subscribeOverSse(
  endpoint: string,
  params: FetcherParams,
  headers: Record<string, string>,
): AsyncIterableIterator<ExecutionResult<Record<string, unknown>, unknown>> {
  const client = createClient({
    url: endpoint,
    singleConnection: false,
    headers,
    // A retry would run the subscription again behind the user's back (and spend its polls).
    retryAttempts: 0,
  });
  const events = client.iterate({
    query: params.query,
    ...(params.variables ? { variables: params.variables } : {}),
    ...(params.operationName ? { operationName: params.operationName } : {}),
  });
  let ended = false;
  const end = () => {
    ended = true;
    client.dispose();
  };
  const iterator: AsyncIterableIterator<ExecutionResult<Record<string, unknown>, unknown>> = {
    async next() {
      if (ended) return { done: true, value: undefined };
      try {
        const step = await events.next();
        if (step.done) end();
        return step;
      } catch (error) {
        end();
        const refusal = await refusalOf(error);
        if (refusal) return { done: false, value: refusal };
        throw error;
      }
    },
    async return() {
      end();
      await events.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
