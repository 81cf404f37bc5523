/**
 * This request's commerce REST API and loaders: one of each per request, made on first use. The
 * loaders wait for their first reader: a screen of transactions alone reads the API only, and five
 * DataLoaders made for nothing lived as long as its upstream call (promoted by the scavenges that
 * call outlives, docs/performance.md "Decisions").
 */
import type { GatewayContext } from '../kit/request-context.ts';
import { createCommerceApi, type CommerceApi } from './commerce.api.ts';
import { createCommerceLoaders, type CommerceLoaders } from './commerce.loaders.ts';

/**
 * A class, not an object literal with a getter: such a literal makes a hidden class per request
 * holding its getter, which keeps the request's API reachable for young-generation collections
 * until the next full one (docs/performance.md "Memory and start-up").
 */
class CommerceRequest {
  readonly api: CommerceApi;
  #loaders: CommerceLoaders | undefined;

  constructor(context: GatewayContext) {
    this.api = createCommerceApi(context.upstream, context);
  }

  get loaders(): CommerceLoaders {
    return (this.#loaders ??= createCommerceLoaders(this.api));
  }
}

const createCommerceRequest = (context: GatewayContext) => new CommerceRequest(context);

export const commerceOf = (context: GatewayContext) => context.scoped(createCommerceRequest);
