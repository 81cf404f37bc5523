/**
 * Assembles the gateway: upstream client, schema, Apollo Server on Fastify, health routes.
 * `main.ts` and the tests call {@link createGateway}; nothing here reads the environment.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { formatGraphQLError } from '../errors/graphql-errors.js';
import { buildLocalSchema } from '../graph/build-schema.js';
import { bearerToken, createCredentialFactory } from '../upstream/credential.js';
import { createUpstreamStack } from '../upstream/create-upstream-stack.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { requestLifecyclePlugin } from './apollo-plugins.js';
import { createGatewayContext, type GatewayContext } from './context.js';
import { registerHealthRoutes } from './health.routes.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';

export interface Gateway {
  readonly app: FastifyInstance;
  readonly upstream: UpstreamClient;
  /** Listens and returns the base URL (`http://host:port`). */
  listen(): Promise<string>;
  /** Stops accepting, finishes in-flight requests, closes the upstream pools. */
  close(): Promise<void>;
}

export async function createGateway(
  config: Config,
  logger: Logger,
  upstreamUrl: string,
): Promise<Gateway> {
  const credentialFor = createCredentialFactory(config.CREDENTIAL_HMAC_SECRET);
  const upstreamStack = createUpstreamStack(config, logger as FastifyBaseLogger, upstreamUrl);
  const { client: upstream, budget } = upstreamStack;

  const schema = await buildLocalSchema();
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: requestIdOf,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  // While shutting down, responses to in-flight requests close their keep-alive connection, so the
  // server can finish instead of waiting out the clients' idle sockets.
  let closing = false;
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  const apollo = new ApolloServer<GatewayContext>({
    schema,
    introspection: config.INTROSPECTION,
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    plugins: [
      fastifyApolloDrainPlugin(app),
      ApolloServerPluginLandingPageDisabled(),
      requestLifecyclePlugin(),
    ],
  });
  await apollo.start();

  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    handler: fastifyApolloHandler(apollo, {
      context: async (request) => {
        const token = bearerToken(request.headers.authorization);
        return createGatewayContext(
          { upstream, budget },
          {
            requestId: request.id,
            credential: token ? credentialFor(token) : undefined,
            logger: request.log,
          },
        );
      },
    }),
  });

  registerHealthRoutes(app, { schemaReady: () => true, upstreamReachable: () => upstream.probe() });

  return {
    app,
    upstream,
    async listen() {
      await app.listen({ port: config.PORT, host: config.HOST });
      const address = app.server.address();
      if (address === null || typeof address === 'string')
        throw new Error('gateway has no TCP address');
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
    },
    async close() {
      closing = true;
      await app.close();
      await upstreamStack.close();
    },
  };
}
