/**
 * The scopes the three commerce GraphQL subgraphs require (commerce document, "GraphQL endpoints"),
 * by operation: what `subgraph.upstream-routes.ts` declares, so that docs/provider.md's scope table
 * and `npm run doctor` know them.
 *
 * The document gives the scopes of each endpoint but not which mutation needs which. Weft's
 * decisions, which the simulator enforces too:
 * - catalog: every mutation `commerce.product:write`;
 * - tax: `create…` mutations `commerce.tax:create`, `delete…` `commerce.tax:delete`, any other
 *   `commerce.tax:write`;
 * - order: placing an order is `:create`, calling something off `:cancel`, finishing something
 *   `:complete`, every other change `:update` ({@link ORDER_MUTATION_SCOPES}).
 */
import type { RouteScope } from '../upstream/upstream-routes.ts';

export const CATALOG_SCOPE: RouteScope = {
  query: 'commerce.product:read',
  mutation: () => 'commerce.product:write',
};

export const TAX_SCOPE: RouteScope = {
  query: 'commerce.tax:read',
  mutation: (field) => {
    if (field.startsWith('create')) return 'commerce.tax:create';
    if (field.startsWith('delete')) return 'commerce.tax:delete';
    return 'commerce.tax:write';
  },
};

/** Order mutations that are not `:update` (every other one is). */
const ORDER_MUTATION_SCOPES: Readonly<Record<string, string>> = {
  createOrder: 'commerce.order:create',
  duplicateOrder: 'commerce.order:create',
  cancelOrder: 'commerce.order:cancel',
  cancelFulfillment: 'commerce.order:cancel',
  cancelReturn: 'commerce.order:cancel',
  completeOrder: 'commerce.order:complete',
  completeFulfillment: 'commerce.order:complete',
  completeReturn: 'commerce.order:complete',
};

export const ORDER_SCOPE: RouteScope = {
  query: 'commerce.order:read',
  mutation: (field) => ORDER_MUTATION_SCOPES[field] ?? 'commerce.order:update',
};
