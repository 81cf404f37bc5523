/**
 * The search filters take input enums of their own: the results' UNKNOWN (a value the graph does
 * not know) is no filter, so it is refused by validation — inline or as a variable — before any
 * upstream call, and ANY still means "no filter".
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const SEARCH = `query($filter: CertificateSubscriptionFilter) {
  certificateSubscriptions(first: 5, filter: $filter) { edges { node { status type validation } } } }`;

describe('certificate search filters', () => {
  it.each([
    ['status', { status: 'UNKNOWN' }],
    ['type', { type: 'UNKNOWN' }],
    ['validation', { validation: 'UNKNOWN' }],
  ])('refuses UNKNOWN as a %s filter before any upstream call', async (name, filter) => {
    const { status, body } = await stack.gql(SEARCH, { filter });
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: `filter.${name}`,
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses UNKNOWN written inline, at validation', async () => {
    const { body } = await stack.gql(
      '{ certificateSubscriptions(first: 5, filter: { status: UNKNOWN }) { edges { node { status } } } }',
    );
    expect(body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('filters by a known value, and ANY filters nothing', async () => {
    const active = await stack.gql(SEARCH, { filter: { status: 'ACTIVE' } });
    expect(active.body.errors).toBeUndefined();
    for (const edge of active.body.data.certificateSubscriptions.edges) {
      expect(edge.node.status).toBe('ACTIVE');
    }
    const any = await stack.gql(SEARCH, { filter: { status: 'ANY', type: 'ANY' } });
    expect(any.body.errors).toBeUndefined();
    expect(any.body.data.certificateSubscriptions.edges.length).toBeGreaterThan(0);
  });
});
