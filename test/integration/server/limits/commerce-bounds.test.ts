/**
 * The commerce and stitched-subgraph call bounds (src/commerce/commerce.call-bounds.ts,
 * src/stitching/subgraph.call-bounds.ts) held against what execution really spends: each operation
 * runs against a gateway with no upstream cache and no response cache, and the calls the simulator
 * counts must never exceed the bound computed beforehand. Several cases are tight (bound = actual:
 * customer and transaction pages, `Store` fields of two subgraphs, stitched and commerce
 * mutations), so a declaration that undercounts fails here, not only in production.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type GqlResult, type Stack } from '../../../support/gateway-harness.ts';
import { boundOf } from '../../../support/call-bound.ts';
import { COMMERCE_IDS } from '../../../../src/simulator/fixtures/commerce.fixtures.ts';
import { CHANNEL_WALK_PAGES } from '../../../../src/commerce/commerce.call-bounds.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off', RESPONSE_CACHE: 'false' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const A = COMMERCE_IDS.storeA;
const B = COMMERCE_IDS.storeB;
const CATALOG = 'POST /v2/commerce/stores/{storeId}/catalog-subgraph';
const TAX = 'POST /v2/commerce/stores/{storeId}/tax-subgraph';
const CHANNELS = 'GET /v1/commerce/channels';

interface Measured {
  readonly bound: number;
  readonly actual: number;
  readonly body: GqlResult['body'];
}

/**
 * Runs `query` on an empty cache and returns its bound and the calls it made; fails when the calls
 * exceed the bound. `errors: 'allowed'` for a case whose point is a failing field.
 */
async function measure(
  name: string,
  query: string,
  variables: Record<string, unknown> = {},
  options: { headers?: Record<string, string>; errors?: 'allowed' } = {},
): Promise<Measured> {
  await stack.resetCounts();
  const bound = await boundOf(query, variables);
  const { body } = await stack.gql(query, variables, { headers: options.headers });
  const actual = await stack.upstreamCalls();
  console.log(
    `[bound] ${name}: bound ${bound.calls} / actual ${actual}` +
      (actual > 0 ? ` (÷ ${(bound.calls / actual).toFixed(2)})` : ''),
  );
  if (options.errors !== 'allowed') expect(body.errors).toBeUndefined();
  expect(actual).toBeLessThanOrEqual(bound.calls);
  return { bound: bound.calls, actual, body };
}

