/**
 * GraphQL calls to the simulator's commerce subgraphs as the gateway makes them: the catalog and tax
 * endpoints with the store in the path and in `x-store-id`, the order endpoint with none. Every
 * answer is HTTP 200 (GraphQL errors ride in the body).
 */
import { expect } from 'vitest';
import { STORE_A } from '../../src/simulator/accounts.ts';
import type { RunningSimulator } from './simulator-harness.ts';

export type SubgraphName = 'catalog' | 'tax' | 'order';

export interface SubgraphAnswer {
  data?: any;
  errors?: { message: string; path?: string[]; extensions: { code: string; field?: string } }[];
}

type Variables = Record<string, unknown>;

export interface SubgraphClient {
  /** The answer, whatever it holds. */
  post(query: string, variables?: Variables, token?: string): Promise<SubgraphAnswer>;
  /** The data of an answer that must have no errors. */
  ok(query: string, variables?: Variables): Promise<any>;
  /** The error codes of an answer that must fail. */
  codes(query: string, variables?: Variables): Promise<string[]>;
}

/** `sim` is read at call time: test files start their simulator in `beforeAll`. */
export function subgraphClient(
  sim: () => RunningSimulator,
  name: SubgraphName,
  storeId: string = STORE_A,
): SubgraphClient {
  const post: SubgraphClient['post'] = async (query, variables, token = 'demo-token') => {
    const path =
      name === 'order'
        ? '/v1/commerce/order-subgraph'
        : `/v2/commerce/stores/${storeId}/${name}-subgraph`;
    const res = await sim().call('POST', path, {
      token,
      body: { query, variables },
      ...(name === 'order' ? {} : { headers: { 'x-store-id': storeId } }),
    });
    expect(res.status).toBe(200);
    return res.body as SubgraphAnswer;
  };
  return {
    post,
    async ok(query, variables) {
      const body = await post(query, variables);
      expect(body.errors, query).toBeUndefined();
      return body.data;
    },
    async codes(query, variables) {
      return ((await post(query, variables)).errors ?? []).map((error) => error.extensions.code);
    },
  };
}
