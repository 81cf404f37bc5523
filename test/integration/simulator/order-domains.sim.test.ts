/**
 * Round trips through the order subgraph's sub-domains, over HTTP: an order's lines, discount and
 * shipping; payment and hold; addresses and comments; fulfilments; returns and refunds — each seen
 * by a later read, with the state machines refusing moves out of turn (CONFLICT).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_A } from '../../../src/simulator/accounts.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { subgraphClient } from '../../support/subgraph-client.ts';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const { post: order, ok, codes } = subgraphClient(() => sim, 'order');

const TOTALS =
  'totals { subtotal { amount } discountTotal { amount } shippingTotal { amount } taxTotal { amount } total { amount } refundedTotal { amount } }';

/** A new OPEN order of store A: 2 × Trail Runner 3 (135.00, standard) + 1 × Trail Mix (12.99, 0 %). */
async function newOrder(): Promise<{ id: string; lines: string[] }> {
  const { createOrder } =
    await ok(`mutation { createOrder(input: { storeId: "${STORE_A}", lineItems: [
    { skuId: "sku_0009", quantity: 2 }, { skuId: "sku_0024", quantity: 1 }
  ] }) { id lineItems { id } } }`);
  return { id: createOrder.id, lines: createOrder.lineItems.map((line: any) => line.id) };
}

