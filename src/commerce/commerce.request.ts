/**
 * This request's commerce REST API and loaders: one of each per request, made on first use. The
 * loaders wait for their first reader: a screen of transactions alone reads the API only, and five
 * DataLoaders made for nothing lived as long as its upstream call (promoted by the scavenges that
 * call outlives, docs/performance.md "Decisions").
 */
import type { GatewayContext } from '../kit/request-context.ts';
import { createCommerceApi } from './commerce.api.ts';
import { createCommerceLoaders, type CommerceLoaders } from './commerce.loaders.ts';

function createCommerceRequest(context: GatewayContext) {
  const api = createCommerceApi(context.upstream, context);
  let loaders: CommerceLoaders | undefined;
  return {
    api,
    get loaders(): CommerceLoaders {
      return (loaders ??= createCommerceLoaders(api));
    },
  };
}

export const commerceOf = (context: GatewayContext) => context.scoped(createCommerceRequest);
