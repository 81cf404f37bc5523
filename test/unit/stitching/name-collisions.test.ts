import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { localNames, planRenames } from '../../../src/stitching/name-collisions.ts';
import {
  CATALOG_SUBGRAPH,
  ORDER_SUBGRAPH,
  TAX_SUBGRAPH,
} from '../../../src/stitching/remote-subgraphs.ts';

const LOCAL = `
  type Query { node(id: ID!): Node store(storeId: ID!): Store }
  interface Node { id: ID! }
  type Money { amount: Int! }
  type PageInfo { hasNextPage: Boolean! }
  type Store implements Node { id: ID! }
`;
const catalog = buildSchema(`
  interface Node { id: ID! }
  enum Status { ACTIVE }
  type Money { value: Int! }
  type PageInfo { hasNextPage: Boolean! }
  type SKU implements Node { id: ID! status: Status! price: Money page: PageInfo }
  type Query { node(id: ID!): Node sku(id: String!): SKU }
  type Mutation { createSku(code: String!): SKU }
`);
const tax = buildSchema(`
  enum Status { ACTIVE INACTIVE }
  type PageInfo { hasNextPage: Boolean! }
  type Rate { id: ID! status: Status! page: PageInfo }
  type Query { rate(id: ID!): Rate }
  type Mutation { createRate(label: String!): Rate }
`);
const order = buildSchema(`
  interface Node { id: ID! }
  type Money { amount: Int! }
  type Order implements Node { id: ID! total: Money }
  type Query { node(id: ID!): Node order(id: ID!): Order }
`);

const plan = (entries: { subgraph: typeof CATALOG_SUBGRAPH; schema: typeof catalog }[]) =>
  planRenames(localNames([LOCAL]), entries);

const asObject = (result: ReturnType<typeof plan>) =>
  Object.fromEntries(
    [...result].map(([name, renames]) => [
      name,
      {
        types: Object.fromEntries(renames.types),
        query: Object.fromEntries(renames.rootFields.get('Query') ?? []),
      },
    ]),
  );

describe('the name-collision rule', () => {
  const entries = [
    { subgraph: CATALOG_SUBGRAPH, schema: catalog },
    { subgraph: TAX_SUBGRAPH, schema: tax },
    { subgraph: ORDER_SUBGRAPH, schema: order },
  ];

  it('prefixes every subgraph name that the local SDL or another subgraph also declares', () => {
    expect(asObject(plan(entries))).toEqual({
      catalog: {
        types: {
          Node: 'CatalogNode',
          Status: 'CatalogStatus',
          Money: 'CatalogMoney',
          PageInfo: 'CatalogPageInfo',
        },
        query: { node: 'catalogNode' },
      },
      tax: { types: { Status: 'TaxStatus', PageInfo: 'TaxPageInfo' }, query: {} },
      order: {
        types: { Node: 'OrderNode', Money: 'OrderMoney' },
        query: { node: 'orderNode' },
      },
    });
  });

  it('does not depend on the order of the subgraphs', () => {
    expect(asObject(plan([...entries].reverse()))).toEqual(asObject(plan(entries)));
  });

  it('renames only what collides: a lone subgraph keeps its own Status', () => {
    const alone = asObject(plan([{ subgraph: TAX_SUBGRAPH, schema: tax }]));
    expect(alone.tax).toEqual({ types: { PageInfo: 'TaxPageInfo' }, query: {} });
  });

  it('fails loudly when a new name is itself taken', () => {
    const clash = buildSchema(`
      type CatalogMoney { x: Int }
      type Query { x: CatalogMoney }
    `);
    expect(() =>
      plan([
        { subgraph: CATALOG_SUBGRAPH, schema: catalog },
        { subgraph: TAX_SUBGRAPH, schema: clash },
      ]),
    ).toThrow(/CatalogMoney/);
  });
});
