/**
 * No N+1: a query that touches N records makes the fewest upstream calls that can answer it, counted
 * by the simulator. Certificates have no batch endpoint, so the minimum for N certificates with
 * detail fields and verifications is 1 list + N details + N verification lists — each fetched once
 * per request however many fields, aliases or paths ask for it, and not at all on a revisit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { SCREENS } from '../../bench/journey.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const LIST = 'GET /v2/customers/{customerId}/certificates';
const DETAIL = 'GET /v2/customers/{customerId}/certificates/{certificateId}';
const VERIFICATIONS = `${DETAIL}/domainVerifications`;

describe('no N+1 (certificates)', () => {
  it('loads each record once per request, whatever asks for it', async () => {
    const { body } = await stack.gql(`{
      certificateCustomer(customerId: "demo-customer") {
        page: certificates(first: 10, offset: 20) { edges { node {
          certificateId csr contact { email } organization { name }
          domainVerifications { domain status }
          again: domainVerifications { type }
        } } }
        samePage: certificates(first: 10, offset: 20) { edges { node { rootType } } }
        one: certificate(certificateId: "cert-0021") { csr domainVerifications { domain } }
      } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.certificateCustomer.page.edges).toHaveLength(10);
    expect(await stack.upstreamCalls(LIST)).toBe(1);
    expect(await stack.upstreamCalls(DETAIL)).toBe(10);
    expect(await stack.upstreamCalls(VERIFICATIONS)).toBe(10);
    expect(await stack.upstreamCalls()).toBe(21);
  });

  it('makes no call at all when the same screen is revisited', async () => {
    const SCREEN = `{ certificateCustomer(customerId: "demo-customer") {
      certificates(first: 5, offset: 30) { edges { node { certificateId csr domainVerifications { domain } } } } } }`;
    await stack.gql(SCREEN);
    const cold = await stack.upstreamCalls();
    await stack.resetCounts();
    await stack.gql(SCREEN);
    expect(cold).toBeGreaterThan(0);
    // Only details of certificates still pending (never cached) may be read again.
    expect(await stack.upstreamCalls(LIST)).toBe(0);
    expect(await stack.upstreamCalls(VERIFICATIONS)).toBe(0);
  });
});

describe('no N+1 (the benchmark journey: apps dashboard, store overview with a stitched SKU)', () => {
  it('makes one call per distinct upstream resource, and none on the revisit', async () => {
    const [, apps, store] = SCREENS;
    for (const [screen, expected] of [
      // the app list, then each of the 3 apps' runtime status and deployments
      [
        apps!,
        {
          'GET /v1/hosting/nodejs/apps': 1,
          'GET /v1/hosting/nodejs/apps/{appId}/status': 3,
          'GET /v1/hosting/nodejs/apps/{appId}/deployments': 3,
        },
      ],
      // store, channels, customers, transactions, and the SKU from the catalog subgraph
      [
        store!,
        {
          'GET /v1/commerce/stores/{storeId}': 1,
          'GET /v1/commerce/channels': 1,
          'GET /v1/commerce/stores/{storeId}/customers': 1,
          'GET /v2/commerce/stores/{storeId}/transactions': 1,
          'POST /v2/commerce/stores/{storeId}/catalog-subgraph': 1,
        },
      ],
    ] as const) {
      await stack.resetCounts();
      const { body } = await stack.gql(screen.query);
      expect(body.errors, screen.name).toBeUndefined();
      expect((await stack.sim.stats()).byRoute, screen.name).toEqual(expected);
      await stack.resetCounts();
      await stack.gql(screen.query);
      expect(await stack.upstreamCalls(), `${screen.name}, revisited`).toBe(0);
    }
  });
});
