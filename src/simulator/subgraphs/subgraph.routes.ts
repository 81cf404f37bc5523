/**
 * The three commerce GraphQL endpoints (commerce document, "GraphQL endpoints"):
 *
 * | route | store | scopes |
 * |---|---|---|
 * | POST /v2/commerce/stores/{storeId}/catalog-subgraph | header `x-store-id` (wins over the path) | product:read / product:write |
 * | POST /v2/commerce/stores/{storeId}/tax-subgraph | same | tax:read / tax:create, :write, :delete by mutation |
 * | POST /v1/commerce/order-subgraph | none (orders carry their store) | order:read / :create, :update, :cancel, :complete |
 *
 * The core has already authenticated the caller (401) and counted the credential window (429). In
 * the handler, in this order: the catalog's own per-minute burst window (429), the body (400), the
 * store (catalog: 400 without `x-store-id`; tax: HTTP 200 `AUTHENTICATION_ERROR`, the documented
 * quirk; both: 404 for an unknown store or one of another account), the operation's scopes (403),
 * then GraphQL (200 with `data` and/or `errors`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { STORE_ACCOUNTS, type SimPrincipal } from '../accounts.ts';
import type { SimContext } from '../sim-context.ts';
import { notFound, SimError } from '../sim-errors.ts';
import { unique } from './subgraph-common.ts';
import { parseRequestBody, runGraphQL, type ScopePolicy } from './subgraph-graphql.ts';

const CATALOG_WINDOW_MS = 60_000;

/** Catalog: reads need `product:read`, every mutation `product:write` (document's scope table). */
export const catalogScopes: ScopePolicy = (operation) => [
  operation === 'mutation' ? 'commerce.product:write' : 'commerce.product:read',
];

/** Tax mutations "by operation": `create*` → create, `delete*` → delete, anything else → write. */
export const taxScopes: ScopePolicy = (operation, fields) => {
  if (operation !== 'mutation') return ['commerce.tax:read'];
  const scopes = fields
    .filter((field) => field !== '__typename')
    .map((field) => {
      if (field.startsWith('create')) return 'commerce.tax:create';
      if (field.startsWith('delete')) return 'commerce.tax:delete';
      return 'commerce.tax:write';
    });
  return scopes.length > 0 ? unique(scopes) : ['commerce.tax:write'];
};

/**
 * The one scope each order mutation needs. Every mutation of the order schema has an entry (a test
 * holds the two together): placing an order is `:create`; calling something off is `:cancel`;
 * finishing something is `:complete`; every other change, including the sub-records of an existing
 * order (fulfilments, returns, refunds, comments), is `:update`.
 */
export const ORDER_MUTATION_SCOPES: Readonly<Record<string, string>> = {
  createOrder: 'commerce.order:create',
  duplicateOrder: 'commerce.order:create',
  updateOrder: 'commerce.order:update',
  markOrderPaid: 'commerce.order:update',
  holdOrder: 'commerce.order:update',
  releaseOrderHold: 'commerce.order:update',
  addLineItem: 'commerce.order:update',
  updateLineItem: 'commerce.order:update',
  removeLineItem: 'commerce.order:update',
  applyOrderDiscount: 'commerce.order:update',
  removeOrderDiscount: 'commerce.order:update',
  setShippingLine: 'commerce.order:update',
  setOrderAddresses: 'commerce.order:update',
  addOrderComment: 'commerce.order:update',
  updateOrderComment: 'commerce.order:update',
  deleteOrderComment: 'commerce.order:update',
  createFulfillment: 'commerce.order:update',
  updateFulfillmentTracking: 'commerce.order:update',
  requestReturn: 'commerce.order:update',
  approveReturn: 'commerce.order:update',
  receiveReturn: 'commerce.order:update',
  createRefund: 'commerce.order:update',
  cancelOrder: 'commerce.order:cancel',
  cancelFulfillment: 'commerce.order:cancel',
  cancelReturn: 'commerce.order:cancel',
  completeOrder: 'commerce.order:complete',
  completeFulfillment: 'commerce.order:complete',
  completeReturn: 'commerce.order:complete',
};

/**
 * Orders: one scope per mutation, from {@link ORDER_MUTATION_SCOPES}. A name the schema lacks
 * (validation rejects it right after) asks for `:update`, so the 403 check never lets it through.
 */
