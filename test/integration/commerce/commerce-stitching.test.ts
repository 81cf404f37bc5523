import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import { createTransport } from '../../../src/upstream/http/http-transport.ts';
import { DEFAULT_RETRY_POLICY } from '../../../src/upstream/http/retry-policy.ts';
import { createUpstreamClient } from '../../../src/upstream/upstream-client.ts';
import { pullRemoteSchemas } from '../../../src/stitching/pull-remote-schemas.ts';
import { REMOTE_SUBGRAPHS, snapshotUrl } from '../../../src/stitching/remote-subgraphs.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const A = COMMERCE_IDS.storeA;
const B = COMMERCE_IDS.storeB;
const CATALOG = 'POST /v2/commerce/stores/{storeId}/catalog-subgraph';
const TAX = 'POST /v2/commerce/stores/{storeId}/tax-subgraph';
const ORDER = 'POST /v1/commerce/order-subgraph';

describe('the mixed query', () => {
  it('reads store, transactions, catalog, tax and orders with exactly 5 upstream calls', async () => {
    const { body } = await stack.gql(
      `query Mixed($s: ID!, $t1: ID!, $t2: ID!) {
        store(storeId: $s) {
          storeId
          transactions(first: 5) { edges { node { transactionId amount { formatted } card { last4 } } } }
          t1: transaction(transactionId: $t1) { status }
          t2: transaction(transactionId: $t2) { status }
          sku(id: "sku_0001") { id name status price { value currencyCode } }
          classification(id: "txc_001") { id name label }
        }
        skus(first: 3, storeId: $s) { totalCount nodes { id } }
        rates(first: 2, storeId: $s) { totalCount }
        classifications(storeId: $s) { id }
        orders(first: 2) { totalCount }
      }`,
      { s: A, t1: COMMERCE_IDS.canaryTransaction, t2: COMMERCE_IDS.pendingReviewTransaction },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.store.transactions.edges).toHaveLength(5);
    expect(body.data.store.t2.status).toBe('PENDING_REVIEW');
    expect(body.data.store.sku).toMatchObject({ id: 'sku_0001', name: 'Ridgeline Rain Jacket' });
    expect(body.data.store.classification.id).toBe('txc_001');
    expect(body.data.skus.nodes).toHaveLength(3);
    expect(body.data.orders.totalCount).toBeGreaterThan(0);

    // transactions page 1, the two transactions by id 1, catalog 1 (store.sku + skus),
    // tax 1 (store.classification + rates + classifications), order 1.
    const stats = await stack.sim.stats();
    expect(stats.byRoute).toEqual({
      'GET /v2/commerce/stores/{storeId}/transactions': 2,
      [CATALOG]: 1,
      [TAX]: 1,
      [ORDER]: 1,
    });
    expect(stats.total).toBe(5);
  });
});

