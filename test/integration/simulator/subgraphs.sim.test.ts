import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_A, STORE_B } from '../../../src/simulator/accounts.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const catalogPath = (storeId: string): string => `/v2/commerce/stores/${storeId}/catalog-subgraph`;
const taxPath = (storeId: string): string => `/v2/commerce/stores/${storeId}/tax-subgraph`;
const ORDER_PATH = '/v1/commerce/order-subgraph';

let sim: RunningSimulator;

interface GqlOptions {
  token?: string;
  store?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

const gql = (path: string, query: string, options: GqlOptions = {}) =>
  sim.call('POST', path, {
    token: options.token ?? 'demo-token',
    body: { query, variables: options.variables, operationName: options.operationName },
    headers: options.store ? { 'x-store-id': options.store } : {},
  });

const catalog = (query: string, options: GqlOptions = {}) =>
  gql(catalogPath(options.store ?? STORE_A), query, { store: STORE_A, ...options });

const tax = (query: string, options: GqlOptions = {}) =>
  gql(taxPath(options.store ?? STORE_A), query, { store: STORE_A, ...options });

const order = (query: string, options: GqlOptions = {}) => gql(ORDER_PATH, query, options);

const codes = (body: { errors?: { extensions: { code: string } }[] }): string[] =>
  (body.errors ?? []).map((error) => error.extensions.code);

beforeAll(async () => {
  sim = await startSimulator();
});

afterAll(async () => {
  await sim.close();
});

describe('catalog subgraph', () => {
  it('reads a SKU by id', async () => {
    const res = await catalog(
      '{ sku(id: "sku_0001") { id name status code prices { type money { value currencyCode } } } }',
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.sku).toEqual({
      id: 'sku_0001',
      name: 'Ridgeline Rain Jacket',
      status: 'ACTIVE',
      code: 'JKT-RIDGE-M',
      prices: [{ type: 'LIST', money: { value: 18900, currencyCode: 'USD' } }],
    });
  });

  it('pages through the SKUs of the store with cursors and filters by category tree', async () => {
    const page = `query Page($after: String) {
      skus(first: 10, after: $after) { totalCount nodes { id } pageInfo { hasNextPage endCursor } }
    }`;
    const first = await catalog(page);
    expect(first.body.data.skus.totalCount).toBeGreaterThanOrEqual(25);
    expect(first.body.data.skus.nodes).toHaveLength(10);
    expect(first.body.data.skus.pageInfo.hasNextPage).toBe(true);
    const second = await catalog(page, {
      variables: { after: first.body.data.skus.pageInfo.endCursor },
    });
    expect(second.body.data.skus.nodes[0].id).toBe('sku_0011');

    const equipment = await catalog(
      '{ skus(first: 100, filter: { categoryId: "cat_005" }) { nodes { code } } }',
    );
    const equipmentCodes = equipment.body.data.skus.nodes.map((n: { code: string }) => n.code);
    expect(equipmentCodes).toContain('TNT-2P'); // a Tents SKU: child category of Equipment
    expect(equipmentCodes).toContain('EQP-STOVE');

    const bad = await catalog('{ skus(after: "nonsense") { totalCount } }');
    expect(bad.status).toBe(200);
    expect(codes(bad.body)).toEqual(['BAD_USER_INPUT']);
  });

  it('creates a SKU and rejects duplicate codes and negative prices', async () => {
    const create = `mutation Create($input: CreateSKUInput!) {
      createSku(input: $input) { id name status code prices { money { value currencyCode } } }
    }`;
    const input = {
      code: 'TEST-CREATE-1',
      name: 'Test Lantern',
      status: 'ACTIVE',
      prices: [{ type: 'LIST', money: { value: 1999, currencyCode: 'USD' } }],
      categoryIds: ['cat_005'],
    };
    const created = await catalog(create, { variables: { input } });
    expect(created.status).toBe(200);
    expect(created.body.errors).toBeUndefined();
    const sku = created.body.data.createSku;
    expect(sku).toMatchObject({ name: 'Test Lantern', status: 'ACTIVE', code: 'TEST-CREATE-1' });
    expect(sku.id).toMatch(/^sku_\d{4}$/);
    expect(sku.prices[0].money).toEqual({ value: 1999, currencyCode: 'USD' });

    const read = await catalog(`{ sku(id: "${sku.id}") { id name } }`);
    expect(read.body.data.sku).toEqual({ id: sku.id, name: 'Test Lantern' });

    const duplicate = await catalog(create, { variables: { input } });
    expect(duplicate.status).toBe(200);
    expect(duplicate.body.data.createSku).toBeNull();
    expect(codes(duplicate.body)).toEqual(['BAD_USER_INPUT']);
    expect(duplicate.body.errors[0].path).toEqual(['createSku']);

    const negative = await catalog(create, {
      variables: {
        input: {
          ...input,
          code: 'TEST-NEGATIVE',
          prices: [{ money: { value: -1, currencyCode: 'USD' } }],
        },
      },
    });
    expect(codes(negative.body)).toEqual(['BAD_USER_INPUT']);
    expect(negative.body.errors[0].message).toMatch(/negative/);
  });

  it('resolves node(id) and SKU groups', async () => {
    const res = await catalog(`{
      node(id: "skg_002") { id ... on SKUGroup { name skuCount skus(first: 2) { nodes { id } } } }
    }`);
    expect(res.body.data.node).toEqual({
      id: 'skg_002',
      name: 'Backpacking Starter Kit',
      skuCount: 5,
      skus: { nodes: [{ id: 'sku_0012' }, { id: 'sku_0016' }] },
    });
  });

  it('uses the x-store-id header when it differs from the path', async () => {
    const headerA = await gql(catalogPath(STORE_B), '{ sku(id: "sku_0001") { id } }', {
      store: STORE_A,
    });
    expect(headerA.status).toBe(200);
    expect(headerA.body.data.sku).toEqual({ id: 'sku_0001' });

    const headerB = await gql(catalogPath(STORE_A), '{ sku(id: "sku_0001") { id } }', {
      store: STORE_B,
    });
    expect(headerB.status).toBe(404);
    expect(headerB.body.code).toBe('NOT_FOUND');
  });

  it('answers 400 without x-store-id', async () => {
    const res = await sim.call('POST', catalogPath(STORE_A), {
      token: 'demo-token',
      body: { query: '{ sku(id: "sku_0001") { id } }' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_REQUEST');
    expect(res.body.fields[0].path).toBe("$.headers['x-store-id']");
  });

  it('answers 400 for a body without a query', async () => {
    const res = await sim.call('POST', catalogPath(STORE_A), {
      token: 'demo-token',
      body: { variables: {} },
      headers: { 'x-store-id': STORE_A },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_REQUEST', fields: [{ path: '$.query' }] });
  });

  it('returns parse and validation failures as GraphQL errors with HTTP 200', async () => {
    const parseFail = await catalog('{ sku(id: ');
    expect(parseFail.status).toBe(200);
    expect(codes(parseFail.body)).toEqual(['GRAPHQL_PARSE_FAILED']);
    const invalid = await catalog('{ sku(id: "sku_0001") { price_in_gold } }');
    expect(invalid.status).toBe(200);
    expect(codes(invalid.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(invalid.body.data).toBeUndefined();
  });

  it('answers 403 naming the scope when demo-readonly runs a mutation', async () => {
    const res = await catalog(
      'mutation { createSku(input: { code: "RO-1", name: "Nope" }) { id name status } }',
      { token: 'demo-readonly' },
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: 'FORBIDDEN',
      requiredScope: 'commerce.product:write',
    });
    expect(res.body.message).toContain('commerce.product:write');
  });

  it('honours operationName when checking scopes', async () => {
    const document = `
      query Read { sku(id: "sku_0001") { id } }
      mutation Write { archiveSku(id: "sku_0002") { id } }
    `;
    const read = await catalog(document, { token: 'demo-readonly', operationName: 'Read' });
    expect(read.status).toBe(200);
    expect(read.body.data.sku.id).toBe('sku_0001');
    const write = await catalog(document, { token: 'demo-readonly', operationName: 'Write' });
    expect(write.status).toBe(403);
    const none = await catalog(document, { token: 'demo-readonly' });
    expect(none.status).toBe(200);
    expect(codes(none.body)).toEqual(['OPERATION_RESOLUTION_FAILURE']);
  });

  it('answers 404 to demo-other on store A, whatever the path says', async () => {
    const viaHeader = await catalog('{ sku(id: "sku_0001") { id } }', { token: 'demo-other' });
    expect(viaHeader.status).toBe(404);
    expect(viaHeader.body.code).toBe('NOT_FOUND');
    const unknown = await catalog('{ sku(id: "sku_0001") { id } }', { store: 'no-such-store' });
    expect(unknown.status).toBe(404);
    const own = await gql(catalogPath(STORE_B), '{ sku(id: "sku_0001") { id } }', {
      token: 'demo-other',
      store: STORE_B,
    });
    expect(own.status).toBe(200);
    expect(own.body.data.sku).toBeNull(); // store A's SKU is not visible in store B
  });

  it('answers 429 with Retry-After past catalogPerMinute, per credential', async () => {
    await sim.reset();
    sim.simulator.configure({ catalogPerMinute: 2 });
    try {
      const query = '{ sku(id: "sku_0001") { id } }';
      expect((await catalog(query)).status).toBe(200);
      expect((await catalog(query)).status).toBe(200);
      const limited = await catalog(query);
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('TOO_MANY_REQUESTS');
      expect(limited.body.retryAfterSec).toBeGreaterThanOrEqual(1);
      expect(limited.body.retryAfterSec).toBeLessThanOrEqual(60);
      expect(limited.headers['retry-after']).toBe(String(limited.body.retryAfterSec));

      // Another credential has its own window; the tax subgraph has none.
      const other = await gql(catalogPath(STORE_B), query, { token: 'demo-other', store: STORE_B });
      expect(other.status).toBe(200);
      expect((await tax('{ taxAreas { id } }')).status).toBe(200);

      // The knob is read at request time.
      sim.simulator.configure({ catalogPerMinute: 10 });
      expect((await catalog(query)).status).toBe(200);
    } finally {
      sim.simulator.configure({ catalogPerMinute: 120 });
      await sim.reset();
    }
  });
});

describe('tax subgraph', () => {
  it('reads a classification by id', async () => {
    const res = await tax('{ classification(id: "txc_001") { id name label } }');
    expect(res.status).toBe(200);
    expect(res.body.data.classification).toEqual({
      id: 'txc_001',
      name: 'standard',
      label: 'Standard rate',
    });
  });

  it('creates a rate with label and value.percentage', async () => {
    const res = await tax(`mutation {
      createRate(input: { label: "City surcharge", value: { percentage: 0.5 }, classificationId: "txc_005" }) {
        id label value { percentage } classification { id } taxArea { id }
      }
    }`);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const rate = res.body.data.createRate;
    expect(rate).toMatchObject({
      label: 'City surcharge',
      value: { percentage: 0.5 },
      classification: { id: 'txc_005' },
      taxArea: { id: 'txa_001' }, // the store's first area by default
    });
    const read = await tax(`{ rate(id: "${rate.id}") { id label } }`);
    expect(read.body.data.rate).toEqual({ id: rate.id, label: 'City surcharge' });

    const invalid = await tax(
      'mutation { createRate(input: { label: "Bad", value: { percentage: -3 } }) { id } }',
    );
    expect(codes(invalid.body)).toEqual(['BAD_USER_INPUT']);
  });

  it('calculates tax in minor units', async () => {
    const res = await tax(`{
      calculateTax(input: { taxAreaId: "txa_002", currencyCode: "USD", lines: [
        { reference: "boots", classificationId: "txc_001", amount: 10000 },
        { reference: "shirt", classificationId: "txc_002", amount: 5000, quantity: 2 }
      ] }) { subtotal { value } taxTotal { value } total { value } lines { percentage tax { value } } }
    }`);
    expect(res.body.data.calculateTax).toEqual({
      subtotal: { value: 20000 },
      taxTotal: { value: 888 }, // 8.875 % of 100.00, clothing exempt in New York
      total: { value: 20888 },
      lines: [
        { percentage: 8.875, tax: { value: 888 } },
        { percentage: 0, tax: { value: 0 } },
      ],
    });
  });

  it('answers HTTP 200 AUTHENTICATION_ERROR without x-store-id', async () => {
    const res = await sim.call('POST', taxPath(STORE_A), {
      token: 'demo-token',
      body: { query: '{ classification(id: "txc_001") { id } }' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      errors: [{ message: 'Failed to authorize', extensions: { code: 'AUTHENTICATION_ERROR' } }],
    });
  });

  it('requires the tax scope of each mutation', async () => {
    const create = await tax(
      'mutation { createRate(input: { label: "x", value: { percentage: 1 } }) { id } }',
      { token: 'demo-readonly' },
    );
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ code: 'FORBIDDEN', requiredScope: 'commerce.tax:create' });

    const several = await tax(
      `mutation {
        updateRate(input: { id: "txr_001", label: "x" }) { id }
        gone: deleteRate(id: "txr_002") { id }
      }`,
      { token: 'demo-readonly' },
    );
    expect(several.status).toBe(403);
    expect(several.body.missingScopes).toEqual(['commerce.tax:write', 'commerce.tax:delete']);

    const read = await tax('{ classifications { id } }', { token: 'demo-readonly' });
    expect(read.status).toBe(200);
  });

  it('refuses to delete a classification that rates still use', async () => {
    const res = await tax('mutation { deleteClassification(id: "txc_002") { id deleted } }');
    expect(codes(res.body)).toEqual(['CONFLICT']);
    const fresh = await tax(
      'mutation { createClassification(input: { name: "books", label: "Books" }) { id } }',
    );
    const id = fresh.body.data.createClassification.id;
    const deleted = await tax(`mutation { deleteClassification(id: "${id}") { id deleted } }`);
    expect(deleted.body.data.deleteClassification).toEqual({ id, deleted: true });
  });

  it('answers 404 to demo-other on store A', async () => {
    const res = await tax('{ classification(id: "txc_001") { id } }', { token: 'demo-other' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});

describe('order subgraph', () => {
  const ORDER_FIELDS =
    'id number storeId status lineItems { skuId quantity } totals { total { amount currencyCode } }';

  it('lists only the caller account’s orders', async () => {
    const query = '{ orders(first: 100) { totalCount nodes { storeId } } }';
    const a = await order(query);
    expect(a.body.data.orders.totalCount).toBeGreaterThanOrEqual(10);
    expect(new Set(a.body.data.orders.nodes.map((n: { storeId: string }) => n.storeId))).toEqual(
      new Set([STORE_A]),
    );
    const b = await order(query, { token: 'demo-other' });
    expect(b.body.data.orders.nodes.every((n: { storeId: string }) => n.storeId === STORE_B)).toBe(
      true,
    );
    const hidden = await order('{ order(id: "ord_0001") { id } }', { token: 'demo-other' });
    expect(hidden.body.data.order).toBeNull();
    const foreignStore = await order(`{ orders(storeId: "${STORE_A}") { totalCount } }`, {
      token: 'demo-other',
    });
    expect(codes(foreignStore.body)).toEqual(['NOT_FOUND']);
  });

  it('runs the state machine: OPEN → COMPLETED, OPEN → CANCELED, conflicts after', async () => {
    const create = `mutation Create($input: CreateOrderInput!) { createOrder(input: $input) { ${ORDER_FIELDS} } }`;
    const input = {
      storeId: STORE_A,
      lineItems: [
        { skuId: 'sku_0024', quantity: 2 },
        { skuId: 'sku_0008', quantity: 1, unitPrice: { value: 10000, currencyCode: 'USD' } },
      ],
    };
    const first = await order(create, { variables: { input } });
    expect(first.body.errors).toBeUndefined();
    const created = first.body.data.createOrder;
    expect(created.status).toBe('OPEN');
    expect(created.number).toMatch(/^A-\d+$/);
    // 2 × 12.99 groceries (0 % in San Francisco) + 100.00 standard at 8.625 % = 25.98 + 108.63
    expect(created.totals.total).toEqual({ amount: 2598 + 10863, currencyCode: 'USD' });

    const updated = await order(
      `mutation { updateOrder(input: { id: "${created.id}", notes: "leave at door" }) { id status } }`,
    );
    expect(updated.body.data.updateOrder.status).toBe('OPEN');

    const complete = await order(
      `mutation { completeOrder(id: "${created.id}") { status completedAt } }`,
    );
    expect(complete.body.data.completeOrder.status).toBe('COMPLETED');
    const cancelCompleted = await order(`mutation { cancelOrder(id: "${created.id}") { status } }`);
    expect(codes(cancelCompleted.body)).toEqual(['CONFLICT']);
    const updateCompleted = await order(
      `mutation { updateOrder(input: { id: "${created.id}", notes: "x" }) { id } }`,
    );
    expect(codes(updateCompleted.body)).toEqual(['CONFLICT']);

    const second = await order(create, { variables: { input } });
    const id = second.body.data.createOrder.id;
    const cancel = await order(
      `mutation { cancelOrder(id: "${id}", reason: "changed mind") { status cancelReason } }`,
    );
    expect(cancel.body.data.cancelOrder).toEqual({
      status: 'CANCELED',
      cancelReason: 'changed mind',
    });
    const completeCanceled = await order(`mutation { completeOrder(id: "${id}") { status } }`);
    expect(completeCanceled.status).toBe(200);
    expect(completeCanceled.body.data.completeOrder).toBeNull();
    expect(completeCanceled.body.errors[0].extensions).toMatchObject({
      code: 'CONFLICT',
      currentStatus: 'CANCELED',
    });
    const cancelAgain = await order(`mutation { cancelOrder(id: "${id}") { status } }`);
    expect(cancelAgain.body.data.cancelOrder.status).toBe('CANCELED');
  });

  it('validates order input', async () => {
    const res = await order(`mutation {
      createOrder(input: { storeId: "${STORE_A}", lineItems: [{ skuId: "sku_0004", quantity: 1 }] }) { id }
    }`);
    expect(codes(res.body)).toEqual(['BAD_USER_INPUT']); // sku_0004 is archived
    const foreign = await order(
      `mutation {
      createOrder(input: { storeId: "${STORE_A}", lineItems: [{ skuId: "sku_0001", quantity: 1 }] }) { id }
    }`,
      { token: 'demo-other' },
    );
    expect(codes(foreign.body)).toEqual(['NOT_FOUND']);
  });

  it('checks one scope per order mutation', async () => {
    const cases: [string, string][] = [
      [
        `createOrder(input: { storeId: "${STORE_A}", lineItems: [] }) { id }`,
        'commerce.order:create',
      ],
      ['updateOrder(input: { id: "ord_0004" }) { id }', 'commerce.order:update'],
      ['cancelOrder(id: "ord_0004") { id }', 'commerce.order:cancel'],
      ['completeOrder(id: "ord_0004") { id }', 'commerce.order:complete'],
    ];
    for (const [field, scope] of cases) {
      const res = await order(`mutation { ${field} }`, { token: 'demo-readonly' });
      expect(res.status).toBe(403);
      expect(res.body.requiredScope).toBe(scope);
    }
    const read = await order('{ order(id: "ord_0004") { status } }', { token: 'demo-readonly' });
    expect(read.body.data.order.status).toBe('OPEN');
  });
});

describe('introspection and collisions', () => {
  const introspect = async (path: string, options: GqlOptions = {}) => {
    const res = await gql(path, getIntrospectionQuery(), options);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return buildClientSchema(res.body.data as IntrospectionQuery);
  };

  it('serves every schema to an introspection query, with deliberate name collisions', async () => {
    const catalogSchema = await introspect(catalogPath(STORE_A), { store: STORE_A });
    const taxSchema = await introspect(taxPath(STORE_A), { store: STORE_A });
    const orderSchema = await introspect(ORDER_PATH);

    expect(Object.keys(catalogSchema.getQueryType()?.getFields() ?? {})).toEqual(
      expect.arrayContaining(['sku', 'skus', 'skuGroup', 'category', 'categories', 'node']),
    );
    expect(Object.keys(catalogSchema.getMutationType()?.getFields() ?? {})).toContain('createSku');
    expect(Object.keys(taxSchema.getQueryType()?.getFields() ?? {})).toContain('classification');
    expect(Object.keys(taxSchema.getMutationType()?.getFields() ?? {})).toContain('createRate');
    expect(Object.keys(orderSchema.getMutationType()?.getFields() ?? {})).toEqual(
      expect.arrayContaining(['createOrder', 'updateOrder', 'cancelOrder', 'completeOrder']),
    );

    // Root field collision: node(id:) in catalog and order.
    expect(catalogSchema.getQueryType()?.getFields().node).toBeDefined();
    expect(orderSchema.getQueryType()?.getFields().node).toBeDefined();
    // Type collisions with different shapes.
    const fieldsOf = (schema: typeof catalogSchema, name: string): string[] => {
      const type = schema.getType(name);
      return type && 'getFields' in type ? Object.keys(type.getFields()) : [];
    };
    expect(fieldsOf(catalogSchema, 'Money')).toEqual(['value', 'currencyCode']);
    expect(fieldsOf(orderSchema, 'Money')).toEqual(['amount', 'currencyCode']);
    expect(fieldsOf(catalogSchema, 'PageInfo')).toHaveLength(4);
    expect(fieldsOf(taxSchema, 'PageInfo')).toEqual(['hasNextPage', 'endCursor']);
    const members = (schema: typeof catalogSchema): string[] => {
      const type = schema.getType('Status');
      return type && 'getValues' in type ? type.getValues().map((v) => v.name) : [];
    };
    expect(members(catalogSchema)).toEqual(['DRAFT', 'ACTIVE', 'ARCHIVED']);
    expect(members(taxSchema)).toEqual(['ACTIVE', 'INACTIVE']);
  });

  it('lets demo-readonly introspect (a query needs the read scope only)', async () => {
    const res = await gql(ORDER_PATH, '{ __schema { queryType { name } } }', {
      token: 'demo-readonly',
    });
    expect(res.body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('stats', () => {
  it('counts subgraph calls under their route templates', async () => {
    await sim.reset();
    await catalog('{ sku(id: "sku_0001") { id } }');
    await catalog('{ sku(id: "sku_0002") { id } }');
    await tax('{ taxAreas { id } }');
    await order('{ orders { totalCount } }');
    const stats = await sim.stats();
    expect(stats.byRoute['POST /v2/commerce/stores/{storeId}/catalog-subgraph']).toBe(2);
    expect(stats.byRoute['POST /v2/commerce/stores/{storeId}/tax-subgraph']).toBe(1);
    expect(stats.byRoute['POST /v1/commerce/order-subgraph']).toBe(1);
    expect(stats.byStatus['200']).toBe(4);
  });
});
