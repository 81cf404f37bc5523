/** This request's hosting API and loaders: one of each per request, made on first use. */
import type { GatewayContext } from '../kit/request-context.ts';
import { createHostingApi } from './hosting.api.ts';
import { createHostingLoaders } from './hosting.loaders.ts';

function createHostingRequest(context: GatewayContext) {
  const api = createHostingApi(context.upstream, context);
  return { api, loaders: createHostingLoaders(api) };
}

export const hostingOf = (context: GatewayContext) => context.scoped(createHostingRequest);
