/**
 * The subgraphs at the size the commerce document gives ("Catalog schema size: 27 query fields,
 * 108 mutation fields. Tax schema: 8 query fields, 38 mutation fields."), read over HTTP by
 * introspection, and the scope of every kind of operation: a token without the scope gets 403
 * naming it, before anything runs.
 */
import {
  buildClientSchema,
  getIntrospectionQuery,
  isInputObjectType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_A } from '../../../src/simulator/accounts.ts';
import { ORDER_MUTATION_SCOPES } from '../../../src/simulator/subgraphs/subgraph.routes.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { undescribedElements } from '../../support/undescribed.ts';

const CATALOG = `/v2/commerce/stores/${STORE_A}/catalog-subgraph`;
const TAX = `/v2/commerce/stores/${STORE_A}/tax-subgraph`;
const ORDER = '/v1/commerce/order-subgraph';

let sim: RunningSimulator;
const schemas: Record<'catalog' | 'tax' | 'order', GraphQLSchema> = {} as never;

const post = (path: string, query: string, token = 'demo-token') =>
  sim.call('POST', path, {
    token,
    body: { query },
    headers: path === ORDER ? {} : { 'x-store-id': STORE_A },
  });

beforeAll(async () => {
  sim = await startSimulator();
  for (const [name, path] of [
    ['catalog', CATALOG],
    ['tax', TAX],
    ['order', ORDER],
  ] as const) {
    const res = await post(path, getIntrospectionQuery({ descriptions: true }));
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    schemas[name] = buildClientSchema(res.body.data as IntrospectionQuery);
  }
});

afterAll(async () => {
  await sim.close();
});

const rootFields = (schema: GraphQLSchema) => ({
  query: Object.keys(schema.getQueryType()?.getFields() ?? {}),
  mutation: Object.keys(schema.getMutationType()?.getFields() ?? {}),
});

describe('schema size (introspected over HTTP)', () => {
  it('catalog: 27 query fields, 108 mutation fields', () => {
    const { query, mutation } = rootFields(schemas.catalog);
    expect(query).toHaveLength(27);
    expect(mutation).toHaveLength(108);
  });

  it('tax: 8 query fields, 38 mutation fields', () => {
    const { query, mutation } = rootFields(schemas.tax);
    expect(query).toHaveLength(8);
    expect(mutation).toHaveLength(38);
  });

  it('order: a realistic set, every mutation with an explicit scope', () => {
    const { query, mutation } = rootFields(schemas.order);
    expect(query.length).toBeGreaterThanOrEqual(8);
    expect(query.length).toBeLessThanOrEqual(12);
    expect(mutation.length).toBeGreaterThanOrEqual(20);
    expect(mutation.length).toBeLessThanOrEqual(30);
    expect([...mutation].sort()).toEqual(Object.keys(ORDER_MUTATION_SCOPES).sort());
  });

  it('keeps the operations the document names, with their argument types', () => {
    const arg = (schema: GraphQLSchema, root: 'Query' | 'Mutation', field: string) => {
      const type = root === 'Query' ? schema.getQueryType() : schema.getMutationType();
      const args = type?.getFields()[field]?.args ?? [];
      return args.map((a) => `${a.name}: ${String(a.type)}`).join(', ');
    };
    expect(arg(schemas.catalog, 'Query', 'sku')).toBe('id: String!');
    expect(arg(schemas.catalog, 'Mutation', 'createSku')).toBe('input: CreateSKUInput!');
    expect(arg(schemas.tax, 'Query', 'classification')).toBe('id: ID!');
    expect(arg(schemas.tax, 'Mutation', 'createRate')).toBe('input: MutationCreateRateInput!');
    const rateInput = schemas.tax.getType('MutationCreateRateInput');
    expect(rateInput && isInputObjectType(rateInput) && Object.keys(rateInput.getFields())).toEqual(
      expect.arrayContaining(['label', 'value']),
    );
    const money = schemas.catalog.getType('SimpleMoneyInput');
    expect(money && isInputObjectType(money) && String(money.getFields().value?.type)).toBe('Int!');
  });

  it('describes every type, field, argument, input field and enum value', () => {
    for (const [name, schema] of Object.entries(schemas)) {
      expect(undescribedElements(schema), name).toEqual([]);
    }
  });
});