describe('store routing', () => {
  it('takes the store from the argument, or else from the X-Store-Id header', async () => {
    const byArgument = await stack.gql(
      `query($s: ID) { sku(id: "sku_0001", storeId: $s) { id } }`,
      {
        s: A,
      },
    );
    expect(byArgument.body.data.sku.id).toBe('sku_0001');
    const byHeader = await stack.gql(
      `{ sku(id: "sku_0001") { id } classification(id: "txc_001") { id } }`,
      {},
      { headers: { 'x-store-id': A } },
    );
    expect(byHeader.body.errors).toBeUndefined();
    expect(byHeader.body.data).toEqual({
      sku: { id: 'sku_0001' },
      classification: { id: 'txc_001' },
    });
  });

  it('fails a catalog or tax field without any store with BAD_USER_INPUT and no call', async () => {
    const { body } = await stack.gql(
      `{ sku(id: "sku_0001") { id } taxArea(id: "txa_001") { id } }`,
    );
    expect(body.data).toEqual({ sku: null, taxArea: null });
    expect(body.errors.map((e: any) => e.extensions.code)).toEqual([
      'BAD_USER_INPUT',
      'BAD_USER_INPUT',
    ]);
    expect(body.errors[0].extensions.field).toBe('storeId');
    const malformed = await stack.gql(`{ sku(id: "sku_0001", storeId: "store-a") { id } }`);
    expect(malformed.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('makes one request for sibling fields of one subgraph, one per store', async () => {
    const { body } = await stack.gql(
      `query($a: ID, $b: ID) {
        one: sku(id: "sku_0001", storeId: $a) { id }
        two: sku(id: "sku_0002", storeId: $a) { id }
        page: skus(first: 2, storeId: $a) { nodes { id } }
        other: sku(id: "sku_0001", storeId: $b) { id }
      }`,
      { a: A, b: B },
    );
    expect(body.data.one.id).toBe('sku_0001');
    expect(body.data.two.id).toBe('sku_0002');
    expect(body.data.page.nodes).toHaveLength(2);
    // Store B belongs to another account: its request fails alone.
    expect(body.data.other).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ path: ['other'], extensions: { code: 'NOT_FOUND' } });
    expect(await stack.upstreamCalls(CATALOG)).toBe(2);
  });

  it('serves the order subgraph globally, its root fields as they are', async () => {
    const { body } = await stack.gql(
      `query($s: ID) { orders(storeId: $s, first: 1) { nodes { id number storeId totals { total { amount currencyCode } } } } }`,
      { s: A },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.orders.nodes[0].storeId).toBe(A);
  });
});

describe('catalog and tax mutations', () => {
  it('creates a SKU with a price in minor units', async () => {
    const { body } = await stack.gql(
      `mutation($s: ID) { createSku(storeId: $s, input: {
          code: "GW-TEST-1", name: "Gateway Test Jacket", status: ACTIVE,
          prices: [{ type: LIST, money: { value: 1999, currencyCode: "USD" } }] }) {
        id name status price { value currencyCode } } }`,
      { s: A },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.createSku).toMatchObject({
      name: 'Gateway Test Jacket',
      status: 'ACTIVE',
      price: { value: 1999, currencyCode: 'USD' },
    });
    const read = await stack.gql(
      `query($id: String!) { sku(id: $id) { code } }`,
      {
        id: body.data.createSku.id,
      },
      { headers: { 'x-store-id': A } },
    );
    expect(read.body.data.sku.code).toBe('GW-TEST-1');
  });

  it('reports a subgraph error in an HTTP 200 answer with the gateway code', async () => {
    const create = `mutation($s: ID) { createSku(storeId: $s, input: { code: "GW-DUP", name: "Dup" }) { id } }`;
    await stack.gql(create, { s: A });
    const { body } = await stack.gql(create, { s: A });
    expect(body.data.createSku).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: { route: '/v2/commerce/stores/{storeId}/catalog-subgraph', status: 200 },
    });
  });

  it('creates a tax rate', async () => {
    const { body } = await stack.gql(
      `mutation($s: ID) { createRate(storeId: $s, input: {
          label: "Gateway city tax", value: { percentage: 1.25 }, classificationId: "txc_001" }) {
        id label value { percentage } classificationId status } }`,
      { s: A },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.createRate).toMatchObject({
      label: 'Gateway city tax',
      value: { percentage: 1.25 },
      classificationId: 'txc_001',
      status: 'ACTIVE',
    });
  });
});

