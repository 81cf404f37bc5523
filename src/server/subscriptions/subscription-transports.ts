/**
 * Subscriptions over both transports on the GraphQL path: graphql-ws on WebSocket upgrades and
 * GraphQL over SSE (served by the GraphQL route for a subscription POST that asks for
 * `text/event-stream`). Both run the operation pipeline's checks. Contexts come from the same
 * `createGatewayContext` as HTTP requests. On shutdown the watches complete first (each client sees
 * its stream complete), then the remaining streams and sockets close, so `close()` does not wait
 * on long-lived connections.
 *
 * Each transport's module — graphql-ws with ws, graphql-sse — loads with its first subscription,
 * not at start-up (docs/deploy.md "Start-up"): most processes serve queries first, and the first
 * subscription waits only for that import, a few milliseconds.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { CredentialFactory } from '../../upstream/credential.ts';
import type { GraphQLSseTransport } from './graphql-sse.transport.ts';
import type { GraphQLWsTransport } from './graphql-ws.transport.ts';
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

const pathOf = (url: string | undefined): string => (url ?? '').split('?')[0] ?? '';

/** Registers graphql-ws and the shutdown of both; returns SSE for the GraphQL route to serve. */
export function registerSubscriptionTransports(
  app: FastifyInstance,
  options: SubscriptionTransportOptions,
): GraphQLSseTransport {
  let sse: Promise<GraphQLSseTransport> | undefined;
  let ws: Promise<GraphQLWsTransport> | undefined;
  const sseTransport = () =>
    (sse ??= import('./graphql-sse.transport.ts').then(({ createGraphQLSse }) =>
      createGraphQLSse(options),
    ));
  const wsTransport = () =>
    (ws ??= import('./graphql-ws.transport.ts').then(({ createGraphQLWs }) =>
      createGraphQLWs(options),
    ));

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOf(request.url) !== options.path) {
      socket.destroy();
      return;
    }
    // Node no longer watches an upgraded socket: until ws takes it, an error must not go unheard.
    const destroyOnError = () => socket.destroy();
    socket.on('error', destroyOnError);
    wsTransport().then(
      (transport) => {
        socket.off('error', destroyOnError);
        if (!socket.destroyed) transport.handleUpgrade(request, socket, head);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'the WebSocket transport could not be loaded');
        socket.destroy();
      },
    );
  };
  app.server.on('upgrade', onUpgrade);

  app.addHook('preClose', async () => {
    // Let the completions reach the clients before the streams are cut (the leases' release, on
    // Redis, takes at least as long).
    await Promise.all([options.endWatches(), new Promise((resolve) => setImmediate(resolve))]);
    (await sse)?.close();
    app.server.off('upgrade', onUpgrade);
    await (await ws)?.close();
  });

  return {
    serve: async (request, reply) => (await sseTransport()).serve(request, reply),
    close: () => void sse?.then((transport) => transport.close()),
  };
}
