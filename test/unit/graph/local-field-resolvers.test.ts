import { resolverInside } from '../../../src/graph/ledger-paths.ts';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { stitchSchemas } from '@graphql-tools/stitch';
import { defaultFieldResolver, graphql, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { unwrapLocalFields } from '../../../src/graph/local-field-resolvers.ts';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';
import { commerceResolvers } from '../../../src/commerce/commerce.resolvers.ts';

const fieldsOf = (schema: ReturnType<typeof stitchSchemas>, type: string) =>
  (schema.getType(type) as GraphQLObjectType).getFields();

/** A subschema that can complete `Product` by id (`merge`), beside local types. */
function stitchedWithMergedProduct() {
  const products = makeExecutableSchema({
    typeDefs: /* GraphQL */ `
      type Product {
        id: ID!
        name: String!
      }
      type Query {
        productById(id: ID!): Product
      }
    `,
    resolvers: {
      Query: { productById: (_: unknown, { id }: { id: string }) => ({ id, name: `P${id}` }) },
    },
  });
  const typeDefs = [
    /* GraphQL */ `
      type Product {
        id: ID!
      }
      type Shelf {
        label: String!
        top: Product!
        size: Size!
      }
      type Size {
        slots: Int!
      }
      type Query {
        shelf: Shelf!
      }
    `,
  ];
  const resolvers = [
    {
      Query: { shelf: () => ({ label: 'A', size: { slots: 3 } }) },
      Shelf: {
        top: () => ({ id: '7' }),
        label: (shelf: { label: string }) => `shelf ${shelf.label}`,
      },
    },
  ];
  const stitched = stitchSchemas({
    subschemas: [
      {
        schema: products,
        merge: {
          Product: { fieldName: 'productById', selectionSet: '{ id }', args: ({ id }) => ({ id }) },
        },
      },
    ],
    typeDefs,
    resolvers: resolvers as never,
  });
  return { schema: unwrapLocalFields(stitched, typeDefs, resolvers), resolvers };
}

describe('unwrapLocalFields', () => {
  it('gives the gateway’s own types their resolvers back, and the default one elsewhere', () => {
    const { schema, resolvers } = stitchedWithMergedProduct();
    expect(fieldsOf(schema, 'Shelf').label!.resolve).toBe(resolvers[0]!.Shelf.label);
    expect(fieldsOf(schema, 'Size').slots!.resolve).toBe(defaultFieldResolver);
  });

  it('keeps the wrapper where a subschema merges the returned type, so its fields are still fetched', async () => {
    const { schema } = stitchedWithMergedProduct();
    expect(fieldsOf(schema, 'Shelf').top!.resolve).not.toBe(defaultFieldResolver);
    const result = await graphql({
      schema,
      source: '{ shelf { label size { slots } top { id name } } }',
    });
    expect(result).toEqual({
      data: { shelf: { label: 'shelf A', size: { slots: 3 }, top: { id: '7', name: 'P7' } } },
    });
  });

  it('leaves root fields and types a subschema defines as stitching built them', () => {
    const { schema } = stitchedWithMergedProduct();
    expect(fieldsOf(schema, 'Query').shelf!.resolve).not.toBe(defaultFieldResolver);
    expect(fieldsOf(schema, 'Product').id!.resolve).not.toBe(defaultFieldResolver);
  });

  it('unwraps the gateway’s transaction fields but not the stitched Store extension', async () => {
    const schema = await buildGatewaySchema();
    const transaction = fieldsOf(schema, 'Transaction');
    // Inside the wrapper that names each field's path to the upstream ledger (ledger-paths.ts).
    expect(resolverInside(transaction.status!.resolve)).toBe(commerceResolvers.Transaction!.status);
    expect(fieldsOf(schema, 'TransactionEdge').node!.resolve).toBe(defaultFieldResolver);
    const { resolve } = fieldsOf(schema, 'Store').catalogSettings!;
    expect(resolve).toBeDefined();
    expect(resolve).not.toBe(defaultFieldResolver);
  });
});
