import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';

// Call counts are about what the gateway asks for: the response cache (another layer) is off so
// that a read repeated by an earlier test does not hide a call.
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const A = COMMERCE_IDS.storeA;

describe('store', () => {
  it('reads the store record and one attribute, one call each', async () => {
    const { body } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { id storeId raw attribute(name: "returnPolicyDays") } }`,
      { s: A },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.store.storeId).toBe(A);
    expect(body.data.store.raw).toMatchObject({ storeId: A, currency: 'USD' });
    expect(body.data.store.attribute).toMatchObject({ name: 'returnPolicyDays', value: 30 });
    expect(await stack.upstreamCalls('GET /v1/commerce/stores/{storeId}')).toBe(1);
    expect(
      await stack.upstreamCalls('GET /v1/commerce/stores/{storeId}/attributes/{attrName}'),
    ).toBe(1);
  });

  it('answers null for an unknown attribute', async () => {
    const { body } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { attribute(name: "noSuchAttribute") } }`,
      { s: A },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.store.attribute).toBeNull();
  });

  it('costs no call at all when only the id is asked for', async () => {
    const { body } = await stack.gql(`query($s: ID!) { store(storeId: $s) { storeId } }`, { s: A });
    expect(body.data.store.storeId).toBe(A);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('rejects a malformed store id before any call', async () => {
    const { body } = await stack.gql(`{ store(storeId: "not-a-uuid") { raw } }`);
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'storeId' });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('resolves the store again from its global id', async () => {
    const first = await stack.gql(`query($s: ID!) { store(storeId: $s) { id } }`, { s: A });
    const { body } = await stack.gql(
      `query($id: ID!) { node(id: $id) { __typename ... on Store { storeId } } }`,
      { id: first.body.data.store.id },
    );
    expect(body.data.node).toEqual({ __typename: 'Store', storeId: A });
  });
});

describe('channels', () => {
  it('lists the channels of a store, and of the whole account', async () => {
    const { body } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { channels { channelId registeredStoreIds } }
         mine: channels { channelId } byStore: channels(storeId: $s) { channelId } }`,
      { s: A },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.store.channels).toHaveLength(6);
    for (const channel of body.data.store.channels) expect(channel.registeredStoreIds).toEqual([A]);
    // The store's list and `channels(storeId:)` are the same read: loaded once.
    expect(body.data.byStore).toEqual(
      body.data.store.channels.map((c: any) => ({ channelId: c.channelId })),
    );
    expect(body.data.mine).toHaveLength(6);
    expect(await stack.upstreamCalls('GET /v1/commerce/channels')).toBe(2);
  });

  it('reads a channel by id with one call', async () => {
    const { body } = await stack.gql(
      `query($c: ID!) { channel(channelId: $c) { id channelId raw } }`,
      { c: COMMERCE_IDS.channelWebA },
    );
    expect(body.data.channel).toMatchObject({
      channelId: COMMERCE_IDS.channelWebA,
      raw: { name: 'Web Storefront' },
    });
    expect(await stack.upstreamCalls()).toBe(1);
  });

  it('falls back to the store-filtered list when get-by-id answers 401', async () => {
    const { body } = await stack.gql(
      `query($c: ID!, $s: ID) { channel(channelId: $c, storeId: $s) { channelId raw } }`,
      { c: COMMERCE_IDS.restrictedChannelA, s: A },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.channel).toMatchObject({
      channelId: COMMERCE_IDS.restrictedChannelA,
      raw: { type: 'MARKETPLACE' },
    });
    expect(await stack.upstreamCalls('GET /v1/commerce/channels/{channelId}')).toBe(1);
    expect(await stack.upstreamCalls('GET /v1/commerce/channels')).toBe(1);
  });

  it('answers null for an unknown channel', async () => {
    const { body } = await stack.gql(
      `{ channel(channelId: "00000000-0000-4000-8000-000000000000") { channelId } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.channel).toBeNull();
  });
});

