/** This request's certificates API and loaders: one of each per request, made on first use. */
import type { GatewayContext } from '../kit/request-context.ts';
import { createCertificatesApi } from './certificates.api.ts';
import { createCertificateLoaders } from './certificates.loaders.ts';

function createCertificatesRequest(context: GatewayContext) {
  const api = createCertificatesApi(context.upstream, context);
  return { api, loaders: createCertificateLoaders(api) };
}

export const certificatesOf = (context: GatewayContext) =>
  context.scoped(createCertificatesRequest);
