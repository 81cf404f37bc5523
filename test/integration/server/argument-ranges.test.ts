/**
 * Bounds declared in the SDL (`@range`) are checked before the cost: an out-of-range `first` names
 * `first` and its bounds, whatever path the value took (literal, variable, fragment), and costs no
 * upstream call.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const A = COMMERCE_IDS.storeA;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const refusalOf = (body: {
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}) => {
  const [error] = body.errors ?? [];
  const { requestId: _requestId, ...extensions } = error?.extensions ?? {};
  return { message: error?.message, extensions };
};

describe('arguments outside their @range', () => {
  it('`first: 500` names `first` and its bounds, not the estimated cost', async () => {
    const { status, body } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) { customers(first: 500) { edges { node { id } } } } }`,
      { s: A },
    );
    expect(status).toBe(400);
    expect(refusalOf(body)).toEqual({
      message: '`first` must be a whole number from 1 to 100',
      extensions: { code: 'BAD_USER_INPUT', field: 'first', min: 1, max: 100 },
    });
    expect(body.data).toBeUndefined();
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a variable is checked the same way, and its value is not echoed', async () => {
    const { body } = await stack.gql(
      `query($s: ID!, $n: Int) { store(storeId: $s) { transactions(first: $n) { edges { node { id } } } } }`,
      { s: A, n: 98765 },
    );
    expect(refusalOf(body).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'first',
      min: 1,
      max: 100,
    });
    expect(JSON.stringify(body)).not.toContain('98765');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('inside a fragment, and below the lower bound', async () => {
    const { body } = await stack.gql(
      `query { app(appId: "app-1") { ...Deployments } }
       fragment Deployments on App { deployments(limit: 0) { deployments { deploymentId } } }`,
    );
    expect(refusalOf(body)).toEqual({
      message: '`limit` must be a whole number from 1 to 50',
      extensions: { code: 'BAD_USER_INPUT', field: 'limit', min: 1, max: 50 },
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a bound with only a minimum', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "c-1") { certificates(offset: -1) { totalCount } } }`,
    );
    expect(refusalOf(body)).toEqual({
      message: '`offset` must be a whole number of at least 0',
      extensions: { code: 'BAD_USER_INPUT', field: 'offset', min: 0 },
    });
  });

  it('only the operation that runs is checked', async () => {
    const { status, body } = await stack.http('POST', '/graphql', {
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({
        query: `query Fine { viewer { rateLimit { limit } } }
                query Wide($s: ID!) { store(storeId: $s) { customers(first: 500) { edges { node { id } } } } }`,
        operationName: 'Fine',
        variables: { s: A },
      }),
    });
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
  });

  it('within bounds, an operation can still be refused for its cost', async () => {
    const { body } = await stack.gql(
      `query($s: ID!) { store(storeId: $s) {
         a: customers(first: 100) { edges { node { id } } }
         b: customers(first: 100) { edges { node { id } } }
         c: customers(first: 100) { edges { node { id } } }
         d: customers(first: 100) { edges { node { id } } }
         e: customers(first: 100) { edges { node { id } } }
         f: customers(first: 100) { edges { node { id } } }
       } }`,
      { s: A },
    );
    expect(refusalOf(body).extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'cost' });
  });
});