export const orderScopes: ScopePolicy = (operation, fields) => {
  if (operation !== 'mutation') return ['commerce.order:read'];
  const scopes = fields
    .filter((field) => field !== '__typename')
    .map((field) => ORDER_MUTATION_SCOPES[field] ?? 'commerce.order:update');
  return scopes.length > 0 ? unique(scopes) : ['commerce.order:update'];
};

/** The catalog's own burst limit, per credential per minute; its size is read per request. */
function createCatalogWindow(ctx: SimContext): (principal: SimPrincipal) => void {
  const windows = new Map<string, { startedAt: number; used: number }>();
  ctx.onReset.push(() => windows.clear());
  return (principal) => {
    const now = ctx.now();
    let window = windows.get(principal.token);
    if (!window || now - window.startedAt >= CATALOG_WINDOW_MS) {
      window = { startedAt: now, used: 0 };
      windows.set(principal.token, window);
    }
    const limit = ctx.knobs.catalogPerMinute;
    if (window.used >= limit) {
      const retryAfterSec = Math.max(
        1,
        Math.ceil((window.startedAt + CATALOG_WINDOW_MS - now) / 1000),
      );
      throw new SimError(
        429,
        'TOO_MANY_REQUESTS',
        `catalog rate exceeded: ${limit} requests per minute per credential`,
        undefined,
        { retryAfterSec },
      );
    }
    window.used += 1;
  };
}

/** The store named by `x-store-id`; the path's storeId is ignored (the header wins). */
function headerStore(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-store-id'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** 404 for a store that does not exist and for one of another account alike. */
function visibleStore(storeId: string, principal: SimPrincipal): string {
  if (STORE_ACCOUNTS[storeId] !== principal.accountId) throw notFound(`store ${storeId}`);
  return storeId;
}

/**
 * A subgraph's executable schema, loaded and built on its first request: three schemas at the
 * documented scale (and their modules) are most of the simulator's start-up, and a session that
 * never queries a subgraph should not wait for them.
 */
function onFirstUse(load: () => Promise<GraphQLSchema>): () => Promise<GraphQLSchema> {
  let schema: Promise<GraphQLSchema> | undefined;
  return () => (schema ??= load());
}

export async function registerSubgraphRoutes(app: FastifyInstance, ctx: SimContext): Promise<void> {
  const catalogSchema = onFirstUse(async () =>
    (await import('./catalog.schema.ts')).createCatalogSchema(),
  );
  const taxSchema = onFirstUse(async () => (await import('./tax.schema.ts')).createTaxSchema());
  const orderSchema = onFirstUse(async () =>
    (await import('./order.schema.ts')).createOrderSchema(),
  );
  const takeCatalog = createCatalogWindow(ctx);
  const context = (principal: SimPrincipal, storeId: string | null) => ({
    state: ctx.state.subgraphs,
    accountId: principal.accountId,
    storeId,
    now: ctx.now,
  });

  app.post('/v2/commerce/stores/:storeId/catalog-subgraph', async (request) => {
    const { principal } = request;
    takeCatalog(principal);
    const body = parseRequestBody(request.body);
    const storeId = headerStore(request);
    if (storeId === undefined) {
      const message = 'header x-store-id is required';
      throw new SimError(400, 'INVALID_REQUEST', message, [
        { path: "$.headers['x-store-id']", code: 'REQUIRED', message },
      ]);
    }
    visibleStore(storeId, principal);
    return runGraphQL({
      schema: await catalogSchema(),
      body,
      principal,
      scopes: catalogScopes,
      context: context(principal, storeId),
    });
  });

  app.post('/v2/commerce/stores/:storeId/tax-subgraph', async (request) => {
    const { principal } = request;
    const body = parseRequestBody(request.body);
    const storeId = headerStore(request);
    if (storeId === undefined) {
      // Documented quirk: HTTP 200 with a GraphQL error, not a 401.
      return {
        errors: [{ message: 'Failed to authorize', extensions: { code: 'AUTHENTICATION_ERROR' } }],
      };
    }
    visibleStore(storeId, principal);
    return runGraphQL({
      schema: await taxSchema(),
      body,
      principal,
      scopes: taxScopes,
      context: context(principal, storeId),
    });
  });

  app.post('/v1/commerce/order-subgraph', async (request) => {
    const { principal } = request;
    return runGraphQL({
      schema: await orderSchema(),
      body: parseRequestBody(request.body),
      principal,
      scopes: orderScopes,
      context: context(principal, null),
    });
  });
}