describe('commerce reads', () => {
  it('bounds the store overview screen of the benchmark', async () => {
    // test/bench/journey.ts, "store overview (transactions, stitched SKU)".
    const { bound, actual, body } = await measure(
      'store overview',
      `{ store(storeId: "${A}") { storeId raw channels { channelId }
          customers(first: 5) { edges { node { customerId } } }
          transactions(first: 10) { edges { node { transactionId status } } } }
        sku(id: "sku_0001", storeId: "${A}") { id name status } }`,
    );
    expect(body.data.store.transactions.edges).toHaveLength(10);
    expect(body.data.sku.id).toBe('sku_0001');
    // store, one channel page, customers, transactions, catalog.
    expect(actual).toBe(5);
    // The channel walk counts its whole possible length; everything else is exact.
    expect(bound).toBe(4 + CHANNEL_WALK_PAGES);
  });

  it('bounds each page of a customer walk exactly', async () => {
    const query = `query($s: ID!, $first: Int, $after: String) { store(storeId: $s) {
      customers(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor } edges { cursor node { customerId storeId raw } } } } }`;
    let after: string | null = null;
    for (let page = 0; page < 3; page += 1) {
      const { bound, actual, body } = await measure(`customers page ${page + 1}`, query, {
        s: A,
        first: 25,
        after,
      });
      expect(actual).toBe(1);
      expect(bound).toBe(1);
      const connection = body.data.store.customers;
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
  });

  it('bounds transaction pages (with totalCount and filters) and reads by id', async () => {
    const page = `query($s: ID!, $first: Int, $after: String, $filter: TransactionFilter) {
      store(storeId: $s) { transactions(first: $first, after: $after, filter: $filter) {
        totalCount pageInfo { hasNextPage endCursor }
        edges { node { transactionId status amount { formatted } card { last4 } references { value } } } } } }`;
    const first = await measure('transactions page 1', page, { s: A, first: 7 });
    expect(first.actual).toBe(1);
    expect(first.bound).toBe(1);
    const next = await measure('transactions page 2 (window across upstream pages)', page, {
      s: A,
      first: 7,
      after: first.body.data.store.transactions.pageInfo.endCursor,
      filter: { sortOrder: 'DESC', updatedAtAfter: '2000-01-01T00:00:00Z' },
    });
    expect(next.actual).toBe(1);

    // Two by id (one batched list call) beside a page: bound 3, actual 2.
    const byId = await measure(
      'transactions by id + page',
      `query($s: ID!, $t1: ID!, $t2: ID!) { store(storeId: $s) {
        t1: transaction(transactionId: $t1) { status }
        t2: transaction(transactionId: $t2) { status }
        transactions(first: 3) { edges { node { transactionId } } } } }`,
      { s: A, t1: COMMERCE_IDS.canaryTransaction, t2: COMMERCE_IDS.pendingReviewTransaction },
    );
    expect(byId.body.data.store.t2.status).toBe('PENDING_REVIEW');
    expect(byId.actual).toBe(2);
  });

  it('bounds the store record, attributes and a customer by id', async () => {
    const { actual, bound } = await measure(
      'store raw + attribute + customer',
      `query($s: ID!, $c: ID!) { store(storeId: $s) { raw
        attribute(name: "returnPolicyDays") customer(customerId: $c) { customerId } } }`,
      { s: A, c: COMMERCE_IDS.firstCustomerA },
    );
    expect(actual).toBe(3);
    expect(bound).toBe(3);
  });

  it('bounds channel lists and the 401 fallback of a channel by id', async () => {
    const lists = await measure(
      'channels (account, store) + store.channels',
      `query($s: ID!) { all: channels { channelId } mine: channels(storeId: $s) { channelId registeredStoreIds }
        store(storeId: $s) { channels { id channelId raw } } }`,
      { s: A },
    );
    expect(lists.body.data.mine.length).toBeGreaterThan(0);
    // One page per distinct walk (account, store A; the store's own walk shares store A's).
    expect(lists.actual).toBe(2);

    const restricted = await measure(
      'channel by id, 401 then the walk',
      `query($c: ID!, $s: ID) { channel(channelId: $c, storeId: $s) { channelId } }`,
      { c: COMMERCE_IDS.restrictedChannelA, s: A },
    );
    expect(restricted.body.data.channel.channelId).toBe(COMMERCE_IDS.restrictedChannelA);
    expect(restricted.actual).toBe(2);
  });
});

describe('stitched subgraphs', () => {
  it('bounds the mixed query of store, transactions, catalog, tax and orders', async () => {
    const { actual, bound } = await measure(
      'mixed commerce + catalog + tax + order',
      `query Mixed($s: ID!, $t1: ID!) {
        store(storeId: $s) {
          transactions(first: 5) { edges { node { transactionId } } }
          t1: transaction(transactionId: $t1) { status }
          sku(id: "sku_0001") { id name status price { value currencyCode } }
          classification(id: "txc_001") { id name label }
        }
        skus(first: 3, storeId: $s) { totalCount nodes { id } }
        rates(first: 2, storeId: $s) { totalCount }
        classifications(storeId: $s) { id }
        orders(first: 2) { totalCount }
      }`,
      { s: A, t1: COMMERCE_IDS.canaryTransaction },
    );
    // transactions 2, catalog 1, tax 1, order 1: the subgraph requests batch per store.
    expect(actual).toBe(5);
    expect(bound).toBe(8);
  });

  it('bounds the Store fields of two subgraphs exactly (one request each)', async () => {
    const { actual, bound } = await measure(
      'store.sku + store.classification',
      `query($s: ID!) { store(storeId: $s) { sku(id: "sku_0001") { id name }
        classification(id: "txc_001") { id label } } }`,
      { s: A },
    );
    expect(await stack.upstreamCalls(CATALOG)).toBe(1);
    expect(await stack.upstreamCalls(TAX)).toBe(1);
    expect(actual).toBe(2);
    expect(bound).toBe(2);
  });

  it('bounds stitched reads of two stores, by argument and by header', async () => {
    const twoStores = await measure(
      'catalog reads for two stores',
      `query($a: ID, $b: ID) {
        one: sku(id: "sku_0001", storeId: $a) { id }
        two: sku(id: "sku_0002", storeId: $a) { id }
        page: skus(first: 2, storeId: $a) { nodes { id } }
        other: sku(id: "sku_0001", storeId: $b) { id }
      }`,
      { a: A, b: B },
      { errors: 'allowed' }, // store B is another account's: its request fails alone
    );
    expect(twoStores.actual).toBe(2);

    const byHeader = await measure(
      'catalog + tax + order nodes by header',
      `{ catalogNode(id: "sku_0001") { id } classification(id: "txc_001") { id }
         orders(first: 1) { nodes { id number } } }`,
      {},
      { headers: { 'x-store-id': A } },
    );
    expect(byHeader.actual).toBe(3);
    expect(byHeader.bound).toBe(3);
  });

  it('bounds stitched mutations exactly (one request each, in order)', async () => {
    const { actual, bound, body } = await measure(
      'createSku + createRate',
      `mutation($s: ID) {
        createSku(storeId: $s, input: { code: "BOUND-1", name: "Bound Jacket", status: ACTIVE }) { id name }
        createRate(storeId: $s, input: { label: "Bound tax", value: { percentage: 2.5 },
          classificationId: "txc_001" }) { id label } }`,
      { s: A },
    );
    expect(body.data.createSku.name).toBe('Bound Jacket');
    expect(body.data.createRate.label).toBe('Bound tax');
    expect(actual).toBe(2);
    expect(bound).toBe(2);
  });
});

describe('commerce mutations', () => {
  it('bounds createStoreCustomer and updateStoreCustomer exactly', async () => {
    const created = await measure(
      'createStoreCustomer',
      `mutation($input: CreateStoreCustomerInput!) { createStoreCustomer(input: $input) {
        customer { id customerId raw } userErrors { code } } }`,
      { input: { storeId: A, customer: { email: 'bound.buyer@example.com', givenName: 'Bound' } } },
    );
    expect(created.body.data.createStoreCustomer.userErrors).toEqual([]);
    expect(created.actual).toBe(1);
    expect(created.bound).toBe(1);

    const customerId = created.body.data.createStoreCustomer.customer.customerId;
    const updated = await measure(
      'updateStoreCustomer + read back',
      `mutation($input: UpdateStoreCustomerInput!) { updateStoreCustomer(input: $input) {
        customer { customerId raw } userErrors { code } } }`,
      { input: { storeId: A, customerId, customer: { familyName: 'Bounded' } } },
    );
    expect(updated.body.data.updateStoreCustomer.customer.raw.familyName).toBe('Bounded');
    expect(updated.actual).toBe(1);
    expect(updated.bound).toBe(1);
  });
});

describe('a channel walk of several pages', () => {
  it('stays within the bound of the whole walk', async () => {
    // 250 more channels for store A (account A), so the walk takes three pages of 100.
    const state = stack.sim.simulator.context.state.commerce;
    const template = state.channels.find(
      (entry) => entry.channel.channelId === COMMERCE_IDS.channelWebA,
    )!;
    for (let i = 0; i < 250; i += 1) {
      const channelId = `ffffffff-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      state.channels.push({
        ...template,
        restricted: false,
        channel: { ...template.channel, channelId, name: `Bound channel ${i}` },
      });
    }
    state.channels.sort((a, b) => (a.channel.channelId < b.channel.channelId ? -1 : 1));

    const { actual, bound, body } = await measure(
      'store.channels, 3-page walk',
      `query($s: ID!) { store(storeId: $s) { channels { channelId } } }`,
      { s: A },
    );
    expect(body.data.store.channels.length).toBeGreaterThan(250);
    expect(await stack.upstreamCalls(CHANNELS)).toBe(3);
    expect(actual).toBe(3);
    expect(bound).toBe(CHANNEL_WALK_PAGES);
  });
});
