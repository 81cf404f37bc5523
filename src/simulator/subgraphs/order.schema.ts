/**
 * The order subgraph (`POST /v1/commerce/order-subgraph`): global, not store-scoped. Orders carry
 * their `storeId`; a caller sees only the orders of its own account's stores. The document shows
 * neither its envelope nor its schema, only the scopes (`commerce.order:read`, `:create`, `:update`,
 * `:cancel`, `:complete`); this schema is the simulator's design.
 *
 * State machine: OPEN → COMPLETED, OPEN → CANCELED. Repeating the transition that produced the
 * current state returns the order unchanged (a retried mutation is harmless); any other transition
 * out of a terminal state is a CONFLICT error.
 *
 * Its own `Node`, `PageInfo`, `Money` (`amount`, not the catalog's `value`) and `SimpleMoneyInput`
 * collide by name with the catalog's, and its root field `node` collides with the catalog's `node`.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { STORE_ACCOUNTS } from '../accounts.ts';
import {
  buildLineItem,
  nextId,
  nextOrderNumber,
  type LineItemRecord,
  type OrderRecord,
  type OrderStatus,
} from '../fixtures/subgraph.fixtures.ts';
import {
  badInput,
  checkCurrency,
  checkMoney,
  gqlError,
  isoNow,
  paginate,
  type MoneyInput,
  type SubgraphContext,
} from './subgraph-common.ts';
import { orderTypeDefs } from './order.sdl.ts';

interface LineItemInput {
  skuId: string;
  quantity: number;
  unitPrice?: MoneyInput | null;
}

interface CreateOrderInput {
  storeId: string;
  customerId?: string | null;
  email?: string | null;
  currencyCode?: string | null;
  lineItems: LineItemInput[];
  notes?: string | null;
}

interface UpdateOrderInput {
  id: string;
  customerId?: string | null;
  email?: string | null;
  notes?: string | null;
  lineItems?: LineItemInput[] | null;
}

const visibleStore = (ctx: SubgraphContext, storeId: string): boolean =>
  STORE_ACCOUNTS[storeId] === ctx.accountId;

function findOrder(ctx: SubgraphContext, id: string): OrderRecord | null {
  const order = ctx.state.orders.get(id);
  return order && visibleStore(ctx, order.storeId) ? order : null;
}

function orderOrThrow(ctx: SubgraphContext, id: string): OrderRecord {
  const order = findOrder(ctx, id);
  if (!order) throw gqlError('NOT_FOUND', `order ${id} was not found`);
  return order;
}

/** A line item of a visible order, with the order's currency (what `LineItem` resolves from). */
type PricedLine = LineItemRecord & { currencyCode: string };

function findLineItem(ctx: SubgraphContext, id: string): PricedLine | null {
  for (const order of ctx.state.orders.values()) {
    if (!visibleStore(ctx, order.storeId)) continue;
    const line = order.lineItems.find((item) => item.id === id);
    if (line) return { ...line, currencyCode: order.currencyCode };
  }
  return null;
}

/** Checks every line before building any, so a rejected input leaves no trace. */
function buildLines(
  ctx: SubgraphContext,
  storeId: string,
  currencyCode: string,
  inputs: readonly LineItemInput[],
): LineItemRecord[] {
  if (inputs.length === 0) throw badInput('an order needs at least one line item', 'lineItems');
  const checked = inputs.map((input, index) => {
    const field = `lineItems[${index}]`;
    const sku = ctx.state.skus.get(input.skuId);
    if (!sku || sku.storeId !== storeId) {
      throw badInput(`unknown SKU ${input.skuId} in store ${storeId}`, `${field}.skuId`);
    }
    if (sku.status !== 'ACTIVE') {
      throw badInput(`SKU ${sku.id} is ${sku.status} and cannot be ordered`, `${field}.skuId`);
    }
    if (!Number.isInteger(input.quantity) || input.quantity < 1) {
      throw badInput('quantity must be at least 1', `${field}.quantity`);
    }
    let unitPrice: number;
    if (input.unitPrice) {
      const money = checkMoney(input.unitPrice, `${field}.unitPrice`);
      if (money.currencyCode !== currencyCode) {
        throw badInput(
          `unitPrice is in ${money.currencyCode}, the order in ${currencyCode}`,
          `${field}.unitPrice.currencyCode`,
        );
      }
      unitPrice = money.value;
    } else {
      const list = sku.prices.find((p) => p.type === 'LIST' && p.currencyCode === currencyCode);
      if (!list) {
        throw badInput(`SKU ${sku.id} has no LIST price in ${currencyCode}`, `${field}.unitPrice`);
      }
      unitPrice = list.value;
    }
    return { sku, quantity: input.quantity, unitPrice };
  });
  return checked.map(({ sku, quantity, unitPrice }) =>
    buildLineItem(ctx.state, storeId, sku, quantity, unitPrice),
  );
}

/** Moves an OPEN order to a terminal state; see the module comment for repeats and conflicts. */
function transition(
  ctx: SubgraphContext,
  id: string,
  target: Exclude<OrderStatus, 'OPEN'>,
  reason?: string | null,
): OrderRecord {
  const order = orderOrThrow(ctx, id);
  if (order.status === target) return order;
  if (order.status !== 'OPEN') {
    throw gqlError('CONFLICT', `order ${order.id} is ${order.status} and cannot become ${target}`, {
      currentStatus: order.status,
    });
  }
  const now = isoNow(ctx);
  order.status = target;
  order.updatedAt = now;
  if (target === 'COMPLETED') order.completedAt = now;
  else {
    order.canceledAt = now;
    order.cancelReason = reason ?? null;
  }
  return order;
}

