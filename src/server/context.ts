/** The per-request context every resolver receives: credential, request id, and fresh loaders. */
import type { FastifyBaseLogger } from 'fastify';
import type { Credential } from '../upstream/credential.ts';
import type { UpstreamClient } from '../upstream/upstream-client.ts';
import type { BudgetTracker } from '../upstream/budget-tracker.ts';
import type { RequestFacts } from '../upstream/request-facts.ts';
import type { TraceHolder } from '../upstream/request-scope.ts';
import { createCertificatesApi, type CertificatesApi } from '../certificates/certificates.api.ts';
import {
  createCertificateLoaders,
  type CertificateLoaders,
} from '../certificates/certificates.loaders.ts';
import { createCommerceApi, type CommerceApi } from '../commerce/commerce.api.ts';
import { createCommerceLoaders, type CommerceLoaders } from '../commerce/commerce.loaders.ts';
import { createSubgraphClient, type SubgraphClient } from '../stitching/subgraph-client.ts';
import { createHostingApi, type HostingApi } from '../hosting/hosting.api.ts';
import { createHostingLoaders, type HostingLoaders } from '../hosting/hosting.loaders.ts';
import type { PollerRegistry } from '../hosting/job-pollers.ts';

export interface GatewayContext {
  readonly requestId: string;
  /** Absent when the request carried no (well-formed) bearer token. */
  readonly credential: Credential | undefined;
  readonly logger: FastifyBaseLogger;
  readonly budget: BudgetTracker;
  readonly certificates: { readonly api: CertificatesApi; readonly loaders: CertificateLoaders };
  readonly hosting: {
    readonly api: HostingApi;
    readonly loaders: HostingLoaders;
    /** Process-wide: the subscriptions' shared pollers. */
    readonly pollers: PollerRegistry;
  };
  /** Commerce REST (`api`, `loaders`) and the stitched commerce subgraphs (`subgraphs`). */
  readonly commerce: {
    readonly api: CommerceApi;
    readonly loaders: CommerceLoaders;
    readonly subgraphs: SubgraphClient;
  };
  /** The `X-Store-Id` request header: the store of catalog/tax root fields without `storeId`. */
  readonly storeIdHeader?: string | undefined;
  /** What the upstream layer reports back for this request (budget spent, stale values). */
  readonly facts?: RequestFacts | undefined;
  /** The operation's trace span, when tracing is on. */
  readonly trace?: TraceHolder | undefined;
  /** The whole-response cache key of this request (POST queries with a credential). */
  readonly replayKey?: string | undefined;
}

export interface ContextDependencies {
  readonly upstream: UpstreamClient;
  readonly budget: BudgetTracker;
  /** One per gateway: subscription pollers shared across requests and connections. */
  readonly pollers: PollerRegistry;
}

export function createGatewayContext(
  deps: ContextDependencies,
  request: {
    requestId: string;
    credential: Credential | undefined;
    logger: FastifyBaseLogger;
    storeIdHeader?: string | undefined;
    facts?: RequestFacts | undefined;
    trace?: TraceHolder | undefined;
    replayKey?: string | undefined;
  },
): GatewayContext {
  const certificatesApi = createCertificatesApi(deps.upstream, request);
  const hostingApi = createHostingApi(deps.upstream, request);
  const commerceApi = createCommerceApi(deps.upstream, request);
  return {
    ...request,
    budget: deps.budget,
    certificates: { api: certificatesApi, loaders: createCertificateLoaders(certificatesApi) },
    hosting: {
      api: hostingApi,
      loaders: createHostingLoaders(hostingApi),
      pollers: deps.pollers,
    },
    commerce: {
      api: commerceApi,
      loaders: createCommerceLoaders(commerceApi),
      subgraphs: createSubgraphClient(deps.upstream, request),
    },
  };
}
