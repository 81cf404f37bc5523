/**
 * The subgraph routes stitching calls, as the upstream stack must treat them: a query is cached per
 * (credential, store, document, variables), any other operation invalidates that subgraph's
 * answers for the store; each subgraph has its own circuit; the catalog has its own burst limit.
 *
 * Catalog limit: "the catalog endpoint also returns 429" (commerce document) without a number; the
 * decision is a per-credential burst bucket of 120 per minute.
 */
import { graphqlOperations, pathParam, type Tagger } from '../upstream/route-policy.ts';
import type { RouteClass, UpstreamRoute } from '../upstream/upstream-routes.ts';
import { CATALOG_SUBGRAPH, ORDER_SUBGRAPH, TAX_SUBGRAPH } from './remote-subgraphs.ts';
import { CATALOG_SCOPE, ORDER_SCOPE, TAX_SCOPE } from './subgraph-scopes.ts';

export const CATALOG_LIMIT: RouteClass = {
  name: 'catalog',
  limit: 120,
  windowMs: 60_000,
  perCredential: true,
};

/** The store a subgraph call runs against: the header wins over the path (commerce document). */
const storeOf = (call: Parameters<Tagger>[0]): string =>
  call.headers['x-store-id'] ?? pathParam(call, 'storeId');
const catalogTags: Tagger = (call) => [`catalog:${storeOf(call)}`];
const taxTags: Tagger = (call) => [`tax:${storeOf(call)}`];
/** Orders carry their store: one tag for the order subgraph. */
const orderTags: Tagger = () => ['orders'];

export const SUBGRAPH_UPSTREAM_ROUTES: readonly UpstreamRoute[] = [
  {
    method: 'POST',
    route: CATALOG_SUBGRAPH.route,
    scope: CATALOG_SCOPE,
    cache: graphqlOperations({ kind: 'catalog-query', ttlSec: 60, tags: catalogTags }, catalogTags),
    breaker: 'catalog',
    limitClass: CATALOG_LIMIT,
  },
  {
    method: 'POST',
    route: TAX_SUBGRAPH.route,
    scope: TAX_SCOPE,
    cache: graphqlOperations({ kind: 'tax-query', ttlSec: 300, tags: taxTags }, taxTags),
    breaker: 'tax',
  },
  {
    method: 'POST',
    route: ORDER_SUBGRAPH.route,
    scope: ORDER_SCOPE,
    cache: graphqlOperations({ kind: 'order-query', ttlSec: 30, tags: orderTags }, orderTags),
    breaker: 'order',
  },
];
