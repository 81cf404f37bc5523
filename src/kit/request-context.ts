/**
 * The per-request context every resolver receives. It names no domain: each domain keeps its own
 * per-request state (API, DataLoaders) behind {@link GatewayContext.scoped}, created on first use
 * and shared by every resolver of the request — so the context sits below the domains and the
 * domains never import each other or the server to reach their loaders.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { OperationLogFields } from '../observability/operation-log.ts';
import type { BudgetTracker } from '../upstream/budget-tracker.ts';
import type { RequestFacts } from '../upstream/request-facts.ts';
import type { RequestScope, TraceHolder } from '../upstream/request-scope.ts';
import type { LedgerReport } from '../upstream/upstream-ledger.ts';
import type { UpstreamClient } from '../upstream/upstream-call.ts';
import type { PollerRegistry } from '../watching/poller-registry.ts';

/** What a transport knows of one request when it makes the context. */
export interface RequestFields extends RequestScope {
  readonly logger: FastifyBaseLogger;
  /** The `X-Store-Id` request header: the store of catalog/tax root fields without `storeId`. */
  readonly storeIdHeader?: string | undefined;
  /** What the upstream layer reports back for this request (budget spent, stale values). */
  readonly facts?: RequestFacts | undefined;
  /** The operation's trace span, when tracing is on. */
  readonly trace?: TraceHolder | undefined;
  /** The whole-response cache key of this request (POST queries with a credential). */
  readonly replayKey?: string | undefined;
  /**
   * Hands the operation's log fields to the request's one log line (HTTP); without it, the
   * operation logs its own line.
   */
  readonly noteOperation?: ((fields: OperationLogFields) => void) | undefined;
  /**
   * A subscription whose client asked for ledgers (`Weft-Ledger: 1`): the ledger of the event being
   * sent (the polls it took), read by the transport into the event's `extensions.upstream`.
   */
  readonly eventLedger?: { latest: LedgerReport | undefined } | undefined;
  /**
   * Calls `onGone` if the client goes away before its answer is written (HTTP); returns what stops
   * listening. An answer in parts (`@defer`) stops its execution with it.
   */
  readonly onClientGone?: ((onGone: () => void) => () => void) | undefined;
}

/** Process-wide services every request's context carries. */
export interface ContextServices {
  readonly upstream: UpstreamClient;
  readonly budget: BudgetTracker;
  /** Subscription pollers shared across requests and connections. */
  readonly pollers: PollerRegistry;
}

export interface GatewayContext extends RequestFields, ContextServices {
  /** This request's one instance of what `create` makes (a domain's API and loaders). */
  scoped<T>(create: (context: GatewayContext) => T): T;
}

export function createGatewayContext(
  services: ContextServices,
  request: RequestFields,
): GatewayContext {
  const instances = new Map<(context: GatewayContext) => unknown, unknown>();
  const context: GatewayContext = {
    ...request,
    ...services,
    scoped<T>(create: (context: GatewayContext) => T): T {
      if (!instances.has(create)) instances.set(create, create(context));
      return instances.get(create) as T;
    },
  };
  return context;
}
