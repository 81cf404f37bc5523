/**
 * Assembles the gateway: upstream client, schema, Apollo Server on Fastify, health routes.
 * `main.ts` and the tests call {@link createGateway}; nothing here reads the environment.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { buildGatewaySchema } from '../graph/build-schema.ts';
import { upstreamRoutes } from '../graph/upstream-routes.ts';
import { createCredentialFactory } from '../upstream/credential.ts';
import { createRequestCredential } from './request-credential.ts';
import { createUpstreamStack } from '../upstream/create-upstream-stack.ts';
import type { UpstreamClient } from '../upstream/upstream-call.ts';
import { createGatewayContext } from '../kit/request-context.ts';
import { createPollerRegistry } from '../watching/poller-registry.ts';
import { registerSubscriptionTransports } from './subscriptions/subscription-transports.ts';
import { createRedisWatchRelay } from '../watching/redis-watch-relay.ts';
import { registerHealthRoutes } from './health.routes.ts';
import { createRequestPolicy } from './request-policy.ts';
import { createGraphqlResponseCache } from './response-cache/graphql-response-cache.ts';
import { responseReplayPlugin } from './response-cache/response-replay.hook.ts';
import { createResultEncoding } from './response-cache/result-encoding.ts';
import { createHeldReplays } from './response-cache/held-replays.ts';
import { graphqlRoute } from './graphql-route/graphql-route.plugin.ts';
import { registerCors } from './cors.ts';
import { startIdleMemoryRelease } from './idle-memory-release.ts';
import { createGatewayMetrics } from '../observability/metrics.ts';
import { registerMetricsRoute } from '../observability/metrics.routes.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { registerProxyWarnings } from './proxy-warnings.ts';
import { createDrainDeadline, drainSchedule } from './shutdown/drain-deadline.ts';
import { verifyWithOf } from '../graph/write-verification.ts';
import { createFastifyApp } from './fastify-app.ts';
import { createApolloServer } from './apollo/apollo-server.ts';
import { createResponseErrors } from './response-errors.ts';
import { createRequestContexts } from './request-contexts.ts';

const GRAPHQL_PATH = '/graphql';
const MCP_PATH = '/mcp';

/**
 * The lease of a watch's poll loop across replicas: two minimum poll intervals, so that a holder that
 * dies is replaced within about as long as two polls; never under five Redis command timeouts, so
 * that one slow renewal does not hand the lease over.
 */
const watchLeaseMs = (config: Config): number =>
  Math.max(2 * config.SUBSCRIPTION_POLL_MIN_MS, 5 * config.REDIS_COMMAND_TIMEOUT_MS);

export interface Gateway {
  readonly app: FastifyInstance;
  readonly upstream: UpstreamClient;
  /** Listens and returns the base URL (`http://host:port`). */
  listen(): Promise<string>;
  /**
   * Stops accepting; ends subscriptions (SSE streams complete, WebSockets close with 1001); lets
   * in-flight requests finish for up to SHUTDOWN_TIMEOUT_MS, answers the operations still executing
   * 503 SHUTTING_DOWN just before it ends, then cuts the connections still open; closes the
   * upstream pool, Redis and tracing.
   */
  close(): Promise<void>;
}

