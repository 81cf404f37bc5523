/**
 * Ids that become upstream path segments are checked before any upstream call, on every route:
 * empty, `.`, `..`, control or path characters, and ids past 255 characters are refused with
 * BAD_USER_INPUT naming the argument; uuid-shaped ids (store, transaction, channel) must be uuids.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

/**
 * The refusal of a response: a field error (BAD_USER_INPUT), or a mutation's userError, where the
 * same refusal reads INVALID_INPUT with the argument's path (docs/errors.md).
 */
function refusalOf(body: any): { code: string; field: unknown } | undefined {
  const error = body.errors?.[0];
  if (error) return { code: error.extensions.code, field: error.extensions.field };
  for (const payload of Object.values(body.data ?? {}) as any[]) {
    const userError = payload?.userErrors?.[0];
    if (userError) return { code: userError.code, field: userError.path?.join('.') };
  }
  return undefined;
}

const BAD_IDS = ['.', '..', 'a/b', 'a\\b', '%2e%2e', 'x\u0000y', 'x'.repeat(30_000)];

const CASES: { name: string; query: (id: string) => string; field: RegExp }[] = [
  {
    name: 'a certificate customer',
    query: (id) =>
      `{ certificateCustomer(customerId: ${JSON.stringify(id)}) { certificates(first: 1) { totalCount } } }`,
    field: /customerId/,
  },
  {
    name: 'a certificate',
    query: (id) =>
      `{ certificateCustomer(customerId: "demo-customer") { certificate(certificateId: ${JSON.stringify(id)}) { certificateId } } }`,
    field: /certificateId/,
  },
  {
    name: 'a reissue',
    query: (id) =>
      `mutation { reissueCertificate(input: { certificateId: ${JSON.stringify(id)} }) { certificateId userErrors { code path } } }`,
    field: /certificateId/,
  },
  {
    name: 'an app',
    query: (id) => `{ app(appId: ${JSON.stringify(id)}) { appId name } }`,
    field: /appId/,
  },
  {
    name: 'an app deletion',
    query: (id) =>
      `mutation { deleteApp(input: { appId: ${JSON.stringify(id)} }) { deletedAppId userErrors { code path } } }`,
    field: /appId/,
  },
  {
    name: 'a store customer update',
    query: (id) =>
      `mutation { updateStoreCustomer(input: { storeId: "${COMMERCE_IDS.storeA}", customerId: ${JSON.stringify(id)}, customer: { note: "x" } }) { customer { customerId } userErrors { code path } } }`,
    field: /customerId/,
  },
];

describe('ids in upstream paths', () => {
  for (const { name, query, field } of CASES) {
    it(`refuses a bad id of ${name} before any upstream call`, async () => {
      for (const id of BAD_IDS) {
        const { body } = await stack.gql(query(id));
        const refusal = refusalOf(body);
        expect(refusal, `${name} with ${JSON.stringify(id.slice(0, 20))}`).toMatchObject({
          code: expect.stringMatching(/^(BAD_USER_INPUT|INVALID_INPUT)$/),
          field: expect.stringMatching(field),
        });
      }
      expect(await stack.upstreamCalls()).toBe(0);
    });
  }

  it('requires uuids for store, transaction and channel ids', async () => {
    for (const query of [
      `{ store(storeId: "not-a-uuid") { transactions(first: 1) { totalCount } } }`,
      `{ store(storeId: "${COMMERCE_IDS.storeA}") { transaction(transactionId: "..") { id } } }`,
      `{ channel(channelId: "..") { channelId } }`,
    ]) {
      const { body } = await stack.gql(query);
      expect(refusalOf(body)?.code, query).toBe('BAD_USER_INPUT');
    }
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('still serves a valid id of 133 characters (a long domain name)', async () => {
    const label = 'a'.repeat(63);
    const domain = `${label}.${label}.example`; // 135 characters: a valid DNS name
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "cert-0001") { domainVerification(domain: "${domain}") { domain } } } }`,
    );
    // Whatever the upstream says about this domain, the gateway did not refuse the id itself.
    expect(JSON.stringify(body)).not.toMatch(/must be at most 255/);
    expect(await stack.upstreamCalls()).toBeGreaterThan(0);
  });
});
