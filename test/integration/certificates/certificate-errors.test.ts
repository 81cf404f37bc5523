import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { encodeGlobalId } from '../../../src/kit/global-id.ts';

let stack: Stack;
beforeAll(async () => {
  // These tests are about the resolvers' own argument checks: a page of 101 with verifications
  // would meet the operation cost limit first (covered in test/integration/server/operation-limits.test.ts).
  stack = await startStack({ env: { LIMIT_MAX_COST: '5000' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const PAGE = `query($customerId: ID!, $first: Int, $after: String, $offset: Int) {
  certificateCustomer(customerId: $customerId) {
    certificates(first: $first, after: $after, offset: $offset) { edges { node { certificateId commonName domainVerifications { domain } } } } } }`;

describe('authentication and isolation', () => {
  it('answers UNAUTHENTICATED without a token, and spends no upstream call', async () => {
    const { body } = await stack.gql(PAGE, { customerId: 'demo-customer' }, { token: null });
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('maps the upstream 401 of an unknown token to UNAUTHENTICATED', async () => {
    const { body } = await stack.gql(
      PAGE,
      { customerId: 'demo-customer' },
      { token: 'no-such-token' },
    );
    expect(body.errors[0].extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      upstream: { status: 401 },
    });
  });

  it('gives another account an error for the customer and none of its data', async () => {
    const { body, text } = await stack.gql(
      PAGE,
      { customerId: 'demo-customer' },
      { token: 'demo-other' },
    );
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(text).not.toContain('shop0');
    expect(text).not.toContain('cert-00');
  });

  it('lets account B read its own customer', async () => {
    const { body } = await stack.gql(
      PAGE,
      { customerId: 'other-customer' },
      { token: 'demo-other' },
    );
    expect(body.data.certificateCustomer.certificates.edges.length).toBe(4);
  });
});

describe('bad input gets a clear error before any upstream call', () => {
  it.each([
    ['a negative offset', { offset: -1 }, 'offset'],
    ['first = 0', { first: 0 }, 'first'],
    ['first over the cap', { first: 101 }, 'first'],
    ['a cursor from elsewhere', { after: 'bm90LWEtY3Vyc29y' }, 'after'],
    ['after and offset together', { after: 'bzoz', offset: 3 }, 'offset'],
  ])('%s', async (_name, args, field) => {
    const { body } = await stack.gql(PAGE, { customerId: 'demo-customer', ...args });
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(body.errors[0].message).toContain(`\`${field}\``);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a malformed global id', async () => {
    const { body } = await stack.gql(`{ node(id: "definitely-not-an-id") { id } }`);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toMatch(/global id/);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a well-formed global id of an unknown certificate is null', async () => {
    const id = encodeGlobalId('Certificate', 'c', 'demo-customer', 'cert-4242');
    const { body } = await stack.gql(`query($id: ID!) { node(id: $id) { id } }`, { id });
    expect(body.errors).toBeUndefined();
    expect(body.data.node).toBeNull();
  });

  it('a bad enum value', async () => {
    const { status, body } = await stack.gql(
      `{ certificateSubscriptions(filter: { status: LIVE }) { totalCount } }`,
    );
    expect(status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(body.errors[0].message).toContain('LIVE');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a bad enum value in variables', async () => {
    const { status, body } = await stack.gql(
      `query($f: CertificateSubscriptionFilter) { certificateSubscriptions(filter: $f) { totalCount } }`,
      { f: { validation: 'XV' } },
    );
    expect(status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('an invalid domain name', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "cert-0002") { domainVerification(domain: "not a domain") { domain } } } }`,
    );
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'domain' });
  });

  it('an unknown entitlement is NOT_FOUND', async () => {
    const { body } = await stack.gql(
      `{ certificateBundle(entitlementId: "ent-missing") { serialNumber } }`,
    );
    expect(body.errors[0].extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { status: 404 },
    });
  });
});
