/**
 * The operations the commerce document names, through the gateway exactly as written there
 * (`query sku(id: String!)`, `mutation createSku(input: CreateSKUInput!)` with `id name status`,
 * `query classification(id: ID!)` with `id name label`, `mutation createRate(input:
 * MutationCreateRateInput!)` with `label` and `value { percentage }`), the scope of each kind of
 * subgraph operation as the gateway reports it (FORBIDDEN naming the scope), and a few of the new
 * subgraph fields as the stitched graph shows them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off' } });
});
afterAll(() => stack.close());

const A = COMMERCE_IDS.storeA;
const store = { headers: { 'x-store-id': A } };

describe('the named operations', () => {
  it('query sku(id: String!) selects id, name, status', async () => {
    const { body } = await stack.gql(
      'query Sku($id: String!) { sku(id: $id) { id name status } }',
      { id: 'sku_0001' },
      store,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.sku).toEqual({
      id: 'sku_0001',
      name: 'Ridgeline Rain Jacket',
      status: 'ACTIVE',
    });
  });

  it('mutation createSku(input: CreateSKUInput!) returns id, name, status, and sku reads it back', async () => {
    const { body } = await stack.gql(
      `mutation CreateSku($input: CreateSKUInput!) { createSku(input: $input) { id name status } }`,
      {
        input: {
          code: 'NAMED-OP-1',
          name: 'Named Op Mug',
          status: 'ACTIVE',
          prices: [{ type: 'LIST', money: { value: 1999, currencyCode: 'USD' } }],
        },
      },
      store,
    );
    expect(body.errors).toBeUndefined();
    const created = body.data.createSku;
    expect(created).toMatchObject({ name: 'Named Op Mug', status: 'ACTIVE' });
    const read = await stack.gql(
      'query($id: String!) { sku(id: $id) { id name status price { value currencyCode } } }',
      { id: created.id },
      store,
    );
    expect(read.body.data.sku).toEqual({
      ...created,
      price: { value: 1999, currencyCode: 'USD' }, // minor units
    });
  });

  it('query classification(id: ID!) selects id, name, label', async () => {
    const { body } = await stack.gql(
      'query Classification($id: ID!) { classification(id: $id) { id name label } }',
      { id: 'txc_002' },
      store,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.classification).toEqual({
      id: 'txc_002',
      name: 'clothing',
      label: 'Clothing',
    });
  });

  it('mutation createRate(input: MutationCreateRateInput!) takes label and value { percentage }', async () => {
    const { body } = await stack.gql(
      `mutation CreateRate($input: MutationCreateRateInput!) {
        createRate(input: $input) { id label value { percentage } }
      }`,
      { input: { label: 'Named op levy', value: { percentage: 0.75 } } },
      store,
    );
    expect(body.errors).toBeUndefined();
    const rate = body.data.createRate;
    expect(rate).toMatchObject({ label: 'Named op levy', value: { percentage: 0.75 } });
    const read = await stack.gql(
      'query($id: ID!) { rate(id: $id) { id label } }',
      { id: rate.id },
      store,
    );
    expect(read.body.data.rate).toEqual({ id: rate.id, label: 'Named op levy' });
  });
});

describe('scopes through the gateway (demo-readonly)', () => {
  it.each([
    [
      'a catalog mutation',
      'mutation { receiveInventory(input: { skuId: "sku_0001", locationId: "loc_001", quantity: 1 }) { onHand } }',
      'commerce.product:write',
    ],
    [
      'a tax create*',
      'mutation { createExemption(input: { customerId: "c1", certificateNumber: "RO", reason: RESALE }) { id } }',
      'commerce.tax:create',
    ],
    ['a tax delete*', 'mutation { deleteRate(id: "txr_001") { id } }', 'commerce.tax:delete'],
    [
      'another tax mutation',
      'mutation { approveExemption(id: "txe_002") { id } }',
      'commerce.tax:write',
    ],
    [
      'an order :create',
      'mutation { duplicateOrder(id: "ord_0004") { id } }',
      'commerce.order:create',
    ],
    [
      'an order :update',
      'mutation { createFulfillment(input: { orderId: "ord_0004" }) { id } }',
      'commerce.order:update',
    ],
    [
      'an order :cancel',
      'mutation { cancelReturn(id: "ret_0002") { id } }',
      'commerce.order:cancel',
    ],
    [
      'an order :complete',
      'mutation { completeFulfillment(id: "ful_0007") { id } }',
      'commerce.order:complete',
    ],
  ])('refuses %s with FORBIDDEN naming the scope', async (_kind, mutation, scope) => {
    const { body } = await stack.gql(mutation, {}, { token: 'demo-readonly', ...store });
    expect(body.errors[0].extensions).toMatchObject({
      code: 'FORBIDDEN',
      requiredScope: scope,
      upstream: { status: 403 },
    });
  });

  it('lets a read-only token read the new catalog, tax and order fields', async () => {
    const { body } = await stack.gql(
      `query($s: ID!) {
        store(storeId: $s) { inventoryLevels(first: 1) { totalCount } taxSettings { roundingMode } }
        fulfillments(storeId: $s, first: 1) { totalCount }
      }`,
      { s: A },
      { token: 'demo-readonly' },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.store.taxSettings.roundingMode).toBe('HALF_UP');
  });
});

describe('the stitched subgraphs', () => {
  it('renames the tax Jurisdiction, which the local schema also declares', async () => {
    const { body } = await stack.gql(
      '{ rate(id: "txr_006") { jurisdiction { __typename code level } } }',
      {},
      store,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.rate.jurisdiction).toEqual({
      __typename: 'TaxJurisdiction',
      code: 'NY-NYC',
      level: 'CITY',
    });
  });

  it('resolves the new catalog node kinds through catalogNode', async () => {
    const { body } = await stack.gql(
      '{ catalogNode(id: "loc_001") { __typename id ... on InventoryLocation { name } } }',
      {},
      store,
    );
    expect(body.data.catalogNode).toEqual({
      __typename: 'InventoryLocation',
      id: 'loc_001',
      name: 'Oakland Warehouse',
    });
  });
});