const lineSubtotal = (line: LineItemRecord): number => line.unitPrice * line.quantity;

const resolvers = {
  Node: {
    __resolveType: (record: { id: string }): string | null => {
      if (record.id.startsWith('ord_')) return 'Order';
      if (record.id.startsWith('li_')) return 'LineItem';
      return null;
    },
  },
  Order: {
    itemCount: (order: OrderRecord) =>
      order.lineItems.reduce((sum, line) => sum + line.quantity, 0),
    lineItems: (order: OrderRecord) =>
      order.lineItems.map((line): PricedLine => ({ ...line, currencyCode: order.currencyCode })),
    totals: (order: OrderRecord) => {
      const subtotal = order.lineItems.reduce((sum, line) => sum + lineSubtotal(line), 0);
      const taxTotal = order.lineItems.reduce((sum, line) => sum + line.taxAmount, 0);
      const money = (amount: number) => ({ amount, currencyCode: order.currencyCode });
      return {
        subtotal: money(subtotal),
        taxTotal: money(taxTotal),
        total: money(subtotal + taxTotal),
      };
    },
  },
  LineItem: {
    unitPrice: (line: PricedLine) => ({
      amount: line.unitPrice,
      currencyCode: line.currencyCode,
    }),
    subtotal: (line: PricedLine) => ({
      amount: lineSubtotal(line),
      currencyCode: line.currencyCode,
    }),
    taxTotal: (line: PricedLine) => ({
      amount: line.taxAmount,
      currencyCode: line.currencyCode,
    }),
    total: (line: PricedLine) => ({
      amount: lineSubtotal(line) + line.taxAmount,
      currencyCode: line.currencyCode,
    }),
  },
  Query: {
    node: (_root: unknown, args: { id: string }, ctx: SubgraphContext) =>
      findOrder(ctx, args.id) ?? findLineItem(ctx, args.id),
    order: (_root: unknown, args: { id: string }, ctx: SubgraphContext) => findOrder(ctx, args.id),
    orders: (
      _root: unknown,
      args: {
        storeId?: string | null;
        first?: number | null;
        after?: string | null;
        status?: OrderStatus | null;
      },
      ctx: SubgraphContext,
    ) => {
      if (args.storeId && !visibleStore(ctx, args.storeId)) {
        throw gqlError('NOT_FOUND', `store ${args.storeId} was not found`);
      }
      const orders = [...ctx.state.orders.values()]
        .reverse()
        .filter(
          (order) =>
            visibleStore(ctx, order.storeId) &&
            (!args.storeId || order.storeId === args.storeId) &&
            (!args.status || order.status === args.status),
        );
      return paginate(orders, args.first, args.after);
    },
  },
  Mutation: {
    createOrder: (_root: unknown, { input }: { input: CreateOrderInput }, ctx: SubgraphContext) => {
      if (!visibleStore(ctx, input.storeId)) {
        throw gqlError('NOT_FOUND', `store ${input.storeId} was not found`);
      }
      const currencyCode = checkCurrency(
        input.currencyCode ?? ctx.state.storeCurrency[input.storeId] ?? 'USD',
        'currencyCode',
      );
      const lineItems = buildLines(ctx, input.storeId, currencyCode, input.lineItems);
      const now = isoNow(ctx);
      const order: OrderRecord = {
        id: nextId(ctx.state, 'ord'),
        number: nextOrderNumber(ctx.state, input.storeId),
        storeId: input.storeId,
        status: 'OPEN',
        customerId: input.customerId ?? null,
        email: input.email ?? null,
        currencyCode,
        lineItems,
        notes: input.notes ?? null,
        cancelReason: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
        canceledAt: null,
      };
      ctx.state.orders.set(order.id, order);
      return order;
    },
    updateOrder: (_root: unknown, { input }: { input: UpdateOrderInput }, ctx: SubgraphContext) => {
      const order = orderOrThrow(ctx, input.id);
      if (order.status !== 'OPEN') {
        throw gqlError(
          'CONFLICT',
          `order ${order.id} is ${order.status} and can no longer change`,
          {
            currentStatus: order.status,
          },
        );
      }
      if (input.lineItems != null) {
        order.lineItems = buildLines(ctx, order.storeId, order.currencyCode, input.lineItems);
      }
      if (input.customerId !== undefined) order.customerId = input.customerId;
      if (input.email !== undefined) order.email = input.email;
      if (input.notes !== undefined) order.notes = input.notes;
      order.updatedAt = isoNow(ctx);
      return order;
    },
    cancelOrder: (
      _root: unknown,
      args: { id: string; reason?: string | null },
      ctx: SubgraphContext,
    ) => transition(ctx, args.id, 'CANCELED', args.reason),
    completeOrder: (_root: unknown, args: { id: string }, ctx: SubgraphContext) =>
      transition(ctx, args.id, 'COMPLETED'),
  },
};

/** Builds the order schema; resolvers read the caller's account and state from the context. */
export function createOrderSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: orderTypeDefs, resolvers });
}
