import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import {
  CANARY_CARD_NUMBER,
  CANARY_TRACK1,
  CANARY_TRACK2,
  CANARY_TRACK3,
  CANARY_VALUES,
  COMMERCE_IDS,
} from '../../../src/simulator/fixtures/commerce.fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const A = COMMERCE_IDS.storeA;

/** Every canary value, the bare card number and the word CANARY (all canaries but the number carry it). */
const expectNoCardData = (text: string): void => {
  for (const value of CANARY_VALUES) expect(text).not.toContain(value);
  expect(text).not.toContain(CANARY_CARD_NUMBER);
  expect(text).not.toContain('CANARY');
};

describe('card data never leaves the gateway', () => {
  it('is absent from a transaction by id, raw included, and from node(id:)', async () => {
    const { body, text } = await stack.gql(
      `query($s: ID!, $t: ID!) { store(storeId: $s) { transaction(transactionId: $t) {
         id card { brand last4 expMonth expYear entryMethod } raw } } }`,
      { s: A, t: COMMERCE_IDS.canaryTransaction },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.store.transaction.card).toMatchObject({ brand: 'VISA', last4: '1111' });
    const detail = body.data.store.transaction.raw.fundingSource.cardDetail;
    expect(detail.number).toBe('[REDACTED]');
    expect(detail.type).toBe('VISA');
    expect(detail.entryDetails.entryMethod).toBe('SWIPE');
    expectNoCardData(text);

    const node = await stack.gql(
      `query($id: ID!) { node(id: $id) { ... on Transaction { raw } } }`,
      {
        id: body.data.store.transaction.id,
      },
    );
    expect(node.body.data.node.raw).toBeDefined();
    expectNoCardData(node.text);
  });

  it('is absent from every page of the transaction list', async () => {
    let after: string | null = null;
    for (;;) {
      const { body, text } = await stack.gql(
        `query($s: ID!, $after: String) { store(storeId: $s) { transactions(first: 50, after: $after) {
           pageInfo { hasNextPage endCursor } edges { node { card { last4 } raw } } } } }`,
        { s: A, after },
      );
      expectNoCardData(text);
      // No track data or PAN of any transaction either: every raw card number is redacted.
      for (const edge of body.data.store.transactions.edges) {
        const detail = edge.node.raw.fundingSource.cardDetail;
        expect(detail.number).toBe('[REDACTED]');
        for (const field of ['track1data', 'track2data', 'track3data']) {
          expect([null, '[REDACTED]']).toContain(detail[field]);
        }
        expect([null, '[REDACTED]']).toContain(
          edge.node.raw.fundingSource.cardVerificationData.cvData,
        );
        expect(edge.node.card.last4).toMatch(/^\d{4}$/);
      }
      const page = body.data.store.transactions.pageInfo;
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
  });

  it('is absent from the gateway logs', async () => {
    await stack.gql(
      `query($s: ID!, $t: ID!) { store(storeId: $s) { transaction(transactionId: $t) { raw } } }`,
      { s: A, t: COMMERCE_IDS.canaryTransaction },
    );
    const logs = stack.logs.join('\n');
    for (const value of [CANARY_CARD_NUMBER, CANARY_TRACK1, CANARY_TRACK2, CANARY_TRACK3]) {
      expect(logs).not.toContain(value);
    }
    expect(logs).not.toContain('CANARY');
  });
});

describe("another account on account A's store", () => {
  it('gets NOT_FOUND and none of the data, for REST and subgraph fields alike', async () => {
    const { body, text } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { raw transactions(first: 5) { edges { node { transactionId } } }
         customers(first: 5) { edges { node { customerId } } } } sku(id: "sku_0001", storeId: $s) { name } }`,
      { s: A },
      { token: 'demo-other' },
    );
    expect(body.data).toEqual({ store: null, sku: null });
    const codes = new Set(body.errors.map((e: any) => e.extensions.code));
    expect([...codes]).toEqual(['NOT_FOUND']);
    expect(text).not.toContain('Outfitters');
    expect(text).not.toContain('Ridgeline');
    expect(text).not.toContain(COMMERCE_IDS.canaryTransaction);
  });

  it('gets null for a channel of account A (its get-by-id 401 and an empty fallback list)', async () => {
    const { body } = await stack.gql(
      `query($c: ID!, $s: ID) { channel(channelId: $c, storeId: $s) { raw } }`,
      { c: COMMERCE_IDS.channelWebA, s: A },
      { token: 'demo-other' },
    );
    expect(body.data.channel).toBeNull();
  });
});

describe('scopes (commerce document scope table)', () => {
  it('lets a read-only token read every commerce part', async () => {
    const { body } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { raw channels { channelId } customers(first: 1) { edges { cursor } }
         transactions(first: 1) { edges { cursor } } sku(id: "sku_0001") { id } classification(id: "txc_001") { id } }
         orders(first: 1) { totalCount } }`,
      { s: A },
      { token: 'demo-readonly' },
    );
    expect(body.errors).toBeUndefined();
  });

  it.each([
    [
      'createStoreCustomer',
      `mutation($s: ID!) { createStoreCustomer(input: { storeId: $s, customer: { email: "ro@example.com" } }) { userErrors { code } } }`,
      'commerce.customer:create',
    ],
    [
      'updateStoreCustomer',
      `mutation($s: ID!) { updateStoreCustomer(input: { storeId: $s, customerId: "${COMMERCE_IDS.firstCustomerA}", customer: { givenName: "Ro" } }) { userErrors { code } } }`,
      'commerce.customer:update',
    ],
    [
      'createSku',
      `mutation($s: ID!) { createSku(storeId: $s, input: { code: "RO-1", name: "Read only" }) { id } }`,
      'commerce.product:write',
    ],
    [
      'createRate',
      `mutation($s: ID!) { createRate(storeId: $s, input: { label: "Ro", value: { percentage: 1 } }) { id } }`,
      'commerce.tax:create',
    ],
    [
      'createOrder',
      `mutation($s: ID!) { createOrder(input: { storeId: $s, lineItems: [{ skuId: "sku_0001", quantity: 1 }] }) { id } }`,
      'commerce.order:create',
    ],
  ])('refuses %s to a read-only token with FORBIDDEN', async (_name, mutation, scope) => {
    const { body } = await stack.gql(mutation, { s: A }, { token: 'demo-readonly' });
    expect(body.errors[0].extensions).toMatchObject({
      code: 'FORBIDDEN',
      requiredScope: scope,
      upstream: { status: 403 },
    });
  });

  it('answers UNAUTHENTICATED without a token, before any call', async () => {
    const { body } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { raw } sku(id: "sku_0001", storeId: $s) { id } }`,
      { s: A },
      { token: null },
    );
    expect(body.errors.map((e: any) => e.extensions.code)).toEqual([
      'UNAUTHENTICATED',
      'UNAUTHENTICATED',
    ]);
    expect(await stack.upstreamCalls()).toBe(0);
  });
});
