/**
 * Subscription clients over real sockets: graphql-ws (with `ws`) and graphql-sse (with Node's
 * fetch), each collecting every result until the server completes the stream.
 */
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import WebSocket from 'ws';

export interface Collected {
  results: any[];
  /** Set when the transport itself failed (not a GraphQL error inside a result). */
  failure?: unknown;
}

export function wsClient(url: string, connectionParams: Record<string, unknown>): WsClient {
  return createWsClient({
    url: url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
}

/**
 * Subscribes over graphql-ws and resolves with every result once the server completes; `onResult`
 * hears each as it comes (to act while the stream is open).
 */
export async function collectWs(
  client: WsClient,
  query: string,
  variables: Record<string, unknown> = {},
  onResult?: (result: any) => void,
): Promise<Collected> {
  const results: any[] = [];
  try {
    for await (const result of client.iterate({ query, variables })) {
      results.push(result);
      onResult?.(result);
    }
    return { results };
  } catch (failure) {
    return { results, failure };
  }
}

/** Subscribes over GraphQL over SSE (distinct connections) and collects until `complete`. */
export async function collectSse(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  token: string | null = 'demo-token',
  onResult?: (result: any) => void,
  headers: Record<string, string> = {},
): Promise<Collected> {
  const client = createSseClient({
    url: `${url}/graphql`,
    singleConnection: false,
    retryAttempts: 0,
    headers: token === null ? headers : { ...headers, authorization: `Bearer ${token}` },
  });
  const results: any[] = [];
  try {
    for await (const result of client.iterate({ query, variables })) {
      results.push(result);
      onResult?.(result);
    }
    return { results };
  } catch (failure) {
    return { results, failure };
  } finally {
    client.dispose();
  }
}
