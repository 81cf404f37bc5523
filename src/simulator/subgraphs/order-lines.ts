/**
 * What an order holds and what it costs: line items, the order discount and the shipping line.
 * They change only while the order is OPEN and unpaid (CONFLICT otherwise); a line cannot drop
 * below the units already fulfilled, and an order keeps at least one line. A line's price is the
 * SKU's LIST price in the order's currency unless given; its tax percentage is fixed when the line
 * is made (order.fixtures.ts).
 */
import {
  buildLineItem,
  orderTotals,
  type LineItemRecord,
  type OrderRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { findLine, fulfilledQuantity, returnedQuantity, unpaidOpenOrder } from './order.lookups.ts';
import {
  badInput,
  checkMoney,
  gqlError,
  isoNow,
  requireText,
  rootField,
  type MoneyInput,
  type SubgraphContext,
} from './subgraph-common.ts';
import type { SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "One line of an order: a SKU, how many, and at what price."
  type LineItem implements Node {
    "The line's id (li_…)."
    id: ID!
    "A catalog SKU id."
    skuId: String!
    "The SKU's name when the line was made."
    name: String!
    "Units ordered."
    quantity: Int!
    "Price of one unit."
    unitPrice: Money!
    "unitPrice × quantity."
    subtotal: Money!
    "The line's share of the order discount."
    discountTotal: Money!
    "Tax of the line after its discount."
    taxTotal: Money!
    "subtotal − discountTotal + taxTotal."
    total: Money!
    "The tax percentage fixed when the line was made."
    taxPercentage: Float!
    "Units in fulfilments that are not canceled."
    fulfilledQuantity: Int!
    "Units in returns that are not canceled."
    returnedQuantity: Int!
  }

  "A discount on a whole order."
  type OrderDiscount {
    "The discount or coupon code."
    code: String!
    "Percent off the subtotal; null for a fixed amount."
    percentage: Float
    "Fixed amount off the subtotal; null for a percentage."
    amount: Money
  }

  "How an order is shipped and what shipping costs."
  type ShippingLine {
    "The shipping method shown to the customer."
    title: String!
    "What shipping costs (not taxed)."
    price: Money!
  }

  "A line of a new or replaced order."
  input LineItemInput {
    "A catalog SKU of the order's store; it must be ACTIVE."
    skuId: String!
    "Units, at least 1."
    quantity: Int!
    "Defaults to the SKU's LIST price in the order's currency."
    unitPrice: SimpleMoneyInput
  }

  "A line to add to an order."
  input AddLineItemInput {
    "The order."
    orderId: ID!
    "A catalog SKU of the order's store; it must be ACTIVE."
    skuId: String!
    "Units, at least 1."
    quantity: Int!
    "Defaults to the SKU's LIST price in the order's currency."
    unitPrice: SimpleMoneyInput
  }

  "Changes to a line; omitted fields keep their values."
  input UpdateLineItemInput {
    "The line."
    lineItemId: ID!
    "New units, at least 1 and not below the units fulfilled."
    quantity: Int
    "New unit price, in the order's currency."
    unitPrice: SimpleMoneyInput
  }

  "A discount to put on an order: exactly one of percentage and amount."
  input ApplyOrderDiscountInput {
    "The order."
    orderId: ID!
    "The discount or coupon code, not empty."
    code: String!
    "Percent off the subtotal, above 0 and at most 100."
    percentage: Float
    "Fixed amount off the subtotal, in the order's currency."
    amount: SimpleMoneyInput
  }

  "The shipping of an order."
  input SetShippingLineInput {
    "The order."
    orderId: ID!
    "The shipping method, not empty."
    title: String!
    "What shipping costs, in the order's currency."
    price: SimpleMoneyInput!
  }

  extend type Mutation {
    "Adds a line to an OPEN, unpaid order."
    addLineItem("The order and the line." input: AddLineItemInput!): Order
    "Changes the quantity or price of a line of an OPEN, unpaid order."
    updateLineItem("The changes." input: UpdateLineItemInput!): Order
    "Removes a line without fulfilled units from an OPEN, unpaid order; the last line cannot go."
    removeLineItem("The line." lineItemId: ID!): Order
    "Puts a discount on an OPEN, unpaid order, replacing any other."
    applyOrderDiscount("The order and the discount." input: ApplyOrderDiscountInput!): Order
    "Takes the discount off an OPEN, unpaid order."
    removeOrderDiscount("The order." orderId: ID!): Order
    "Sets the shipping method and price of an OPEN, unpaid order."
    setShippingLine("The order and its shipping." input: SetShippingLineInput!): Order
  }
`;

export interface LineItemInput {
  skuId: string;
  quantity: number;
  unitPrice?: MoneyInput | null;
}

/** A line with its order: what `LineItem` resolves from. */
export interface OrderLine extends LineItemRecord {
  order: OrderRecord;
}

export const withOrder = (order: OrderRecord, line: LineItemRecord): OrderLine => ({
  ...line,
  order,
});

/** The unit price of a line: as given (in the order's currency), else the SKU's LIST price. */
function unitPriceOf(
  sku: string | { id: string; prices: { type: string; value: number; currencyCode: string }[] },
  currencyCode: string,
  given: MoneyInput | null | undefined,
  field: string,
): number {
  if (given) {
    const money = checkMoney(given, `${field}.unitPrice`);
    if (money.currencyCode !== currencyCode) {
      throw badInput(
        `unitPrice is in ${money.currencyCode}, the order in ${currencyCode}`,
        `${field}.unitPrice.currencyCode`,
      );
    }
    return money.value;
  }
  const list =
    typeof sku === 'string'
      ? undefined
      : sku.prices.find((p) => p.type === 'LIST' && p.currencyCode === currencyCode);
  if (!list) {
    const id = typeof sku === 'string' ? sku : sku.id;
    throw badInput(`SKU ${id} has no LIST price in ${currencyCode}`, `${field}.unitPrice`);
  }
  return list.value;
}

/** Checks every line before building any, so a rejected input leaves no trace. */
export function buildLines(
  ctx: SubgraphContext,
  storeId: string,
  currencyCode: string,
  inputs: readonly LineItemInput[],
  field = 'lineItems',
): LineItemRecord[] {
  if (inputs.length === 0) throw badInput('an order needs at least one line item', field);
  const checked = inputs.map((input, index) => {
    const at = `${field}[${index}]`;
    const sku = ctx.state.skus.get(input.skuId);
    if (!sku || sku.storeId !== storeId) {
      throw badInput(`unknown SKU ${input.skuId} in store ${storeId}`, `${at}.skuId`);
    }
    if (sku.status !== 'ACTIVE') {
      throw badInput(`SKU ${sku.id} is ${sku.status} and cannot be ordered`, `${at}.skuId`);
    }
    if (!Number.isInteger(input.quantity) || input.quantity < 1) {
      throw badInput('quantity must be at least 1', `${at}.quantity`);
    }
    return {
      sku,
      quantity: input.quantity,
      unitPrice: unitPriceOf(sku, currencyCode, input.unitPrice, at),
    };
  });
  return checked.map(({ sku, quantity, unitPrice }) =>
    buildLineItem(ctx.state, storeId, sku, quantity, unitPrice, ctx.now()),
  );
}

/** The line an input names, of an OPEN, unpaid order. */
function changeableLine(ctx: SubgraphContext, lineItemId: string) {
  const found = findLine(ctx, lineItemId);
  if (!found) throw gqlError('NOT_FOUND', `line item ${lineItemId} was not found`);
  unpaidOpenOrder(ctx, found.order.id);
  return found;
}

const touchOrder = (ctx: SubgraphContext, order: OrderRecord): OrderRecord => {
  order.updatedAt = isoNow(ctx);
  return order;
};

const amountsOf = (line: OrderLine, ctx: SubgraphContext) =>
  orderTotals(ctx.state, line.order).lines.get(line.id) ?? {
    subtotal: 0,
    discount: 0,
    tax: 0,
    total: 0,
  };

export const lineModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    LineItem: {
      unitPrice: (line: OrderLine) => ({
        amount: line.unitPrice,
        currencyCode: line.order.currencyCode,
      }),
      subtotal: (line: OrderLine, _args: unknown, ctx: SubgraphContext) => ({
        amount: amountsOf(line, ctx).subtotal,
        currencyCode: line.order.currencyCode,
      }),
      discountTotal: (line: OrderLine, _args: unknown, ctx: SubgraphContext) => ({
        amount: amountsOf(line, ctx).discount,
        currencyCode: line.order.currencyCode,
      }),
      taxTotal: (line: OrderLine, _args: unknown, ctx: SubgraphContext) => ({
        amount: amountsOf(line, ctx).tax,
        currencyCode: line.order.currencyCode,
      }),
      total: (line: OrderLine, _args: unknown, ctx: SubgraphContext) => ({
        amount: amountsOf(line, ctx).total,
        currencyCode: line.order.currencyCode,
      }),
      fulfilledQuantity: (line: OrderLine, _args: unknown, ctx: SubgraphContext) =>
        fulfilledQuantity(ctx, line.id),
      returnedQuantity: (line: OrderLine, _args: unknown, ctx: SubgraphContext) =>
        returnedQuantity(ctx, line.id),
    },
    OrderDiscount: {
      amount: (discount: { amount: number | null; currencyCode: string }) =>
        discount.amount === null
          ? null
          : { amount: discount.amount, currencyCode: discount.currencyCode },
    },
    Mutation: {
      addLineItem: rootField(
        ({ input }: { input: LineItemInput & { orderId: string } }, ctx: SubgraphContext) => {
          const order = unpaidOpenOrder(ctx, input.orderId);
          const [line] = buildLines(ctx, order.storeId, order.currencyCode, [input], 'input');
          if (line) order.lineItems.push(line);
          return touchOrder(ctx, order);
        },
      ),
      updateLineItem: rootField(
        (
          {
            input,
          }: {
            input: { lineItemId: string; quantity?: number | null; unitPrice?: MoneyInput | null };
          },
          ctx: SubgraphContext,
        ) => {
          const { order, line } = changeableLine(ctx, input.lineItemId);
          let quantity = line.quantity;
          if (input.quantity != null) {
            if (!Number.isInteger(input.quantity) || input.quantity < 1) {
              throw badInput('quantity must be at least 1', 'quantity');
            }
            const fulfilled = fulfilledQuantity(ctx, line.id);
            if (input.quantity < fulfilled) {
              throw gqlError(
                'CONFLICT',
                `${fulfilled} unit(s) of line ${line.id} are fulfilled; quantity cannot drop below that`,
              );
            }
            quantity = input.quantity;
          }
          const unitPrice = input.unitPrice
            ? unitPriceOf(line.skuId, order.currencyCode, input.unitPrice, 'input')
            : line.unitPrice;
          Object.assign(line, { quantity, unitPrice });
          return touchOrder(ctx, order);
        },
      ),
      removeLineItem: rootField((args: { lineItemId: string }, ctx: SubgraphContext) => {
        const { order, line } = changeableLine(ctx, args.lineItemId);
        if (fulfilledQuantity(ctx, line.id) > 0) {
          throw gqlError('CONFLICT', `line ${line.id} has fulfilled units and cannot be removed`);
        }
        if (order.lineItems.length === 1) {
          throw badInput('an order needs at least one line item', 'lineItemId');
        }
        order.lineItems = order.lineItems.filter((item) => item.id !== line.id);
        return touchOrder(ctx, order);
      }),
      applyOrderDiscount: rootField(
        (
          {
            input,
          }: {
            input: {
              orderId: string;
              code: string;
              percentage?: number | null;
              amount?: MoneyInput | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const order = unpaidOpenOrder(ctx, input.orderId);
          const code = requireText(input.code, 'code');
          if ((input.percentage == null) === (input.amount == null)) {
            throw badInput('give exactly one of percentage and amount', 'percentage');
          }
          let percentage: number | null = null;
          let amount: number | null = null;
          if (input.percentage != null) {
            if (!(input.percentage > 0 && input.percentage <= 100)) {
              throw badInput('percentage must be above 0 and at most 100', 'percentage');
            }
            percentage = input.percentage;
          } else if (input.amount) {
            const money = checkMoney(input.amount, 'amount');
            if (money.currencyCode !== order.currencyCode) {
              throw badInput(
                `amount is in ${money.currencyCode}, the order in ${order.currencyCode}`,
                'amount.currencyCode',
              );
            }
            amount = money.value;
          }
          order.discount = { code, percentage, amount };
          return touchOrder(ctx, order);
        },
      ),
      removeOrderDiscount: rootField((args: { orderId: string }, ctx: SubgraphContext) => {
        const order = unpaidOpenOrder(ctx, args.orderId);
        order.discount = null;
        return touchOrder(ctx, order);
      }),
      setShippingLine: rootField(
        (
          { input }: { input: { orderId: string; title: string; price: MoneyInput } },
          ctx: SubgraphContext,
        ) => {
          const order = unpaidOpenOrder(ctx, input.orderId);
          const title = requireText(input.title, 'title');
          const price = checkMoney(input.price, 'price');
          if (price.currencyCode !== order.currencyCode) {
            throw badInput(
              `price is in ${price.currencyCode}, the order in ${order.currencyCode}`,
              'price.currencyCode',
            );
          }
          order.shippingLine = { title, amount: price.value };
          return touchOrder(ctx, order);
        },
      ),
    },
  },
};
