import { graphql, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatGraphQLError } from '../../../src/errors/graphql-errors.ts';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';
import {
  createGatewayContext,
  type ContextServices,
  type RequestFields,
} from '../../../src/kit/request-context.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import type { UpstreamCall, UpstreamClient } from '../../../src/upstream/upstream-call.ts';
import { freezeDeep } from '../../../src/upstream/cache/frozen-value.ts';

const STORE = '11111111-1111-4111-8111-111111111111';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGatewaySchema();
});

/** Runs an operation against the stitched schema with a scripted subgraph answer. */
async function run(source: string, answer: unknown) {
  const sent: { subgraph: string; storeId: string | null; query: string }[] = [];
  // The upstream the request's subgraph client calls: it answers every subgraph the same.
  const upstream = {
    request: async (call: UpstreamCall) => {
      const subgraph = /\/(\w+)-subgraph$/.exec(call.route)?.[1] ?? call.route;
      const storeId = call.params?.storeId ?? null;
      sent.push({ subgraph, storeId, query: (call.body as { query: string }).query });
      return { data: answer };
    },
  } as unknown as UpstreamClient;
  // A request's own context: its per-request slots (the subgraph client, the stores' scopes) are
  // the product's.
  const contextValue = createGatewayContext(
    { upstream } as unknown as ContextServices,
    {
      storeIdHeader: STORE,
      credential: createCredentialFactory()('subgraph-errors-token'),
    } as RequestFields,
  );
  const result = await graphql({ schema, source, contextValue });
  const errors = (result.errors ?? []).map((error) => formatGraphQLError(error.toJSON(), error));
  return { result, errors, sent };
}

describe('a cached subgraph answer', () => {
  it('is stitched from a copy: the shared, frozen answer serves every later request unchanged', async () => {
    // What the in-memory upstream cache hands every reader of a catalog query.
    const cached = { data: { sku: { id: 'sku_0001', __typename: 'Sku' } } };
    freezeDeep(cached);
    for (let i = 0; i < 2; i += 1) {
      const { result, errors } = await run('{ sku(id: "sku_0001") { id } }', cached);
      expect(errors).toEqual([]);
      expect(result.data).toEqual({ sku: { id: 'sku_0001' } });
    }
    expect(cached).toEqual({ data: { sku: { id: 'sku_0001', __typename: 'Sku' } } });
  });
});

describe('subgraph GraphQL errors in an HTTP 200 answer', () => {
  it("maps the tax subgraph's AUTHENTICATION_ERROR to UNAUTHENTICATED", async () => {
    const { result, errors, sent } = await run('{ taxArea(id: "txa_001") { id } }', {
      errors: [{ message: 'Failed to authorize', extensions: { code: 'AUTHENTICATION_ERROR' } }],
    });
    expect(sent).toEqual([expect.objectContaining({ subgraph: 'tax', storeId: STORE })]);
    expect(result.data).toEqual({ taxArea: null });
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'Failed to authorize',
        path: ['taxArea'],
        extensions: {
          code: 'UNAUTHENTICATED',
          upstream: {
            route: '/v2/commerce/stores/{storeId}/tax-subgraph',
            status: 200,
            code: 'AUTHENTICATION_ERROR',
          },
        },
      }),
    ]);
  });

  it('keeps partial data and places a nested error on its path', async () => {
    const { result, errors } = await run('{ classification(id: "txc_001") { id rates { id } } }', {
      data: { classification: null },
      errors: [
        {
          message: 'no such classification',
          path: ['classification'],
          extensions: { code: 'NOT_FOUND' },
        },
      ],
    });
    expect(result.data).toEqual({ classification: null });
    expect(errors[0]).toMatchObject({
      path: ['classification'],
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('treats a validation failure (a stale snapshot) as UPSTREAM_ERROR', async () => {
    const { errors } = await run('{ sku(id: "sku_0001") { id } }', {
      errors: [
        {
          message: 'Cannot query field "id"',
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
    expect(errors[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
  });

  it('treats an answer that is not a GraphQL response as UPSTREAM_ERROR', async () => {
    const { errors } = await run('{ sku(id: "sku_0001") { id } }', '<html>oops</html>');
    expect(errors[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
  });

  it('never sends the added storeId argument to the subgraph', async () => {
    const { sent } = await run(`{ sku(id: "sku_0001", storeId: "${STORE}") { id } }`, {
      data: { sku: { id: 'sku_0001' } },
    });
    expect(sent[0]?.query).not.toContain('storeId');
  });
});