export async function createGateway(
  config: Config,
  logger: Logger,
  upstreamUrl: string,
  /** The budgets' clock (`UpstreamObservers.now`): tests only; production leaves it to Redis. */
  clock: { readonly now?: () => number } = {},
): Promise<Gateway> {
  const credentialFor = createCredentialFactory(config.CREDENTIAL_HMAC_SECRET);
  const credentialOf = createRequestCredential(credentialFor);
  const metrics = config.METRICS ? createGatewayMetrics() : undefined;
  const tracing =
    config.TRACING === 'off'
      ? undefined
      : await import('../observability/tracing.ts').then(({ loadTracing }) =>
          loadTracing(
            config,
            (logger as FastifyBaseLogger).child({ component: 'tracing' }),
            upstreamUrl,
          ),
        );
  const upstreamStack = await createUpstreamStack(
    config,
    logger as FastifyBaseLogger,
    upstreamUrl,
    upstreamRoutes(),
    { metrics, tracing, now: clock.now },
  );
  const { client: upstream, budget } = upstreamStack;
  const pollers = createPollerRegistry({
    minIntervalMs: config.SUBSCRIPTION_POLL_MIN_MS,
    maxIntervalMs: config.SUBSCRIPTION_POLL_MAX_MS,
    maxLifetimeMs: config.SUBSCRIPTION_MAX_LIFETIME_MS,
    logger: logger as FastifyBaseLogger,
    replicas:
      upstreamStack.redis && config.SUBSCRIPTION_SHARED_POLLING === 'replicas'
        ? {
            relay: createRedisWatchRelay({
              connection: upstreamStack.redis,
              prefix: config.REDIS_KEY_PREFIX,
            }),
            leaseMs: watchLeaseMs(config),
          }
        : undefined,
  });
  const contextDeps = { upstream, budget, pollers };
  const contexts = createRequestContexts({ services: contextDeps, credentialOf, metrics, tracing });
  // One formatter of errors for Apollo, answers in parts and subscription events alike.
  const responseErrors = createResponseErrors({
    hideSuggestions: config.NODE_ENV === 'production',
  });

  const schema = await buildGatewaySchema();
  const app = createFastifyApp(config, logger as FastifyBaseLogger);
  app.decorateRequest('operationLog', undefined);
  // Memory a burst grew is given back in the next quiet moment (docs/deploy.md "Memory").
  const memoryRelease = startIdleMemoryRelease({
    idleMs: config.MEMORY_RELEASE_IDLE_MS,
    server: app.server,
    logger: app.log,
  });
  // Callback hooks here and below: an async hook costs a promise and a microtask on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // What TRUST_PROXY costs, once (behind a proxy it does not believe, or believing any).
  registerProxyWarnings(app, config);
  // The SERVER span of each GraphQL request (docs/observability.md), from its first hook on.
  tracing?.traceRoute(app, GRAPHQL_PATH);
  // While shutting down, responses to in-flight requests close their keep-alive connection, so the
  // server can finish instead of waiting out the clients' idle sockets.
  let closing = false;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // Which web origins' pages may call the graph (before any route: preflights end here).
  await registerCors(app, config);
  // The operation pipeline, persisted operations, idempotency, explorer (docs/security.md).
  const policy = await createRequestPolicy(
    app,
    config,
    app.log,
    GRAPHQL_PATH,
    upstreamStack.redis,
    credentialOf,
  );
  const responseCache =
    config.RESPONSE_CACHE && upstreamStack.cache
      ? createGraphqlResponseCache(upstreamStack.cache)
      : undefined;
  // A replayable answer's data is encoded once, for the cache and for the answer itself.
  const resultEncoding = createResultEncoding();
  // What answers an operation the shutdown deadline catches still executing.
  const drain = createDrainDeadline({ verifyWithOf });

  const apollo = createApolloServer({
    config,
    schema,
    policy,
    resultEncoding,
    responseErrors,
    plugins: {
      metrics,
      tracing,
      drain: drain.plugin,
      replayStore:
        responseCache &&
        responseReplayPlugin(
          responseCache,
          createHeldReplays({
            max: config.RESPONSE_CACHE_MAX_PER_CREDENTIAL,
            redis: upstreamStack.redis,
            prefix: config.REDIS_KEY_PREFIX,
            logger: app.log,
          }),
          resultEncoding,
        ),
    },
  });
  await apollo.start();

  const sse = registerSubscriptionTransports(app, {
    path: GRAPHQL_PATH,
    schema,
    credentialFor,
    logger: app.log,
    isProduction: config.NODE_ENV === 'production',
    errors: responseErrors,
    createContext: (request) => createGatewayContext(contextDeps, request),
    pipeline: policy.pipeline,
    endWatches: () => pollers.closeAll(),
  });

  await app.register(graphqlRoute, {
    path: GRAPHQL_PATH,
    apollo,
    pipeline: policy.pipeline,
    credentialOf,
    sse,
    drain,
    maxUploadBytes: config.UPLOAD_MAX_BYTES,
    explorer: policy.explorer,
    apqRegistration: policy.apqRegistration,
    replay: responseCache && { cache: responseCache, credentialOf, metrics, budget },
    contextOf: async (request, reply) => drain.contextOf(request, contexts.graphql(request, reply)),
  });

  // Agents' tools (docs/agents.md): the SDK and everything of MCP load only when it is on.
  if (config.MCP === 'on') {
    tracing?.traceRoute(app, MCP_PATH);
    const { registerMcpEndpoint } = await import('./mcp/mcp-endpoint.ts');
    const { tools } = await registerMcpEndpoint(app, {
      path: MCP_PATH,
      config,
      schema,
      apollo,
      pipeline: policy.pipeline,
      trusted: policy.trusted,
      credentialOf,
      budget,
      metrics,
      logger: app.log,
      contextOf: contexts.mcp,
    });
    app.log.info({ path: MCP_PATH, tools }, 'MCP endpoint serving its tools');
  }

  if (metrics) registerMetricsRoute(app, metrics);
  const { redis } = upstreamStack;
  registerHealthRoutes(app, {
    schemaReady: () => true,
    upstreamReachable: () => upstream.probe(),
    sharedState: redis && (() => redis.sharedState()),
  });

  return {
    app,
    upstream,
    async listen() {
      // Redis's first connection (a cluster's first discovery) has settled before the first
      // request, at most REDIS_CONNECT_TIMEOUT_MS after start-up began: no request waits for it.
      await redis?.usable();
      await app.listen({ port: config.PORT, host: config.HOST });
      const address = app.server.address();
      if (address === null || typeof address === 'string')
        throw new Error('gateway has no TCP address');
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
    },
    async close() {
      closing = true;
      memoryRelease.stop();
      const { answerAtMs, cutAtMs } = drainSchedule(config.SHUTDOWN_TIMEOUT_MS);
      // The operations still executing get a SHUTTING_DOWN answer, and their connections close
      // once it is written (connection: close); a client then knows to retry, and a mutation's
      // client that it must read before it does (shutdown/drain-deadline.ts).
      const answer = setTimeout(() => {
        const requests = drain.answerAll();
        if (requests === 0) return;
        app.log.warn(
          { timeoutMs: config.SHUTDOWN_TIMEOUT_MS, requests },
          'in-flight requests outlived the shutdown bound; answering them SHUTTING_DOWN',
        );
      }, answerAtMs);
      // What is still open then (a request not executing yet, a client not reading its answer).
      const cut = setTimeout(() => {
        app.log.warn(
          { timeoutMs: config.SHUTDOWN_TIMEOUT_MS },
          'connections outlived the shutdown bound; closing them',
        );
        app.server.closeAllConnections();
      }, cutAtMs);
      try {
        await app.close();
      } finally {
        clearTimeout(answer);
        clearTimeout(cut);
      }
      await apollo.stop();
      await upstreamStack.close();
      await policy.close();
      await tracing?.shutdown();
    },
  };
}