describe('customers and transactions by id', () => {
  it('reads a customer, and null for an unknown one', async () => {
    const { body } = await stack.gql(
      `query($s: ID!, $c: ID!) { store(storeId: $s) {
         known: customer(customerId: $c) { id customerId storeId raw }
         unknown: customer(customerId: "c0ffee00-0000-4000-8000-000000000000") { customerId } } }`,
      { s: A, c: COMMERCE_IDS.firstCustomerA },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.store.known).toMatchObject({
      customerId: COMMERCE_IDS.firstCustomerA,
      storeId: A,
      raw: { customerId: COMMERCE_IDS.firstCustomerA },
    });
    expect(body.data.store.unknown).toBeNull();
  });

  it('shows a transaction with money in minor units and a formatted decimal', async () => {
    const { body } = await stack.gql(
      `query($s: ID!, $t: ID!) { store(storeId: $s) { transaction(transactionId: $t) {
         id transactionId storeId status type amountType channelId createdAt
         amount { amount currency formatted }
         card { brand last4 expMonth expYear entryMethod } } } }`,
      { s: A, t: COMMERCE_IDS.canaryTransaction },
    );
    expect(body.errors).toBeUndefined();
    const txn = body.data.store.transaction;
    expect(txn).toMatchObject({
      transactionId: COMMERCE_IDS.canaryTransaction,
      storeId: A,
      amountType: 'TOTAL',
      card: { brand: 'VISA', last4: '1111', entryMethod: 'SWIPE' },
    });
    expect(txn.amount.currency).toBe('USD');
    expect(txn.amount.formatted).toBe((txn.amount.amount / 100).toFixed(2));
    expect(txn.card.expMonth).toBeGreaterThanOrEqual(1);
    const again = await stack.gql(
      `query($id: ID!) { node(id: $id) { ... on Transaction { transactionId } } }`,
      { id: txn.id },
    );
    expect(again.body.data.node.transactionId).toBe(COMMERCE_IDS.canaryTransaction);
  });

  it('formats zero- and three-decimal currencies by their exponent', async () => {
    const { body } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { transactions(first: 100) {
         edges { node { amount { amount currency formatted } } } } } }`,
      { s: A },
    );
    const amounts = body.data.store.transactions.edges.map((e: any) => e.node.amount);
    const jpy = amounts.find((m: any) => m.currency === 'JPY');
    const kwd = amounts.find((m: any) => m.currency === 'KWD');
    expect(jpy.formatted).toBe(String(jpy.amount));
    expect(kwd.formatted).toBe((kwd.amount / 1000).toFixed(3));
  });

  it('keeps an unlisted status readable as text', async () => {
    const { body } = await stack.gql(
      `query($s: ID!, $t: ID!) { store(storeId: $s) { transaction(transactionId: $t) { status } } }`,
      { s: A, t: COMMERCE_IDS.pendingReviewTransaction },
    );
    expect(body.data.store.transaction.status).toBe('PENDING_REVIEW');
  });

  it('answers null for an unknown transaction, and rejects a malformed id before any call', async () => {
    const unknown = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { transaction(transactionId: "00000000-0000-4000-8000-000000000000") { status } } }`,
      { s: A },
    );
    expect(unknown.body.data.store.transaction).toBeNull();
    await stack.resetCounts();
    const bad = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { transaction(transactionId: "42") { status } } }`,
      { s: A },
    );
    expect(bad.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'transactionId',
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('passes a uuid client request id through to the transaction calls', async () => {
    const requestId = '0b5f8a52-3f5e-4d7a-9a43-6f7a1f5b9c21';
    const { body, headers } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { transactions(first: 1) { edges { cursor } } } }`,
      { s: A },
      { headers: { 'x-request-id': requestId } },
    );
    // The simulator rejects a malformed `x-request-id` with 400: success means it was a uuid.
    expect(body.errors).toBeUndefined();
    expect(headers['x-request-id']).toBe(requestId);
  });
});
