/**
 * Orders and their lifecycle. State machine: OPEN → COMPLETED, OPEN → CANCELED. Repeating the
 * transition that produced the current state returns the order unchanged (a retried mutation is
 * harmless); any other transition out of a terminal state is a CONFLICT error. An order on hold
 * cannot be completed. Canceling cancels the order's open fulfilments and is refused once one was
 * delivered; it refunds nothing (refunds are `createRefund`). Payment is UNPAID → PAID →
 * PARTIALLY_REFUNDED → REFUNDED, moved by `markOrderPaid` and the refunds.
 */
import {
  nextId,
  nextOrderNumber,
  orderTotals,
  type OrderRecord,
  type OrderStatus,
  type PaymentStatus,
} from '../fixtures/subgraph.fixtures.ts';
import { buildLines, withOrder, type LineItemInput } from './order-lines.ts';
import {
  checkStore,
  fulfilledQuantity,
  openOrder,
  orders,
  unpaidOpenOrder,
  visible,
} from './order.lookups.ts';
import {
  checkCurrency,
  gqlError,
  isoNow,
  paginate,
  requireText,
  rootField,
  type SubgraphContext,
} from './subgraph-common.ts';
import type { SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "Where an order stands."
  enum OrderStatus {
    "Placed and still changing: lines, fulfilments, payment."
    OPEN
    "Done; only returns and refunds follow."
    COMPLETED
    "Called off."
    CANCELED
  }

  "Where an order's payment stands."
  enum PaymentStatus {
    "Nothing paid yet."
    UNPAID
    "Paid in full."
    PAID
    "Paid, and part of it refunded."
    PARTIALLY_REFUNDED
    "Paid, and all of it refunded."
    REFUNDED
  }

  "An order's amounts."
  type OrderTotals {
    "The lines' subtotals."
    subtotal: Money!
    "The order discount."
    discountTotal: Money!
    "The shipping price."
    shippingTotal: Money!
    "The lines' tax after discount."
    taxTotal: Money!
    "subtotal − discountTotal + shippingTotal + taxTotal."
    total: Money!
    "What refunds gave back."
    refundedTotal: Money!
  }

  "A customer's order in one store."
  type Order implements Node {
    "The order's id (ord_…)."
    id: ID!
    "Human-readable order number, e.g. A-1001."
    number: String!
    "The store the order was placed in."
    storeId: ID!
    "Where the order stands."
    status: OrderStatus!
    "Where its payment stands."
    paymentStatus: PaymentStatus!
    "The customer (a customer id of the commerce API); null for a guest."
    customerId: ID
    "Where the customer is reached; null when not given."
    email: String
    "ISO 4217 currency of every amount."
    currencyCode: String!
    "Its lines in the order they were added."
    lineItems: [LineItem!]!
    "Units over every line."
    itemCount: Int!
    "Its amounts."
    totals: OrderTotals!
    "The discount on the whole order; null when none."
    discount: OrderDiscount
    "How it ships and what that costs; null when not set."
    shippingLine: ShippingLine
    "A note of the customer's; null when none."
    notes: String
    "Why it was canceled; null unless CANCELED with a reason."
    cancelReason: String
    "Why it is on hold; null when it is not."
    holdReason: String
    "Whether it is on hold (cannot be completed or fulfilled)."
    onHold: Boolean!
    "When the order was placed (ISO 8601)."
    createdAt: String!
    "When the order last changed (ISO 8601)."
    updatedAt: String!
    "When it was paid (ISO 8601); null when unpaid."
    paidAt: String
    "When it was completed (ISO 8601); null unless COMPLETED."
    completedAt: String
    "When it was canceled (ISO 8601); null unless CANCELED."
    canceledAt: String
  }

  "An order in a page of orders."
  type OrderEdge {
    "Where this order is in the list: pass it as after to continue behind it."
    cursor: String!
    "The order."
    node: Order!
  }

  "A page of orders."
  type OrderConnection {
    "The orders of the page with their cursors."
    edges: [OrderEdge!]!
    "The orders of the page."
    nodes: [Order!]!
    "Where the page ends."
    pageInfo: PageInfo!
    "How many orders the whole list holds."
    totalCount: Int!
  }

  "A new order (OPEN, unpaid)."
  input CreateOrderInput {
    "A store of the caller's account."
    storeId: ID!
    "The customer (a customer id of the commerce API)."
    customerId: ID
    "Where the customer is reached."
    email: String
    "Defaults to the store's currency."
    currencyCode: String
    "The lines, at least one."
    lineItems: [LineItemInput!]!
    "A note of the customer's."
    notes: String
  }

  "Changes to an OPEN order; omitted fields keep their values."
  input UpdateOrderInput {
    "The order."
    id: ID!
    "New customer; null clears it."
    customerId: ID
    "New email; null clears it."
    email: String
    "New note; null clears it."
    notes: String
    "Replaces every line of the order (only while it is unpaid and nothing is fulfilled)."
    lineItems: [LineItemInput!]
  }

  extend type Query {
    "An order by id; null when none is visible to the caller."
    order("The order's id." id: ID!): Order
    "Newest first. Without storeId: the orders of every store of the caller's account."
    orders(
      "Only this store's (one of the caller's account)."
      storeId: ID
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only orders in this status."
      status: OrderStatus
    ): OrderConnection!
    "An order of a store by its number (A-1001); null when there is none."
    orderByNumber(
      "The store (one of the caller's account)."
      storeId: ID!
      "The order number."
      number: String!
    ): Order
  }

  extend type Mutation {
    "Places an order (needs commerce.order:create)."
    createOrder("The new order." input: CreateOrderInput!): Order
    "Places a new OPEN order with the same customer and lines as another (needs commerce.order:create)."
    duplicateOrder("The order to copy." id: ID!): Order
    "Changes an OPEN order (needs commerce.order:update)."
    updateOrder("The changes." input: UpdateOrderInput!): Order
    "Cancels an OPEN order and its open fulfilments (needs commerce.order:cancel)."
    cancelOrder("The order." id: ID!, "Why." reason: String): Order
    "Completes an OPEN order that is not on hold (needs commerce.order:complete)."
    completeOrder("The order." id: ID!): Order
    "Records that an order was paid in full (needs commerce.order:update)."
    markOrderPaid("The order." id: ID!): Order
    "Puts an OPEN order on hold, or changes why it is held (needs commerce.order:update)."
    holdOrder("The order." id: ID!, "Why, not empty." reason: String!): Order
    "Takes an order off hold (needs commerce.order:update)."
    releaseOrderHold("The order." id: ID!): Order
  }
`;

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

/** A new OPEN, unpaid order of a visible store. */
function placeOrder(
  ctx: SubgraphContext,
  input: CreateOrderInput,
  lines: (currencyCode: string) => OrderRecord['lineItems'],
): OrderRecord {
  checkStore(ctx, input.storeId);
  const currencyCode = checkCurrency(
    input.currencyCode ?? ctx.state.storeCurrency[input.storeId] ?? 'USD',
    'currencyCode',
  );
  const lineItems = lines(currencyCode);
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
    paymentStatus: 'UNPAID',
    paidAt: null,
    holdReason: null,
    discount: null,
    shippingLine: null,
    shippingAddress: null,
    billingAddress: null,
    comments: [],
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    canceledAt: null,
  };
  ctx.state.orders.set(order.id, order);
  return order;
}

const fulfilmentsOf = (ctx: SubgraphContext, order: OrderRecord) =>
  [...ctx.state.fulfillments.values()].filter((f) => f.orderId === order.id);

/** Moves an OPEN order to a terminal state; see the module comment for repeats and conflicts. */
function transition(
  ctx: SubgraphContext,
  id: string,
  target: Exclude<OrderStatus, 'OPEN'>,
  reason?: string | null,
): OrderRecord {
  const order = orders.get(ctx, id);
  if (order.status === target) return order;
  if (order.status !== 'OPEN') {
    throw gqlError('CONFLICT', `order ${order.id} is ${order.status} and cannot become ${target}`, {
      currentStatus: order.status,
    });
  }
  const now = isoNow(ctx);
  if (target === 'COMPLETED') {
    if (order.holdReason !== null) {
      throw gqlError('CONFLICT', `order ${order.id} is on hold: ${order.holdReason}`, {
        currentStatus: order.status,
      });
    }
    order.completedAt = now;
  } else {
    const fulfilments = fulfilmentsOf(ctx, order);
    if (fulfilments.some((f) => f.status === 'DELIVERED')) {
      throw gqlError(
        'CONFLICT',
        `order ${order.id} has delivered fulfilments and cannot be canceled`,
        {
          currentStatus: order.status,
        },
      );
    }
    for (const fulfilment of fulfilments) {
      if (fulfilment.status === 'OPEN') {
        Object.assign(fulfilment, { status: 'CANCELED', canceledAt: now, updatedAt: now });
      }
    }
    order.canceledAt = now;
    order.cancelReason = reason ?? null;
  }
  order.status = target;
  order.updatedAt = now;
  return order;
}

const money = (order: OrderRecord) => (amount: number) => ({
  amount,
  currencyCode: order.currencyCode,
});

export const orderModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Order: {
      itemCount: (order: OrderRecord) =>
        order.lineItems.reduce((sum, line) => sum + line.quantity, 0),
      lineItems: (order: OrderRecord) => order.lineItems.map((line) => withOrder(order, line)),
      totals: (order: OrderRecord, _args: unknown, ctx: SubgraphContext) => {
        const totals = orderTotals(ctx.state, order);
        const of = money(order);
        return {
          subtotal: of(totals.subtotal),
          discountTotal: of(totals.discountTotal),
          shippingTotal: of(totals.shippingTotal),
          taxTotal: of(totals.taxTotal),
          total: of(totals.total),
          refundedTotal: of(totals.refundedTotal),
        };
      },
      discount: (order: OrderRecord) =>
        order.discount ? { ...order.discount, currencyCode: order.currencyCode } : null,
      shippingLine: (order: OrderRecord) =>
        order.shippingLine
          ? { title: order.shippingLine.title, price: money(order)(order.shippingLine.amount) }
          : null,
      onHold: (order: OrderRecord) => order.holdReason !== null,
    },
    Query: {
      order: rootField((args: { id: string }, ctx: SubgraphContext) => orders.find(ctx, args.id)),
      orders: rootField(
        (
          args: {
            storeId?: string | null;
            first?: number | null;
            after?: string | null;
            status?: OrderStatus | null;
          },
          ctx: SubgraphContext,
        ) => {
          if (args.storeId) checkStore(ctx, args.storeId);
          const list = visible(ctx, ctx.state.orders)
            .reverse()
            .filter(
              (order) =>
                (!args.storeId || order.storeId === args.storeId) &&
                (!args.status || order.status === args.status),
            );
          return paginate(list, args.first, args.after);
        },
      ),
      orderByNumber: rootField(
        (args: { storeId: string; number: string }, ctx: SubgraphContext) => {
          checkStore(ctx, args.storeId);
          const number = args.number.trim().toUpperCase();
          return (
            visible(ctx, ctx.state.orders).find(
              (order) => order.storeId === args.storeId && order.number === number,
            ) ?? null
          );
        },
      ),
    },
    Mutation: {
      createOrder: rootField(({ input }: { input: CreateOrderInput }, ctx: SubgraphContext) =>
        placeOrder(ctx, input, (currencyCode) =>
          buildLines(ctx, input.storeId, currencyCode, input.lineItems),
        ),
      ),
      duplicateOrder: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const original = orders.get(ctx, args.id);
        return placeOrder(
          ctx,
          {
            storeId: original.storeId,
            customerId: original.customerId,
            email: original.email,
            currencyCode: original.currencyCode,
            lineItems: [],
            notes: original.notes,
          },
          (currencyCode) =>
            buildLines(
              ctx,
              original.storeId,
              currencyCode,
              original.lineItems.map((line) => ({
                skuId: line.skuId,
                quantity: line.quantity,
                unitPrice: { value: line.unitPrice, currencyCode },
              })),
            ),
        );
      }),
      updateOrder: rootField(({ input }: { input: UpdateOrderInput }, ctx: SubgraphContext) => {
        const order = openOrder(ctx, input.id);
        if (input.lineItems != null) {
          unpaidOpenOrder(ctx, order.id);
          if (order.lineItems.some((line) => fulfilledQuantity(ctx, line.id) > 0)) {
            throw gqlError(
              'CONFLICT',
              `order ${order.id} has fulfilled lines; change them one by one`,
            );
          }
          order.lineItems = buildLines(ctx, order.storeId, order.currencyCode, input.lineItems);
        }
        if (input.customerId !== undefined) order.customerId = input.customerId;
        if (input.email !== undefined) order.email = input.email;
        if (input.notes !== undefined) order.notes = input.notes;
        order.updatedAt = isoNow(ctx);
        return order;
      }),
      cancelOrder: rootField((args: { id: string; reason?: string | null }, ctx: SubgraphContext) =>
        transition(ctx, args.id, 'CANCELED', args.reason),
      ),
      completeOrder: rootField((args: { id: string }, ctx: SubgraphContext) =>
        transition(ctx, args.id, 'COMPLETED'),
      ),
      markOrderPaid: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const order = orders.get(ctx, args.id);
        if (order.paymentStatus !== 'UNPAID') return order;
        if (order.status === 'CANCELED') {
          throw gqlError('CONFLICT', `order ${order.id} is CANCELED and cannot be paid`, {
            currentStatus: order.status,
          });
        }
        const now = isoNow(ctx);
        Object.assign(order, {
          paymentStatus: 'PAID' satisfies PaymentStatus,
          paidAt: now,
          updatedAt: now,
        });
        return order;
      }),
      holdOrder: rootField((args: { id: string; reason: string }, ctx: SubgraphContext) => {
        const order = openOrder(ctx, args.id);
        order.holdReason = requireText(args.reason, 'reason');
        order.updatedAt = isoNow(ctx);
        return order;
      }),
      releaseOrderHold: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const order = orders.get(ctx, args.id);
        if (order.holdReason === null) return order;
        order.holdReason = null;
        order.updatedAt = isoNow(ctx);
        return order;
      }),
    },
  },
};
