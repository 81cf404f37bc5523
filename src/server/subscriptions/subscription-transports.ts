/**
 * Subscriptions over both transports on the GraphQL path: graphql-ws on WebSocket upgrades and
 * GraphQL over SSE on `POST` with `Accept: text/event-stream`. Contexts come from the same
 * `createGatewayContext` as HTTP requests. On shutdown the watches complete first (each client sees
 * its stream complete), then the remaining streams and sockets close, so `close()` does not wait
 * on long-lived connections.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { CredentialFactory } from '../../upstream/credential.ts';
import { registerGraphQLSse } from './graphql-sse.transport.ts';
import { registerGraphQLWs } from './graphql-ws.transport.ts';
import type { SubscriptionExecutionOptions } from './subscription-execution.ts';

export interface SubscriptionTransportOptions extends SubscriptionExecutionOptions {
  /** The GraphQL route (`/graphql`). */
  readonly path: string;
  readonly credentialFor: CredentialFactory;
  readonly logger: FastifyBaseLogger;
  readonly isProduction: boolean;
  /** Ends every running watch (the poller registry's `closeAll`). */
  readonly endWatches: () => void;
}

export function registerSubscriptionTransports(
  app: FastifyInstance,
  options: SubscriptionTransportOptions,
): void {
  const execution = {
    ...options,
    formatOptions: { hideSuggestions: options.isProduction, ...options.formatOptions },
  };
  const sse = registerGraphQLSse(app, execution);
  const ws = registerGraphQLWs(app, execution);
  app.addHook('preClose', async () => {
    options.endWatches();
    // Let the completions reach the clients before the streams are cut.
    await new Promise((resolve) => setImmediate(resolve));
    sse.close();
    await ws.close();
  });
}
