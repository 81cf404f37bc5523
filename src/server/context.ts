/** The per-request context every resolver receives: credential, request id, and fresh loaders. */
import type { FastifyBaseLogger } from 'fastify';
import type { Credential } from '../upstream/credential.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import type { BudgetTracker } from '../upstream/budget-tracker.js';
import { createCertificatesApi, type CertificatesApi } from '../certificates/certificates.api.js';
import {
  createCertificateLoaders,
  type CertificateLoaders,
} from '../certificates/certificates.loaders.js';

export interface GatewayContext {
  readonly requestId: string;
  /** Absent when the request carried no (well-formed) bearer token. */
  readonly credential: Credential | undefined;
  readonly logger: FastifyBaseLogger;
  readonly budget: BudgetTracker;
  readonly certificates: { readonly api: CertificatesApi; readonly loaders: CertificateLoaders };
}

export interface ContextDependencies {
  readonly upstream: UpstreamClient;
  readonly budget: BudgetTracker;
}

export function createGatewayContext(
  deps: ContextDependencies,
  request: { requestId: string; credential: Credential | undefined; logger: FastifyBaseLogger },
): GatewayContext {
  const certificatesApi = createCertificatesApi(deps.upstream, request);
  return {
    ...request,
    budget: deps.budget,
    certificates: { api: certificatesApi, loaders: createCertificateLoaders(certificatesApi) },
  };
}