describe('lines, discount and shipping', () => {
  it('adds, changes and removes lines; discounts before tax; ships untaxed', async () => {
    const { id, lines } = await newOrder();
    const added = await ok(
      `mutation { addLineItem(input: { orderId: "${id}", skuId: "sku_0020", quantity: 1 }) { lineItems { skuId } } }`,
    );
    expect(added.addLineItem.lineItems.map((l: any) => l.skuId)).toEqual([
      'sku_0009',
      'sku_0024',
      'sku_0020',
    ]);
    const third = (await ok(`{ order(id: "${id}") { lineItems { id } } }`)).order.lineItems[2].id;
    await ok(`mutation { removeLineItem(lineItemId: "${third}") { id } }`);
    await ok(
      `mutation { updateLineItem(input: { lineItemId: "${lines[1]}", quantity: 2, unitPrice: { value: 1000, currencyCode: "USD" } }) { id } }`,
    );
    // 2 × 135.00 standard (8.625 %) + 2 × 10.00 groceries (0 %)
    const plain = await ok(`{ order(id: "${id}") { ${TOTALS} } }`);
    expect(plain.order.totals).toEqual({
      subtotal: { amount: 29000 },
      discountTotal: { amount: 0 },
      shippingTotal: { amount: 0 },
      taxTotal: { amount: 2329 },
      total: { amount: 31329 },
      refundedTotal: { amount: 0 },
    });

    expect(
      await codes(
        `mutation { applyOrderDiscount(input: { orderId: "${id}", code: "X", percentage: 10, amount: { value: 1, currencyCode: "USD" } }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);
    await ok(
      `mutation { applyOrderDiscount(input: { orderId: "${id}", code: "SPRING10", percentage: 10 }) { discount { code percentage } } }`,
    );
    await ok(
      `mutation { setShippingLine(input: { orderId: "${id}", title: "Ground", price: { value: 795, currencyCode: "USD" } }) { id } }`,
    );
    const discounted = await ok(
      `{ order(id: "${id}") { ${TOTALS} lineItems { discountTotal { amount } taxTotal { amount } } shippingLine { title price { amount } } } }`,
    );
    // 10 % of 290.00 = 29.00 spread by subtotal: 27.00 and 2.00; tax 8.625 % of 243.00 = 20.96
    expect(discounted.order.totals).toEqual({
      subtotal: { amount: 29000 },
      discountTotal: { amount: 2900 },
      shippingTotal: { amount: 795 },
      taxTotal: { amount: 2096 },
      total: { amount: 29000 - 2900 + 795 + 2096 },
      refundedTotal: { amount: 0 },
    });
    expect(discounted.order.lineItems).toEqual([
      { discountTotal: { amount: 2700 }, taxTotal: { amount: 2096 } },
      { discountTotal: { amount: 200 }, taxTotal: { amount: 0 } },
    ]);
    expect(discounted.order.shippingLine).toEqual({ title: 'Ground', price: { amount: 795 } });

    await ok(`mutation { markOrderPaid(id: "${id}") { paymentStatus paidAt } }`);
    expect(await codes(`mutation { removeOrderDiscount(orderId: "${id}") { id } }`)).toEqual([
      'CONFLICT',
    ]);
  });
});

describe('fulfilments, returns and refunds', () => {
  it('fulfils part of an order, returns delivered units and refunds them', async () => {
    const { id, lines } = await newOrder();
    await ok(`mutation { markOrderPaid(id: "${id}") { id } }`);
    expect(
      await codes(
        `mutation { createFulfillment(input: { orderId: "${id}", lines: [{ lineItemId: "${lines[0]}", quantity: 3 }] }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);
    const { createFulfillment } = await ok(
      `mutation { createFulfillment(input: { orderId: "${id}", lines: [{ lineItemId: "${lines[0]}", quantity: 2 }], trackingCompany: "UPS", trackingNumber: "1Z999" }) { id status order { fulfillmentStatus } } }`,
    );
    expect(createFulfillment).toMatchObject({
      status: 'OPEN',
      order: { fulfillmentStatus: 'PARTIALLY_FULFILLED' },
    });
    const fulfilment = createFulfillment.id;
    expect(
      await codes(
        `mutation { requestReturn(input: { orderId: "${id}", lines: [{ lineItemId: "${lines[0]}", quantity: 1, reason: DOESNT_FIT }] }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']); // not delivered yet
    await ok(
      `mutation { updateFulfillmentTracking(input: { id: "${fulfilment}", trackingUrl: "https://ups.example/1Z999" }) { id } }`,
    );
    await ok(`mutation { completeFulfillment(id: "${fulfilment}") { status deliveredAt } }`);
    expect(await codes(`mutation { cancelFulfillment(id: "${fulfilment}") { id } }`)).toEqual([
      'CONFLICT',
    ]);
    expect(await codes(`mutation { cancelOrder(id: "${id}") { id } }`)).toEqual(['CONFLICT']);

    const { requestReturn } = await ok(
      `mutation { requestReturn(input: { orderId: "${id}", customerNote: "too small", lines: [{ lineItemId: "${lines[0]}", quantity: 1, reason: DOESNT_FIT }] }) { id status lines { quantity lineItem { id returnedQuantity } } } }`,
    );
    expect(requestReturn).toMatchObject({
      status: 'REQUESTED',
      lines: [{ quantity: 1, lineItem: { id: lines[0], returnedQuantity: 1 } }],
    });
    const ret = requestReturn.id;
    expect(await codes(`mutation { completeReturn(id: "${ret}") { id } }`)).toEqual(['CONFLICT']);
    await ok(`mutation { approveReturn(id: "${ret}") { status } }`);
    await ok(`mutation { receiveReturn(id: "${ret}") { status } }`);
    const done = await ok(`mutation { completeReturn(id: "${ret}") { status completedAt } }`);
    expect(done.completeReturn.status).toBe('COMPLETED');

    const { order: before } = await ok(`{ order(id: "${id}") { totals { total { amount } } } }`);
    const total = before.totals.total.amount;
    expect(
      await codes(
        `mutation { createRefund(input: { orderId: "${id}", amount: { value: ${total + 1}, currencyCode: "USD" } }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);
    const { createRefund } = await ok(
      `mutation { createRefund(input: { orderId: "${id}", returnId: "${ret}", amount: { value: 14664, currencyCode: "USD" }, reason: "returned shoe" }) { id amount { amount currencyCode } orderReturn { id } } }`,
    );
    expect(createRefund).toMatchObject({
      amount: { amount: 14664, currencyCode: 'USD' },
      orderReturn: { id: ret },
    });
    const after = await ok(
      `{ order(id: "${id}") { paymentStatus totals { refundedTotal { amount } } refunds { id } returns { status } } }`,
    );
    expect(after.order).toEqual({
      paymentStatus: 'PARTIALLY_REFUNDED',
      totals: { refundedTotal: { amount: 14664 } },
      refunds: [{ id: createRefund.id }],
      returns: [{ status: 'COMPLETED' }],
    });
    const rest = total - 14664;
    const full = await ok(
      `mutation { createRefund(input: { orderId: "${id}", amount: { value: ${rest}, currencyCode: "USD" } }) { order { paymentStatus } } }`,
    );
    expect(full.createRefund.order.paymentStatus).toBe('REFUNDED');
    expect(
      await codes(
        `mutation { createRefund(input: { orderId: "${id}", amount: { value: 1, currencyCode: "USD" } }) { id } }`,
      ),
    ).toEqual(['CONFLICT']);

    const listed = await ok(
      `{ refunds(orderId: "${id}") { totalCount } orderReturns(orderId: "${id}") { nodes { id } } fulfillments(orderId: "${id}") { nodes { status } } }`,
    );
    expect(listed).toEqual({
      refunds: { totalCount: 2 },
      orderReturns: { nodes: [{ id: ret }] },
      fulfillments: { nodes: [{ status: 'DELIVERED' }] },
    });
  });

  it('cancels the open fulfilments of a canceled order', async () => {
    const { id } = await newOrder();
    const { createFulfillment } = await ok(
      `mutation { createFulfillment(input: { orderId: "${id}" }) { id lines { quantity } } }`,
    );
    expect(createFulfillment.lines).toEqual([{ quantity: 2 }, { quantity: 1 }]);
    expect(
      await codes(`mutation { createFulfillment(input: { orderId: "${id}" }) { id } }`),
    ).toEqual(['BAD_USER_INPUT']); // nothing left
    await ok(`mutation { cancelOrder(id: "${id}", reason: "fraud check") { status } }`);
    const { fulfillment } = await ok(
      `{ fulfillment(id: "${createFulfillment.id}") { status canceledAt } }`,
    );
    expect(fulfillment.status).toBe('CANCELED');
  });
});

describe('hold, addresses, comments and look-ups', () => {
  it('holds an order against completion, then releases it', async () => {
    const { id } = await newOrder();
    await ok(`mutation { holdOrder(id: "${id}", reason: "address check") { onHold holdReason } }`);
    expect(await codes(`mutation { completeOrder(id: "${id}") { id } }`)).toEqual(['CONFLICT']);
    expect(
      await codes(`mutation { createFulfillment(input: { orderId: "${id}" }) { id } }`),
    ).toEqual(['CONFLICT']);
    await ok(`mutation { releaseOrderHold(id: "${id}") { onHold } }`);
    expect(
      (await ok(`mutation { completeOrder(id: "${id}") { status } }`)).completeOrder.status,
    ).toBe('COMPLETED');
    expect(
      await codes(
        `mutation { setOrderAddresses(input: { orderId: "${id}", shippingAddress: { line1: "1 Main", city: "X", postalCode: "1", countryCode: "US" } }) { id } }`,
      ),
    ).toEqual(['CONFLICT']);
  });

  it('sets addresses and keeps staff comments', async () => {
    const { id } = await newOrder();
    const set = await ok(`mutation { setOrderAddresses(input: { orderId: "${id}",
      shippingAddress: { name: "Ada", line1: "12 Analytical Way", city: "London", postalCode: "N1 9GU", countryCode: "GB" } }) {
      shippingAddress { name city countryCode } billingAddress { city } } }`);
    expect(set.setOrderAddresses).toEqual({
      shippingAddress: { name: 'Ada', city: 'London', countryCode: 'GB' },
      billingAddress: null,
    });
    expect(
      await codes(
        `mutation { setOrderAddresses(input: { orderId: "${id}", billingAddress: { line1: "x", city: "y", postalCode: "z", countryCode: "GBR" } }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);

    const added = await ok(
      `mutation { addOrderComment(orderId: "${id}", body: "called the customer") { comments { id body } } }`,
    );
    const comment = added.addOrderComment.comments[0].id;
    await ok(
      `mutation { updateOrderComment(commentId: "${comment}", body: "called twice") { id } }`,
    );
    expect((await ok(`{ order(id: "${id}") { comments { body } } }`)).order.comments).toEqual([
      { body: 'called twice' },
    ]);
    await ok(`mutation { deleteOrderComment(commentId: "${comment}") { id } }`);
    expect(await codes(`mutation { deleteOrderComment(commentId: "${comment}") { id } }`)).toEqual([
      'NOT_FOUND',
    ]);
  });

  it('finds orders by number, duplicates one, and hides other accounts’ records', async () => {
    const { orderByNumber } = await ok(
      `{ orderByNumber(storeId: "${STORE_A}", number: "a-1002") { id fulfillmentStatus paymentStatus } }`,
    );
    expect(orderByNumber).toEqual({
      id: 'ord_0002',
      fulfillmentStatus: 'FULFILLED',
      paymentStatus: 'PARTIALLY_REFUNDED',
    });
    const { duplicateOrder } = await ok(
      'mutation { duplicateOrder(id: "ord_0002") { id status paymentStatus lineItems { skuId quantity } } }',
    );
    expect(duplicateOrder).toMatchObject({
      status: 'OPEN',
      paymentStatus: 'UNPAID',
      lineItems: [
        { skuId: 'sku_0012', quantity: 1 },
        { skuId: 'sku_0021', quantity: 2 },
      ],
    });
    for (const [id, type] of [
      ['ful_0001', 'Fulfillment'],
      ['ret_0001', 'OrderReturn'],
      ['rfd_0001', 'Refund'],
    ]) {
      expect((await ok(`{ node(id: "${id}") { __typename id } }`)).node).toEqual({
        __typename: type,
        id,
      });
      const other = await order(`{ node(id: "${id}") { id } }`, undefined, 'demo-other');
      expect(other.data.node).toBeNull();
    }
  });
});
