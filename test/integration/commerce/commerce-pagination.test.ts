import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import {
  COMMERCE_IDS,
  STORE_A_CUSTOMER_COUNT,
  STORE_A_TRANSACTION_COUNT,
} from '../../../src/simulator/fixtures/commerce.fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const A = COMMERCE_IDS.storeA;
const CUSTOMERS = '/v1/commerce/stores/{storeId}/customers';
const TRANSACTIONS = 'GET /v2/commerce/stores/{storeId}/transactions';

const CUSTOMER_PAGE = `query($s: ID!, $first: Int, $after: String) { store(storeId: $s) {
  customers(first: $first, after: $after) {
    restarted pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { customerId } } } } }`;

const TRANSACTION_PAGE = `query($s: ID!, $first: Int, $after: String, $filter: TransactionFilter) {
  store(storeId: $s) { transactions(first: $first, after: $after, filter: $filter) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { transactionId updatedAt } } } } }`;

const TRANSACTION_PAGE_NO_TOTAL = TRANSACTION_PAGE.replace('totalCount ', '');

describe('store customers (v1 cursor)', () => {
  it('walks every page, one call per page, each customer once, in id order', async () => {
    const ids: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { body } = await stack.gql(CUSTOMER_PAGE, { s: A, first: 10, after });
      expect(body.errors).toBeUndefined();
      const connection = body.data.store.customers;
      expect(connection.restarted).toBe(false);
      ids.push(...connection.edges.map((e: any) => e.node.customerId));
      pages += 1;
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(pages).toBe(Math.ceil(STORE_A_CUSTOMER_COUNT / 10));
    expect(ids).toHaveLength(STORE_A_CUSTOMER_COUNT);
    expect(new Set(ids).size).toBe(STORE_A_CUSTOMER_COUNT);
    expect([...ids].sort()).toEqual(ids);
    expect(await stack.upstreamCalls(`GET ${CUSTOMERS}`)).toBe(pages);
  });

  it('says so when the marker is invalid, and repeats no customer', async () => {
    const firstPage = await stack.gql(CUSTOMER_PAGE, { s: A, first: 5 });
    const seen = firstPage.body.data.store.customers.edges.map((e: any) => e.node.customerId);
    // A cursor whose customer does not exist (e.g. deleted since): it sorts right after the
    // first page's last customer.
    const vanished = `${seen[4]}0`;
    const cursor = Buffer.from(`m:${vanished}`).toString('base64url');
    const { body } = await stack.gql(CUSTOMER_PAGE, { s: A, first: 5, after: cursor });
    expect(body.errors).toBeUndefined();
    const connection = body.data.store.customers;
    expect(connection.restarted).toBe(true);
    const ids = connection.edges.map((e: any) => e.node.customerId);
    for (const id of ids) {
      expect(seen).not.toContain(id);
      expect(id > vanished).toBe(true);
    }
    expect(connection.pageInfo.hasNextPage).toBe(true);
  });

  it('rejects a cursor that is not from this connection, and `first` out of range', async () => {
    const bad = await stack.gql(CUSTOMER_PAGE, { s: A, after: 'garbage!' });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    const big = await stack.gql(CUSTOMER_PAGE, { s: A, first: 101 });
    expect(big.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('transactions (page/pageSize)', () => {
  it('walks every page with totalCount, one call per page', async () => {
    const ids: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { body } = await stack.gql(TRANSACTION_PAGE, { s: A, first: 50, after });
      expect(body.errors).toBeUndefined();
      const connection = body.data.store.transactions;
      expect(connection.totalCount).toBe(STORE_A_TRANSACTION_COUNT);
      ids.push(...connection.edges.map((e: any) => e.node.transactionId));
      pages += 1;
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(new Set(ids).size).toBe(STORE_A_TRANSACTION_COUNT);
    expect(await stack.upstreamCalls(TRANSACTIONS)).toBe(3);
  });

  it('walks every page without totalCount (then the upstream is not asked for totals)', async () => {
    let after: string | null = null;
    let count = 0;
    let pages = 0;
    for (;;) {
      const { body } = await stack.gql(TRANSACTION_PAGE_NO_TOTAL, { s: A, first: 40, after });
      const connection = body.data.store.transactions;
      count += connection.edges.length;
      pages += 1;
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(count).toBe(STORE_A_TRANSACTION_COUNT);
    expect(pages).toBe(4);
  });

  it('filters by updatedAt bounds and sorts DESC', async () => {
    const all = await stack.gql(TRANSACTION_PAGE, {
      s: A,
      first: 100,
      filter: { sortOrder: 'DESC' },
    });
    const edges = all.body.data.store.transactions.edges.map((e: any) => e.node);
    const times = edges.map((n: any) => n.updatedAt);
    expect([...times].sort().reverse()).toEqual(times);
    const bound = times[10];
    const { body } = await stack.gql(TRANSACTION_PAGE, {
      s: A,
      first: 100,
      filter: { updatedAtAfter: bound },
    });
    const after = body.data.store.transactions;
    expect(after.totalCount).toBe(times.filter((t: string) => t > bound).length);
    for (const node of after.edges) expect(node.node.updatedAt > bound).toBe(true);
  });

  it.each([
    ['too short', { updatedAtAfter: '2026-01-01T00:00Z' }, 'filter.updatedAtAfter'],
    ['not RFC 3339', { updatedAtBefore: '2026-01-01 00:00:00+00:00' }, 'filter.updatedAtBefore'],
    [
      'too long',
      { updatedAtAfter: `2026-01-01T00:00:00.${'1'.repeat(50)}Z` },
      'filter.updatedAtAfter',
    ],
    [
      'a day February does not have',
      { updatedAtAfter: '2026-02-30T00:00:00Z' },
      'filter.updatedAtAfter',
    ],
    [
      '29 February of a common year',
      { updatedAtBefore: '2025-02-29T12:00:00Z' },
      'filter.updatedAtBefore',
    ],
    [
      'a leap second that is not at 23:59',
      { updatedAtAfter: '2026-06-30T12:00:60Z' },
      'filter.updatedAtAfter',
    ],
    ['a malformed id', { transactionIds: ['nope'] }, 'filter.transactionIds.0'],
  ])('rejects %s before any call', async (_name, filter, field) => {
    const { body } = await stack.gql(TRANSACTION_PAGE, { s: A, filter });
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('filters by transaction ids', async () => {
    const ids = [COMMERCE_IDS.canaryTransaction, COMMERCE_IDS.pendingReviewTransaction];
    const { body } = await stack.gql(TRANSACTION_PAGE, {
      s: A,
      first: 10,
      filter: { transactionIds: ids },
    });
    expect(body.data.store.transactions.totalCount).toBe(2);
    expect(body.data.store.transactions.edges.map((e: any) => e.node.transactionId).sort()).toEqual(
      [...ids].sort(),
    );
  });
});

describe('transactions by id', () => {
  it('loads N transactions of one request with exactly one upstream call', async () => {
    const list = await stack.gql(TRANSACTION_PAGE_NO_TOTAL, { s: A, first: 6 });
    const ids: string[] = list.body.data.store.transactions.edges.map(
      (e: any) => e.node.transactionId,
    );
    await stack.resetCounts();
    const aliases = ids
      .map((id, i) => `t${i}: transaction(transactionId: "${id}") { transactionId status }`)
      .join('\n');
    const { body } = await stack.gql(
      `query($s: ID!, $id: ID!) { store(storeId: $s) { ${aliases} } again: node(id: $id) { id } }`,
      { s: A, id: Buffer.from(JSON.stringify(['Transaction', A, ids[0]])).toString('base64url') },
    );
    expect(body.errors).toBeUndefined();
    ids.forEach((id, i) => expect(body.data.store[`t${i}`].transactionId).toBe(id));
    expect(await stack.upstreamCalls()).toBe(1);
    expect(await stack.upstreamCalls(TRANSACTIONS)).toBe(1);
  });
});
