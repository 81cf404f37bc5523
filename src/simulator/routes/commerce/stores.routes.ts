/** GET a store and GET one of its attributes (`commerce.store:read`). */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../../sim-context.ts';
import { notFound } from '../../sim-errors.ts';
import { visibleStore } from './commerce-http.ts';

type StoreParams = { storeId: string };
type AttributeParams = { storeId: string; attrName: string };

export function registerStoreRoutes(app: FastifyInstance, ctx: SimContext): void {
  const state = ctx.state.commerce;
  const config = { scope: 'commerce.store:read' };

  app.get<{ Params: StoreParams }>('/v1/commerce/stores/:storeId', { config }, async (request) =>
    visibleStore(state, request, request.params.storeId),
  );

  app.get<{ Params: AttributeParams }>(
    '/v1/commerce/stores/:storeId/attributes/:attrName',
    { config },
    async (request) => {
      const store = visibleStore(state, request, request.params.storeId);
      const attribute = state.attributes.get(store.storeId)?.get(request.params.attrName);
      if (!attribute) throw notFound(`attribute ${request.params.attrName}`);
      return attribute;
    },
  );
}
