/**
 * The gateway's production policy, assembled in one place (docs/security.md): operation limits,
 * the HTTP policy of the GraphQL endpoint, persisted operations (APQ or trusted documents),
 * idempotent mutations and the self-hosted explorer. `create-gateway.ts` spreads its Apollo options
 * and plugins; observability plugins (metrics, tracing) belong in that plugin list too.
 */
import type { ApolloServerOptions, ApolloServerPlugin } from '@apollo/server';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { RedisConnection } from '../upstream/redis-connection.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import { registerExplorer } from './explorer/explorer.routes.ts';
import { registerGraphqlHttpPolicy } from './http-policy/graphql-http-policy.ts';
import { idempotencyPlugin } from './idempotency/idempotency.plugin.ts';
import {
  createMemoryIdempotencyStore,
  type IdempotencyStore,
} from './idempotency/idempotency-store.ts';
import { createRedisIdempotencyStore } from './idempotency/redis-idempotency-store.ts';
import { registerDocumentGuard } from './limits/document-guard.hook.ts';
import { operationCostPlugin } from './limits/operation-cost.plugin.ts';
import { operationLimitsOf } from './limits/operation-limits.ts';
import { createOperationShapeRule } from './limits/operation-shape.rule.ts';
import { createSubscriptionGuard, type SubscriptionGuard } from './limits/subscription-guard.ts';
import { createPersistedOperations } from './persisted-operations/persisted-operations.ts';

/** A claim on an idempotency key outlives any mutation; it only matters if a replica dies mid-request. */
const IDEMPOTENCY_LOCK_MS = 5 * 60_000;

/** What `create-gateway.ts` takes from the policy. */
export interface ProductionPolicy {
  /** Options for `new ApolloServer(…)`. */
  readonly apolloOptions: Pick<
    ApolloServerOptions<GatewayContext>,
    'validationRules' | 'parseOptions' | 'persistedQueries'
  >;
  /** Apollo plugins: the cost limit and idempotency. */
  readonly plugins: ApolloServerPlugin<GatewayContext>[];
  /** The limits and trusted documents for subscriptions (they bypass Apollo's pipeline). */
  readonly subscriptionGuard: SubscriptionGuard;
  /** Releases what the policy holds (today nothing: it borrows the stack's Redis connection). */
  close(): Promise<void>;
}

/** Registers the policy's Fastify hooks and routes on `app` and returns what Apollo needs. */
export async function createProductionPolicy(
  app: FastifyInstance,
  config: Config,
  logger: FastifyBaseLogger,
  graphqlPath: string,
  /** The upstream stack's connection (one per process); its owner closes it. */
  redis: RedisConnection | undefined,
): Promise<ProductionPolicy> {
  const limits = operationLimitsOf(config);
  const persisted = await createPersistedOperations({
    ttlSec: config.APQ_TTL_SEC,
    trustedDocumentsPath: config.TRUSTED_DOCUMENTS_PATH,
    redis: redis && { client: redis.client, keyPrefix: config.REDIS_KEY_PREFIX },
    logger,
  });
  registerGraphqlHttpPolicy(app, graphqlPath);
  registerDocumentGuard(app, { graphqlPath, limits, trusted: persisted.trusted });
  if (config.EXPLORER) await registerExplorer(app, { graphqlPath });

  const store: IdempotencyStore = redis
    ? createRedisIdempotencyStore({ connection: redis, prefix: config.REDIS_KEY_PREFIX, logger })
    : createMemoryIdempotencyStore();
  return {
    apolloOptions: {
      validationRules: [createOperationShapeRule(limits)],
      // A backstop for documents that reach the parser without the document guard's count.
      parseOptions: { maxTokens: limits.maxTokens },
      persistedQueries: persisted.apolloOptions,
    },
    subscriptionGuard: createSubscriptionGuard(limits, persisted.trusted),
    plugins: [
      operationCostPlugin<GatewayContext>(limits),
      idempotencyPlugin({
        store,
        ttlMs: config.IDEMPOTENCY_TTL_SEC * 1000,
        waitMs: config.IDEMPOTENCY_WAIT_MS,
        lockMs: Math.max(IDEMPOTENCY_LOCK_MS, config.IDEMPOTENCY_WAIT_MS),
      }),
    ],
    // Nothing of its own to close: the Redis connection belongs to the upstream stack.
    close: async () => undefined,
  };
}
