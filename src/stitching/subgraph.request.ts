/** This request's client for the commerce subgraphs: one per request, made on first use. */
import type { GatewayContext } from '../kit/request-context.ts';
import { createSubgraphClient } from './subgraph-client.ts';

const createSubgraphRequest = (context: GatewayContext) =>
  createSubgraphClient(context.upstream, context);

export const subgraphsOf = (context: GatewayContext) => context.scoped(createSubgraphRequest);
