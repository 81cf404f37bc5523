/**
 * A mutation sent with an `Idempotency-Key` to a gateway process, as a client would over HTTP: the
 * status, the `Retry-After` of a refusal, whether it was a replay, and the body.
 */
import type { GatewayProcess } from './gateway-process.ts';

export interface KeyedAnswer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly replayed: boolean;
  readonly body: any;
}

export async function sendKeyed(
  replica: GatewayProcess,
  key: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<KeyedAnswer> {
  const response = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer demo-token',
      'idempotency-key': key,
    },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    replayed: response.headers.get('idempotent-replayed') === 'true',
    body: await response.json(),
  };
}
