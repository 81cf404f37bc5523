/**
 * The order subgraph's lookups. Orders are global: a record is visible when its store belongs to
 * the caller's account, and one of another account is absent (null, or NOT_FOUND for the record a
 * mutation acts on).
 */
import { STORE_ACCOUNTS } from '../accounts.ts';
import type {
  FulfillmentRecord,
  LineItemRecord,
  OrderRecord,
  RefundRecord,
  ReturnRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { badInput, gqlError, type SubgraphContext } from './subgraph-common.ts';

export const visibleStore = (ctx: SubgraphContext, storeId: string): boolean =>
  STORE_ACCOUNTS[storeId] === ctx.accountId;

/** A store id an argument names: NOT_FOUND when it is not the caller's. */
export function checkStore(ctx: SubgraphContext, storeId: string): string {
  if (!visibleStore(ctx, storeId)) throw gqlError('NOT_FOUND', `store ${storeId} was not found`);
  return storeId;
}

/** The visible records of a map, optionally narrowed. */
export const visible = <T extends { storeId: string }>(
  ctx: SubgraphContext,
  records: Map<string, T>,
): T[] => [...records.values()].filter((record) => visibleStore(ctx, record.storeId));

function finder<T extends { storeId: string }>(
  label: string,
  select: (ctx: SubgraphContext) => Map<string, T>,
) {
  const find = (ctx: SubgraphContext, id: string | null | undefined): T | null => {
    if (id === null || id === undefined) return null;
    const record = select(ctx).get(id);
    return record && visibleStore(ctx, record.storeId) ? record : null;
  };
  const get = (ctx: SubgraphContext, id: string): T => {
    const record = find(ctx, id);
    if (!record) throw gqlError('NOT_FOUND', `${label} ${id} was not found`);
    return record;
  };
  return { find, get };
}

export const orders = finder<OrderRecord>('order', (ctx) => ctx.state.orders);
export const fulfillments = finder<FulfillmentRecord>(
  'fulfillment',
  (ctx) => ctx.state.fulfillments,
);
export const returns = finder<ReturnRecord>('return', (ctx) => ctx.state.returns);
export const refunds = finder<RefundRecord>('refund', (ctx) => ctx.state.refunds);

/** An order that may still change: CONFLICT unless it is OPEN. */
export function openOrder(ctx: SubgraphContext, id: string): OrderRecord {
  const order = orders.get(ctx, id);
  if (order.status !== 'OPEN') {
    throw gqlError('CONFLICT', `order ${order.id} is ${order.status} and can no longer change`, {
      currentStatus: order.status,
    });
  }
  return order;
}

/** An OPEN order whose amounts may still change: CONFLICT once it is paid. */
export function unpaidOpenOrder(ctx: SubgraphContext, id: string): OrderRecord {
  const order = openOrder(ctx, id);
  if (order.paymentStatus !== 'UNPAID') {
    throw gqlError('CONFLICT', `order ${order.id} is paid; its amounts can no longer change`, {
      paymentStatus: order.paymentStatus,
    });
  }
  return order;
}

/** A line item of a visible order, with its order. */
export function findLine(
  ctx: SubgraphContext,
  lineItemId: string,
): { order: OrderRecord; line: LineItemRecord } | null {
  for (const order of visible(ctx, ctx.state.orders)) {
    const line = order.lineItems.find((item) => item.id === lineItemId);
    if (line) return { order, line };
  }
  return null;
}

/** A line of a given order that an input names: BAD_USER_INPUT when it is not one. */
export function lineOf(order: OrderRecord, lineItemId: string, field: string): LineItemRecord {
  const line = order.lineItems.find((item) => item.id === lineItemId);
  if (!line) throw badInput(`line item ${lineItemId} is not a line of order ${order.id}`, field);
  return line;
}

/** Units of a line in fulfilments that are not canceled (or only DELIVERED ones). */
export function fulfilledQuantity(
  ctx: SubgraphContext,
  lineItemId: string,
  deliveredOnly = false,
): number {
  let sum = 0;
  for (const fulfillment of ctx.state.fulfillments.values()) {
    if (fulfillment.status === 'CANCELED') continue;
    if (deliveredOnly && fulfillment.status !== 'DELIVERED') continue;
    for (const line of fulfillment.lines) if (line.lineItemId === lineItemId) sum += line.quantity;
  }
  return sum;
}

/** Units of a line in returns that are not canceled. */
export function returnedQuantity(ctx: SubgraphContext, lineItemId: string): number {
  let sum = 0;
  for (const ret of ctx.state.returns.values()) {
    if (ret.status === 'CANCELED') continue;
    for (const line of ret.lines) if (line.lineItemId === lineItemId) sum += line.quantity;
  }
  return sum;
}
