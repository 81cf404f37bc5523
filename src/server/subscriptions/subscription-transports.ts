/**
 * Subscriptions over both transports on the GraphQL path: graphql-ws on WebSocket upgrades and
 * GraphQL over SSE (served by the GraphQL route for a subscription POST that asks for
 * `text/event-stream`). Both run the operation pipeline's checks. Contexts come from the same
 * `createGatewayContext` as HTTP requests. On shutdown the watches complete first (each client sees
 * its stream complete), then the remaining streams and sockets close, so `close()` does not wait
 * on long-lived connections.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { CredentialFactory } from '../../upstream/credential.ts';
import { createGraphQLSse, type GraphQLSseTransport } from './graphql-sse.transport.ts';
import { registerGraphQLWs } from './graphql-ws.transport.ts';
import type { SubscriptionExecutionOptions } from './subscription-execution.ts';

export interface SubscriptionTransportOptions extends SubscriptionExecutionOptions {
  /** The GraphQL route (`/graphql`). */
  readonly path: string;
  readonly credentialFor: CredentialFactory;
  readonly logger: FastifyBaseLogger;
  readonly isProduction: boolean;
  /** Ends every running watch (the poller registry's `closeAll`), releasing their leases. */
  readonly endWatches: () => Promise<void>;
}

/** Registers graphql-ws and the shutdown of both; returns SSE for the GraphQL route to serve. */
export function registerSubscriptionTransports(
  app: FastifyInstance,
  options: SubscriptionTransportOptions,
): GraphQLSseTransport {
  const execution = {
    ...options,
    formatOptions: { hideSuggestions: options.isProduction, ...options.formatOptions },
  };
  const sse = createGraphQLSse(execution);
  const ws = registerGraphQLWs(app, execution);
  app.addHook('preClose', async () => {
    // Let the completions reach the clients before the streams are cut (the leases' release, on
    // Redis, takes at least as long).
    await Promise.all([options.endWatches(), new Promise((resolve) => setImmediate(resolve))]);
    sse.close();
    await ws.close();
  });
  return sse;
}
