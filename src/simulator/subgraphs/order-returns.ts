/**
 * Returns and refunds. A return asks to send back delivered units (at most those delivered and
 * not already in another non-canceled return) of an order that is not canceled: REQUESTED →
 * APPROVED → RECEIVED → COMPLETED, or CANCELED before the units arrive. A refund gives money back
 * on a paid order, at most what was paid and not yet refunded, optionally for a return; completing
 * a return refunds nothing by itself. Repeating the transition that produced the current state
 * changes nothing; any other transition out of turn is a CONFLICT.
 */
import {
  nextId,
  orderTotals,
  type OrderRecord,
  type RefundRecord,
  type ReturnReason,
  type ReturnRecord,
  type ReturnStatus,
} from '../fixtures/subgraph.fixtures.ts';
import { withOrder } from './order-lines.ts';
import {
  checkStore,
  fulfilledQuantity,
  lineOf,
  orders,
  refunds,
  returnedQuantity,
  returns,
  visible,
} from './order.lookups.ts';
import {
  badInput,
  checkMoney,
  gqlError,
  isoNow,
  paginate,
  rootField,
  type MoneyInput,
  type SubgraphContext,
} from './subgraph-common.ts';
import type { SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "Where a return stands."
  enum ReturnStatus {
    "Asked for by the customer."
    REQUESTED
    "Accepted: the customer may send the units."
    APPROVED
    "The units arrived."
    RECEIVED
    "Done."
    COMPLETED
    "Called off before the units arrived."
    CANCELED
  }

  "Why units come back."
  enum ReturnReason {
    "Arrived damaged."
    DAMAGED
    "Does not work."
    DEFECTIVE
    "Wrong size or fit."
    DOESNT_FIT
    "Not what the listing said."
    NOT_AS_DESCRIBED
    "No longer wanted."
    UNWANTED
    "Any other reason; see the customer's note."
    OTHER
  }

  "Units of one line in a return."
  type ReturnLine {
    "The order line."
    lineItem: LineItem!
    "Units of it."
    quantity: Int!
    "Why they come back."
    reason: ReturnReason!
  }

  "A customer's request to send back units of an order."
  type OrderReturn implements Node {
    "The return's id (ret_…)."
    id: ID!
    "The order."
    order: Order!
    "Where it stands."
    status: ReturnStatus!
    "The units coming back."
    lines: [ReturnLine!]!
    "The customer's note; null when none."
    customerNote: String
    "Why it was canceled; null unless CANCELED with a reason."
    cancelReason: String
    "Refunds given for it."
    refunds: [Refund!]!
    "When it was requested (ISO 8601)."
    createdAt: String!
    "When it last changed (ISO 8601)."
    updatedAt: String!
    "When it was approved (ISO 8601); null before."
    approvedAt: String
    "When the units arrived (ISO 8601); null before."
    receivedAt: String
    "When it was completed (ISO 8601); null before."
    completedAt: String
    "When it was canceled (ISO 8601); null unless CANCELED."
    canceledAt: String
  }

  "Money given back on an order."
  type Refund implements Node {
    "The refund's id (rfd_…)."
    id: ID!
    "The order."
    order: Order!
    "The return it is for; null when none."
    orderReturn: OrderReturn
    "What was given back."
    amount: Money!
    "Why; null when not given."
    reason: String
    "When it was given (ISO 8601)."
    createdAt: String!
  }

  "A return in a page of returns."
  type OrderReturnEdge {
    "Where this return is in the list: pass it as after to continue behind it."
    cursor: String!
    "The return."
    node: OrderReturn!
  }

  "A page of returns."
  type OrderReturnConnection {
    "The returns of the page with their cursors."
    edges: [OrderReturnEdge!]!
    "The returns of the page."
    nodes: [OrderReturn!]!
    "Where the page ends."
    pageInfo: PageInfo!
    "How many returns the whole list holds."
    totalCount: Int!
  }

  "A refund in a page of refunds."
  type RefundEdge {
    "Where this refund is in the list: pass it as after to continue behind it."
    cursor: String!
    "The refund."
    node: Refund!
  }

  "A page of refunds."
  type RefundConnection {
    "The refunds of the page with their cursors."
    edges: [RefundEdge!]!
    "The refunds of the page."
    nodes: [Refund!]!
    "Where the page ends."
    pageInfo: PageInfo!
    "How many refunds the whole list holds."
    totalCount: Int!
  }

  "Units of one line to send back."
  input ReturnLineInput {
    "A line of the order."
    lineItemId: ID!
    "Units, at least 1 and at most those delivered and not yet returned."
    quantity: Int!
    "Why they come back."
    reason: ReturnReason!
  }

  "A new return (REQUESTED)."
  input RequestReturnInput {
    "The order: not canceled."
    orderId: ID!
    "The units, at least one line."
    lines: [ReturnLineInput!]!
    "The customer's note."
    customerNote: String
  }

  "Money to give back."
  input CreateRefundInput {
    "The order: paid and not fully refunded."
    orderId: ID!
    "At least 1 minor unit and at most what is paid and not yet refunded, in the order's currency."
    amount: SimpleMoneyInput!
    "Why."
    reason: String
    "A return of the same order it is for; it must not be canceled."
    returnId: ID
  }

  extend type Order {
    "Its returns, oldest first."
    returns: [OrderReturn!]!
    "Its refunds, oldest first."
    refunds: [Refund!]!
  }

  extend type Query {
    "A return by id; null when none is visible to the caller."
    orderReturn("The return's id." id: ID!): OrderReturn
    "Returns, newest first, a page at a time."
    orderReturns(
      "Only this store's (one of the caller's account)."
      storeId: ID
      "Only this order's."
      orderId: ID
      "Only those in this status."
      status: ReturnStatus
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
    ): OrderReturnConnection!
    "A refund by id; null when none is visible to the caller."
    refund("The refund's id." id: ID!): Refund
    "Refunds, newest first, a page at a time."
    refunds(
      "Only this store's (one of the caller's account)."
      storeId: ID
      "Only this order's."
      orderId: ID
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
    ): RefundConnection!
  }

  extend type Mutation {
    "Records a customer's request to send back delivered units (needs commerce.order:update)."
    requestReturn("The order and the units." input: RequestReturnInput!): OrderReturn
    "Accepts a REQUESTED return (needs commerce.order:update)."
    approveReturn("The return." id: ID!): OrderReturn
    "Records that the units of an APPROVED return arrived (needs commerce.order:update)."
    receiveReturn("The return." id: ID!): OrderReturn
    "Completes a RECEIVED return (needs commerce.order:complete)."
    completeReturn("The return." id: ID!): OrderReturn
    "Cancels a REQUESTED or APPROVED return (needs commerce.order:cancel)."
    cancelReturn("The return." id: ID!, "Why." reason: String): OrderReturn
    "Gives money back on a paid order (needs commerce.order:update)."
    createRefund("The order and the amount." input: CreateRefundInput!): Refund
  }
`;

/** Each transition: the statuses it leaves from, and the timestamp it sets. */
const MOVES: Record<
  Exclude<ReturnStatus, 'REQUESTED'>,
  {
    from: readonly ReturnStatus[];
    stamp: 'approvedAt' | 'receivedAt' | 'completedAt' | 'canceledAt';
  }
> = {
  APPROVED: { from: ['REQUESTED'], stamp: 'approvedAt' },
  RECEIVED: { from: ['APPROVED'], stamp: 'receivedAt' },
  COMPLETED: { from: ['RECEIVED'], stamp: 'completedAt' },
  CANCELED: { from: ['REQUESTED', 'APPROVED'], stamp: 'canceledAt' },
};

function move(
  ctx: SubgraphContext,
  id: string,
  target: Exclude<ReturnStatus, 'REQUESTED'>,
  reason?: string | null,
): ReturnRecord {
  const ret = returns.get(ctx, id);
  if (ret.status === target) return ret;
  const { from, stamp } = MOVES[target];
  if (!from.includes(ret.status)) {
    throw gqlError('CONFLICT', `return ${ret.id} is ${ret.status} and cannot become ${target}`, {
      currentStatus: ret.status,
    });
  }
  const now = isoNow(ctx);
  ret.status = target;
  ret[stamp] = now;
  ret.updatedAt = now;
  if (target === 'CANCELED') ret.cancelReason = reason?.trim() || null;
  return ret;
}

const byOrder = <T extends { orderId: string }>(records: Map<string, T>, order: OrderRecord) =>
  [...records.values()].filter((record) => record.orderId === order.id);

const linesWithOrder = (ctx: SubgraphContext, ret: ReturnRecord) => {
  const order = orders.find(ctx, ret.orderId);
  return ret.lines.flatMap((item) => {
    const line = order?.lineItems.find((l) => l.id === item.lineItemId);
    return order && line
      ? [{ lineItem: withOrder(order, line), quantity: item.quantity, reason: item.reason }]
      : [];
  });
};

type Page = {
  storeId?: string | null;
  orderId?: string | null;
  first?: number | null;
  after?: string | null;
};

export const returnModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    OrderReturn: {
      order: (ret: ReturnRecord, _args: unknown, ctx: SubgraphContext) =>
        orders.find(ctx, ret.orderId),
      lines: (ret: ReturnRecord, _args: unknown, ctx: SubgraphContext) => linesWithOrder(ctx, ret),
      refunds: (ret: ReturnRecord, _args: unknown, ctx: SubgraphContext) =>
        visible(ctx, ctx.state.refunds).filter((refund) => refund.returnId === ret.id),
    },
    Refund: {
      order: (refund: RefundRecord, _args: unknown, ctx: SubgraphContext) =>
        orders.find(ctx, refund.orderId),
      orderReturn: (refund: RefundRecord, _args: unknown, ctx: SubgraphContext) =>
        returns.find(ctx, refund.returnId),
      amount: (refund: RefundRecord, _args: unknown, ctx: SubgraphContext) => ({
        amount: refund.amount,
        currencyCode: orders.find(ctx, refund.orderId)?.currencyCode ?? 'USD',
      }),
    },
    Order: {
      returns: (order: OrderRecord, _args: unknown, ctx: SubgraphContext) =>
        byOrder(ctx.state.returns, order),
      refunds: (order: OrderRecord, _args: unknown, ctx: SubgraphContext) =>
        byOrder(ctx.state.refunds, order),
    },
    Query: {
      orderReturn: rootField((args: { id: string }, ctx: SubgraphContext) =>
        returns.find(ctx, args.id),
      ),
      orderReturns: rootField(
        (args: Page & { status?: ReturnStatus | null }, ctx: SubgraphContext) => {
          if (args.storeId) checkStore(ctx, args.storeId);
          return paginate(
            visible(ctx, ctx.state.returns)
              .reverse()
              .filter(
                (ret) =>
                  (!args.storeId || ret.storeId === args.storeId) &&
                  (!args.orderId || ret.orderId === args.orderId) &&
                  (!args.status || ret.status === args.status),
              ),
            args.first,
            args.after,
          );
        },
      ),
      refund: rootField((args: { id: string }, ctx: SubgraphContext) => refunds.find(ctx, args.id)),
      refunds: rootField((args: Page, ctx: SubgraphContext) => {
        if (args.storeId) checkStore(ctx, args.storeId);
        return paginate(
          visible(ctx, ctx.state.refunds)
            .reverse()
            .filter(
              (refund) =>
                (!args.storeId || refund.storeId === args.storeId) &&
                (!args.orderId || refund.orderId === args.orderId),
            ),
          args.first,
          args.after,
        );
      }),
    },
    Mutation: {
      requestReturn: rootField(
        (
          {
            input,
          }: {
            input: {
              orderId: string;
              lines: { lineItemId: string; quantity: number; reason: ReturnReason }[];
              customerNote?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const order = orders.get(ctx, input.orderId);
          if (order.status === 'CANCELED') {
            throw gqlError('CONFLICT', `order ${order.id} is CANCELED; nothing can come back`, {
              currentStatus: order.status,
            });
          }
          if (input.lines.length === 0) throw badInput('lines must not be empty', 'lines');
          const seen = new Set<string>();
          const lines = input.lines.map((item, index) => {
            const field = `lines[${index}]`;
            const line = lineOf(order, item.lineItemId, `${field}.lineItemId`);
            if (seen.has(line.id)) throw badInput(`lines repeat ${line.id}`, `${field}.lineItemId`);
            seen.add(line.id);
            const left = fulfilledQuantity(ctx, line.id, true) - returnedQuantity(ctx, line.id);
            if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > left) {
              throw badInput(
                `quantity must be between 1 and the ${left} delivered unit(s) not yet returned`,
                `${field}.quantity`,
              );
            }
            return { lineItemId: line.id, quantity: item.quantity, reason: item.reason };
          });
          const now = isoNow(ctx);
          const ret: ReturnRecord = {
            id: nextId(ctx.state, 'ret'),
            orderId: order.id,
            storeId: order.storeId,
            status: 'REQUESTED',
            lines,
            customerNote: input.customerNote?.trim() || null,
            cancelReason: null,
            createdAt: now,
            updatedAt: now,
            approvedAt: null,
            receivedAt: null,
            completedAt: null,
            canceledAt: null,
          };
          ctx.state.returns.set(ret.id, ret);
          return ret;
        },
      ),
      approveReturn: rootField((args: { id: string }, ctx: SubgraphContext) =>
        move(ctx, args.id, 'APPROVED'),
      ),
      receiveReturn: rootField((args: { id: string }, ctx: SubgraphContext) =>
        move(ctx, args.id, 'RECEIVED'),
      ),
      completeReturn: rootField((args: { id: string }, ctx: SubgraphContext) =>
        move(ctx, args.id, 'COMPLETED'),
      ),
      cancelReturn: rootField(
        (args: { id: string; reason?: string | null }, ctx: SubgraphContext) =>
          move(ctx, args.id, 'CANCELED', args.reason),
      ),
      createRefund: rootField(
        (
          {
            input,
          }: {
            input: {
              orderId: string;
              amount: MoneyInput;
              reason?: string | null;
              returnId?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const order = orders.get(ctx, input.orderId);
          if (order.paymentStatus === 'UNPAID' || order.paymentStatus === 'REFUNDED') {
            throw gqlError(
              'CONFLICT',
              `order ${order.id} is ${order.paymentStatus}; nothing to refund`,
              {
                paymentStatus: order.paymentStatus,
              },
            );
          }
          const amount = checkMoney(input.amount, 'amount');
          if (amount.currencyCode !== order.currencyCode) {
            throw badInput(
              `amount is in ${amount.currencyCode}, the order in ${order.currencyCode}`,
              'amount.currencyCode',
            );
          }
          const totals = orderTotals(ctx.state, order);
          const refundable = totals.total - totals.refundedTotal;
          if (amount.value < 1 || amount.value > refundable) {
            throw badInput(
              `amount must be between 1 and the ${refundable} still refundable`,
              'amount.value',
            );
          }
          let returnId: string | null = null;
          if (input.returnId != null) {
            const ret = returns.find(ctx, input.returnId);
            if (!ret || ret.orderId !== order.id) {
              throw badInput(
                `return ${input.returnId} is not a return of order ${order.id}`,
                'returnId',
              );
            }
            if (ret.status === 'CANCELED')
              throw badInput(`return ${ret.id} is CANCELED`, 'returnId');
            returnId = ret.id;
          }
          const now = isoNow(ctx);
          const refund: RefundRecord = {
            id: nextId(ctx.state, 'rfd'),
            orderId: order.id,
            storeId: order.storeId,
            returnId,
            amount: amount.value,
            reason: input.reason?.trim() || null,
            createdAt: now,
          };
          ctx.state.refunds.set(refund.id, refund);
          order.paymentStatus = amount.value === refundable ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
          order.updatedAt = now;
          return refund;
        },
      ),
    },
  },
};