describe('scopes of every kind of operation (demo-readonly holds only the :read scopes)', () => {
  const refused = async (path: string, document: string, scope: string) => {
    const res = await post(path, document, 'demo-readonly');
    expect(res.status, document).toBe(403);
    expect(res.body).toMatchObject({ code: 'FORBIDDEN', requiredScope: scope });
  };

  it('catalog: every query needs product:read, every mutation product:write', async () => {
    const read = await post(
      CATALOG,
      '{ inventoryLocations { id } priceLists { totalCount } catalogSettings { defaultWeightUnit } }',
      'demo-readonly',
    );
    expect(read.status).toBe(200);
    expect(read.body.errors).toBeUndefined();
    for (const document of [
      'mutation { createInventoryLocation(input: { name: "X", kind: WAREHOUSE, address: { line1: "1", city: "c", postalCode: "1", countryCode: "US" } }) { id } }',
      'mutation { deleteSku(id: "sku_0007") { id } }',
      'mutation { bulkArchiveSkus(ids: ["sku_0001"]) { id } }',
      'mutation { updateCatalogSettings(input: { defaultLowStockThreshold: 1 }) { updatedAt } }',
    ]) {
      await refused(CATALOG, document, 'commerce.product:write');
    }
  });

  it('tax: reads need tax:read; mutations create*, delete* and the rest by prefix', async () => {
    const read = await post(TAX, '{ taxSettings { pricesIncludeTax } }', 'demo-readonly');
    expect(read.status).toBe(200);
    await refused(
      TAX,
      'mutation { createJurisdiction(input: { taxAreaId: "txa_001", name: "X", level: CITY, code: "X" }) { id } }',
      'commerce.tax:create',
    );
    await refused(
      TAX,
      'mutation { createExemption(input: { customerId: "c", certificateNumber: "N", reason: RESALE }) { id } }',
      'commerce.tax:create',
    );
    await refused(
      TAX,
      'mutation { deleteJurisdiction(id: "txj_001") { id } }',
      'commerce.tax:delete',
    );
    await refused(TAX, 'mutation { deleteRates(ids: ["txr_001"]) { id } }', 'commerce.tax:delete');
    for (const document of [
      'mutation { approveExemption(id: "txe_002") { id } }',
      'mutation { setDefaultTaxArea(id: "txa_002") { id } }',
      'mutation { resetTaxSettings { updatedAt } }',
      'mutation { duplicateClassification(input: { id: "txc_001", name: "copy" }) { id } }',
    ]) {
      await refused(TAX, document, 'commerce.tax:write');
    }
    const mixed = await post(
      TAX,
      `mutation {
        createTaxRegistration(input: { taxAreaId: "txa_003", registrationNumber: "OR-1" }) { id }
        deleteTaxRegistration(id: "txg_001") { id }
        updateTaxSettings(input: { roundingMode: UP }) { roundingMode }
      }`,
      'demo-readonly',
    );
    expect(mixed.status).toBe(403);
    expect(mixed.body.missingScopes).toEqual([
      'commerce.tax:create',
      'commerce.tax:delete',
      'commerce.tax:write',
    ]);
  });

  it('order: reads need order:read; each mutation its mapped scope', async () => {
    const read = await post(
      ORDER,
      '{ fulfillments { totalCount } refunds { totalCount } }',
      'demo-readonly',
    );
    expect(read.status).toBe(200);
    for (const [document, scope] of [
      ['mutation { duplicateOrder(id: "ord_0004") { id } }', 'commerce.order:create'],
      ['mutation { holdOrder(id: "ord_0004", reason: "x") { id } }', 'commerce.order:update'],
      [
        'mutation { createFulfillment(input: { orderId: "ord_0004" }) { id } }',
        'commerce.order:update',
      ],
      [
        'mutation { createRefund(input: { orderId: "ord_0001", amount: { value: 1, currencyCode: "USD" } }) { id } }',
        'commerce.order:update',
      ],
      ['mutation { cancelFulfillment(id: "ful_0007") { id } }', 'commerce.order:cancel'],
      ['mutation { cancelReturn(id: "ret_0002") { id } }', 'commerce.order:cancel'],
      ['mutation { completeFulfillment(id: "ful_0007") { id } }', 'commerce.order:complete'],
      ['mutation { completeReturn(id: "ret_0001") { id } }', 'commerce.order:complete'],
    ] as const) {
      await refused(ORDER, document, scope);
    }
  });
});
