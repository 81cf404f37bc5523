/**
 * The order subgraph (`POST /v1/commerce/order-subgraph`): global, not store-scoped. Orders carry
 * their `storeId`; a caller sees only the orders (and their fulfilments, returns and refunds) of its
 * own account's stores. The document shows neither its envelope nor its schema, only the scopes
 * (`commerce.order:read`, `:create`, `:update`, `:cancel`, `:complete`); this schema is the
 * simulator's design, by sub-domain:
 *
 * | module | what |
 * |---|---|
 * | order-orders.ts | orders, their lifecycle, payment and hold |
 * | order-lines.ts | line items, the order discount, the shipping line |
 * | order-details.ts | addresses and staff comments |
 * | order-fulfillments.ts | fulfilments |
 * | order-returns.ts | returns and refunds |
 *
 * Each mutation needs exactly one scope (ORDER_MUTATION_SCOPES in subgraph.routes.ts): placing an
 * order needs `:create`; anything that calls something off `:cancel`; anything that finishes
 * something `:complete`; every other change `:update`.
 *
 * Its own `Node`, `PageInfo`, `Money` (`amount`, not the catalog's `value`) and `SimpleMoneyInput`
 * collide by name with the catalog's, and its root field `node` collides with the catalog's `node`.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { kindOf } from '../fixtures/subgraph.fixtures.ts';
import { detailModule } from './order-details.ts';
import { fulfillmentModule } from './order-fulfillments.ts';
import { lineModule, withOrder } from './order-lines.ts';
import { orderModule } from './order-orders.ts';
import { returnModule } from './order-returns.ts';
import { findLine, fulfillments, orders, refunds, returns } from './order.lookups.ts';
import { orderTypeDefs } from './order.sdl.ts';
import { rootField, type SubgraphContext } from './subgraph-common.ts';

export const ORDER_MODULES = [
  orderModule,
  lineModule,
  detailModule,
  fulfillmentModule,
  returnModule,
];

const NODE_TYPES: Readonly<Record<string, string>> = {
  ord: 'Order',
  li: 'LineItem',
  ful: 'Fulfillment',
  ret: 'OrderReturn',
  rfd: 'Refund',
};

function findNode(ctx: SubgraphContext, id: string): unknown {
  switch (kindOf(id)) {
    case 'ord':
      return orders.find(ctx, id);
    case 'li': {
      const found = findLine(ctx, id);
      return found ? withOrder(found.order, found.line) : null;
    }
    case 'ful':
      return fulfillments.find(ctx, id);
    case 'ret':
      return returns.find(ctx, id);
    case 'rfd':
      return refunds.find(ctx, id);
    default:
      return null;
  }
}

const baseResolvers = {
  Node: {
    __resolveType: (record: { id: string }): string | null =>
      NODE_TYPES[kindOf(record.id) ?? ''] ?? null,
  },
  Query: {
    node: rootField((args: { id: string }, ctx: SubgraphContext) => findNode(ctx, args.id)),
  },
};

/** Builds the order schema; resolvers read the caller's account and state from the context. */
export function createOrderSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: [orderTypeDefs, ...ORDER_MODULES.map((module) => module.typeDefs)],
    resolvers: [baseResolvers, ...ORDER_MODULES.map((module) => module.resolvers)],
  });
}