describe('the name-collision rule', () => {
  const TYPES = `{ __schema { types { name kind } queryType { fields { name args { name } } } } }`;

  it('keeps the local names and prefixes every colliding subgraph name', async () => {
    const { body } = await stack.gql(TYPES);
    const names = new Set(body.data.__schema.types.map((t: any) => t.name));
    for (const local of ['Money', 'PageInfo', 'Node', 'Store', 'Transaction']) {
      expect(names).toContain(local);
    }
    for (const renamed of [
      'CatalogMoney',
      'OrderMoney',
      'CatalogPageInfo',
      'TaxPageInfo',
      'OrderPageInfo',
      'CatalogStatus',
      'TaxStatus',
      'CatalogNode',
      'OrderNode',
      'CatalogSimpleMoneyInput',
      'OrderSimpleMoneyInput',
    ]) {
      expect(names).toContain(renamed);
    }
    // Names no one else declares stay as they are.
    for (const kept of ['SKU', 'Classification', 'Rate', 'Order', 'TaxAmount']) {
      expect(names).toContain(kept);
    }
    expect(names).not.toContain('Status');
    expect(names).not.toContain('SimpleMoneyInput');

    const fields = new Map<string, string[]>(
      body.data.__schema.queryType.fields.map((f: any) => [
        f.name,
        f.args.map((a: any) => a.name).sort(),
      ]),
    );
    expect(fields.get('node')).toEqual(['id']);
    expect(fields.get('catalogNode')).toEqual(['id', 'storeId']);
    expect(fields.get('orderNode')).toEqual(['id']);
    expect(fields.get('sku')).toEqual(['id', 'storeId']);
    expect(fields.get('calculateTax')).toEqual(['input', 'storeId']);
    expect(fields.get('orders')).toEqual(['after', 'first', 'status', 'storeId']);
  });

  it('keeps the contract Money and gives Store the catalog and tax reads', async () => {
    const { body } = await stack.gql(`{
      money: __type(name: "Money") { fields { name } }
      store: __type(name: "Store") { fields { name args { name } } }
      sku: __type(name: "SKU") { interfaces { name } }
      input: __type(name: "CatalogSimpleMoneyInput") { description inputFields { name description } }
    }`);
    expect(body.data.money.fields.map((f: any) => f.name)).toEqual([
      'amount',
      'currency',
      'formatted',
    ]);
    const storeFields = new Map<string, string[]>(
      body.data.store.fields.map((f: any) => [f.name, f.args.map((a: any) => a.name)]),
    );
    expect(storeFields.get('sku')).toEqual(['id']);
    expect(storeFields.get('classification')).toEqual(['id']);
    expect(storeFields.has('transactions')).toBe(true);
    expect(body.data.sku.interfaces).toEqual([{ name: 'CatalogNode' }]);
    const value = body.data.input.inputFields.find((f: any) => f.name === 'value');
    expect(value.description).toContain('1999 is 19.99');
  });

  it('resolves a catalog node through the renamed root field', async () => {
    const { body } = await stack.gql(
      `{ catalogNode(id: "sku_0001") { __typename id ... on SKU { code } } }`,
      {},
      { headers: { 'x-store-id': A } },
    );
    expect(body.data.catalogNode).toEqual({
      __typename: 'SKU',
      id: 'sku_0001',
      code: 'JKT-RIDGE-M',
    });
  });
});

describe('remote schema snapshots', () => {
  it('match what `npm run schema:pull` reads from the upstream', async () => {
    const upstream = createUpstreamClient({
      transport: createTransport({
        baseUrl: stack.sim.url,
        connectTimeoutMs: 1_000,
        headersTimeoutMs: 5_000,
        bodyTimeoutMs: 5_000,
        maxResponseBytes: 1024 * 1024,
        connections: 1,
      }),
      deadlineMs: 5_000,
      retry: DEFAULT_RETRY_POLICY,
    });
    try {
      const pulled = await pullRemoteSchemas(upstream, createCredentialFactory()('demo-token'), A);
      for (const subgraph of REMOTE_SUBGRAPHS) {
        expect(pulled.get(subgraph.name)).toBe(await readFile(snapshotUrl(subgraph), 'utf8'));
      }
    } finally {
      await upstream.close();
    }
  });
});

describe('the catalog burst limit', () => {
  let limited: Stack;
  beforeAll(async () => {
    limited = await startStack({ sim: { catalogPerMinute: 1 }, env: { UPSTREAM_CACHE: 'off' } });
  });
  afterAll(() => limited.close());

  it('maps the catalog 429 to RATE_LIMITED with retryAfterSec', async () => {
    const first = await limited.gql(`query($s: ID) { sku(id: "sku_0001", storeId: $s) { id } }`, {
      s: A,
    });
    expect(first.body.data.sku.id).toBe('sku_0001');
    const second = await limited.gql(`query($s: ID) { sku(id: "sku_0002", storeId: $s) { id } }`, {
      s: A,
    });
    expect(second.body.data.sku).toBeNull();
    expect(second.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      upstream: { status: 429 },
      // The upstream's own 429, told apart from Weft's refusals.
      limiter: 'UPSTREAM',
    });
    expect(second.body.errors[0].extensions.retryAfterSec).toBeGreaterThan(0);
  });
});
