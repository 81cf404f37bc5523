/**
 * What every request meets, assembled in one place (docs/security.md), in development as in
 * production: the operation pipeline (limits, trusted documents), persisted operations (APQ),
 * idempotent mutations and the self-hosted explorer. `create-gateway.ts` hands them to Apollo (its
 * plugin list is apollo/apollo-plugins.ts), the GraphQL route and the subscription transports.
 */
import type { ApolloServerOptions, ApolloServerPlugin } from '@apollo/server';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { HookStep } from './graphql-route/hook-steps.ts';
import type { RequestCredential } from './request-credential.ts';
import { createCredentialQuota } from './credential-quota.ts';
import { createApqRegistrationHook } from './persisted-operations/apq-registration.hook.ts';
import type { Config } from '../config.ts';
import type { RedisConnection } from '../redis/redis-connection.ts';
import { watchRedisEpoch } from '../redis/redis-epoch.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import { registerExplorer, type ExplorerPage } from './explorer/explorer.routes.ts';
import { idempotencyPlugin } from './idempotency/idempotency.plugin.ts';
import {
  createMemoryIdempotencyStore,
  type IdempotencyStore,
} from './idempotency/idempotency-store.ts';
import { createRedisIdempotencyStore } from './idempotency/redis-idempotency-store.ts';
import { operationLimitsOf } from './limits/operation-limits.ts';
import { createOperationPipeline, type OperationPipeline } from './operation-pipeline.ts';
import { callBounds } from '../graph/call-bounds.ts';
import { createPersistedOperations } from './persisted-operations/persisted-operations.ts';
import type { TrustedDocuments } from './persisted-operations/trusted-documents.ts';

/** A claim on an idempotency key outlives any mutation; it only matters if a replica dies mid-request. */
const IDEMPOTENCY_LOCK_MS = 5 * 60_000;

/** What `create-gateway.ts` takes from the policy. */
export interface RequestPolicy {
  /** Options for `new ApolloServer(…)`. */
  readonly apolloOptions: Pick<
    ApolloServerOptions<GatewayContext>,
    'validationRules' | 'parseOptions' | 'persistedQueries'
  >;
  /** Idempotent mutations (`Idempotency-Key`), as an Apollo plugin. */
  readonly idempotency: ApolloServerPlugin<GatewayContext>;
  /** The checks every operation passes, for the GraphQL route and the subscription transports. */
  readonly pipeline: OperationPipeline;
  /** The trusted-documents manifest (TRUSTED_DOCUMENTS_PATH), whose operations MCP may serve. */
  readonly trusted: TrustedDocuments | undefined;
  /** The explorer's page (EXPLORER on), served by the GraphQL route. */
  readonly explorer: ExplorerPage | undefined;
  /** Who may register APQ documents (the GraphQL route's hook); absent with trusted documents. */
  readonly apqRegistration: HookStep | undefined;
  /**
   * Stops the policy's timers (the idempotency records' write-back, the Redis epoch check); the
   * Redis connection it borrows is the stack's to close.
   */
  close(): Promise<void>;
}

/** Registers the explorer's assets on `app` and returns the policy's parts. */
export async function createRequestPolicy(
  app: FastifyInstance,
  config: Config,
  logger: FastifyBaseLogger,
  graphqlPath: string,
  /** The upstream stack's connection (one per process); its owner closes it. */
  redis: RedisConnection | undefined,
  credentialOf: RequestCredential,
): Promise<RequestPolicy> {
  const limits = operationLimitsOf(config);
  const persisted = await createPersistedOperations({
    ttlSec: config.APQ_TTL_SEC,
    trustedDocumentsPath: config.TRUSTED_DOCUMENTS_PATH,
    redis: redis && { connection: redis, keyPrefix: config.REDIS_KEY_PREFIX },
    logger,
  });
  const pipeline = createOperationPipeline(limits, persisted.trusted, {
    callBounds: callBounds(),
    maxWaitMs: config.UPSTREAM_BUCKET_WAIT_MS,
    writeReserveShare: config.UPSTREAM_WRITE_RESERVE_SHARE,
  });
  const apqRegistration = persisted.trusted
    ? undefined
    : createApqRegistrationHook({
        credentialOf,
        quota: createCredentialQuota({
          name: 'apq',
          max: config.APQ_MAX_PER_CREDENTIAL,
          windowMs: config.APQ_TTL_SEC * 1000,
          redis,
          prefix: config.REDIS_KEY_PREFIX,
          logger,
        }),
      });
  const explorer = config.EXPLORER
    ? await registerExplorer(app, {
        graphqlPath,
        embeddedUpstream: config.UPSTREAM === 'embedded',
        logger,
      })
    : undefined;

  const store: IdempotencyStore = redis
    ? createRedisIdempotencyStore({ connection: redis, prefix: config.REDIS_KEY_PREFIX, logger })
    : createMemoryIdempotencyStore();
  // Watched here because idempotency records are what an empty Redis costs most (a second write);
  // the warning names everything else it lost too.
  const stopEpochWatch = redis
    ? watchRedisEpoch({ connection: redis, prefix: config.REDIS_KEY_PREFIX, logger })
    : undefined;
  return {
    apolloOptions: {
      validationRules: [...pipeline.validationRules],
      // A backstop for documents that reach the parser without the document check's count.
      parseOptions: { maxTokens: pipeline.maxTokens },
      persistedQueries: persisted.apolloOptions,
    },
    pipeline,
    trusted: persisted.trusted,
    explorer,
    apqRegistration,
    idempotency: idempotencyPlugin({
      store,
      ttlMs: config.IDEMPOTENCY_TTL_SEC * 1000,
      waitMs: config.IDEMPOTENCY_WAIT_MS,
      lockMs: Math.max(IDEMPOTENCY_LOCK_MS, config.IDEMPOTENCY_WAIT_MS),
    }),
    close: async () => {
      store.close();
      stopEpochWatch?.();
    },
  };
}
