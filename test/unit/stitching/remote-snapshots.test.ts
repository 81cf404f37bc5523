/**
 * The checked-in subgraph snapshots (schema/remote/) at the size the commerce document gives, and
 * what the name-collision rule makes of them against the local SDL: exactly the expected renames,
 * nothing else, so a refreshed snapshot that starts colliding somewhere new shows up here first.
 */
import { buildSchema, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { localSdlDocuments } from '../../../src/kit/local-sdl.ts';
import { localNames, planRenames } from '../../../src/stitching/name-collisions.ts';
import { readSnapshot } from '../../../src/stitching/remote-snapshots.ts';
import { REMOTE_SUBGRAPHS, type RemoteSubgraph } from '../../../src/stitching/remote-subgraphs.ts';

let snapshots: { subgraph: RemoteSubgraph; schema: GraphQLSchema }[];

beforeAll(() => {
  // With full SDL validation: start-up builds the snapshots without it (remote-snapshots.ts), so an
  // invalid snapshot fails here.
  snapshots = REMOTE_SUBGRAPHS.map((subgraph) => ({
    subgraph,
    schema: buildSchema(readSnapshot(subgraph)),
  }));
});

const schemaOf = (name: RemoteSubgraph['name']): GraphQLSchema => {
  const found = snapshots.find((entry) => entry.subgraph.name === name);
  if (!found) throw new Error(`no ${name} snapshot`);
  return found.schema;
};

const count = (schema: GraphQLSchema) => ({
  query: Object.keys(schema.getQueryType()?.getFields() ?? {}).length,
  mutation: Object.keys(schema.getMutationType()?.getFields() ?? {}).length,
});

describe('the subgraph snapshots', () => {
  it('have the documented numbers of root fields', () => {
    expect(count(schemaOf('catalog'))).toEqual({ query: 27, mutation: 108 });
    expect(count(schemaOf('tax'))).toEqual({ query: 8, mutation: 38 });
    const order = count(schemaOf('order'));
    expect(order.query).toBeGreaterThanOrEqual(8);
    expect(order.mutation).toBeGreaterThanOrEqual(20);
  });

  it('collide only where expected, and the rule prefixes every colliding name', () => {
    const plan = planRenames(localNames(localSdlDocuments()), snapshots);
    const summary = Object.fromEntries(
      [...plan].map(([name, renames]) => [
        name,
        {
          types: Object.fromEntries(renames.types),
          query: Object.fromEntries(renames.rootFields.get('Query') ?? []),
          mutation: Object.fromEntries(renames.rootFields.get('Mutation') ?? []),
        },
      ]),
    );
    expect(summary).toEqual({
      catalog: {
        types: {
          Money: 'CatalogMoney',
          Node: 'CatalogNode',
          PageInfo: 'CatalogPageInfo',
          SimpleMoneyInput: 'CatalogSimpleMoneyInput',
          Status: 'CatalogStatus',
        },
        query: { node: 'catalogNode' },
        mutation: {},
      },
      tax: {
        // The local SDL declares a Jurisdiction of its own (certificates).
        types: { Jurisdiction: 'TaxJurisdiction', PageInfo: 'TaxPageInfo', Status: 'TaxStatus' },
        query: {},
        mutation: {},
      },
      order: {
        types: {
          Money: 'OrderMoney',
          Node: 'OrderNode',
          PageInfo: 'OrderPageInfo',
          SimpleMoneyInput: 'OrderSimpleMoneyInput',
        },
        query: { node: 'orderNode' },
        mutation: {},
      },
    });
  });
});
