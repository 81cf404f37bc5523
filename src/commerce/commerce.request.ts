/** This request's commerce REST API and loaders: one of each per request, made on first use. */
import type { GatewayContext } from '../kit/request-context.ts';
import { createCommerceApi } from './commerce.api.ts';
import { createCommerceLoaders } from './commerce.loaders.ts';

function createCommerceRequest(context: GatewayContext) {
  const api = createCommerceApi(context.upstream, context);
  return { api, loaders: createCommerceLoaders(api) };
}

export const commerceOf = (context: GatewayContext) => context.scoped(createCommerceRequest);
