/**
 * Deferring never adds an upstream call: a deferred fragment's resolvers share the request's
 * loaders (and batches) with the first part's. Each query is run deferred and not deferred, and the
 * simulator counts the calls of each, route by route.
 *
 * The upstream cache is off: with it on, a second read of the same record would be served from the
 * cache and an unshared loader would go unseen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postForParts } from '../../support/multipart-parts.ts';

const STORE = '11111111-1111-4111-8111-111111111111';
const HEADERS = {
  authorization: 'Bearer demo-token',
  'x-store-id': STORE,
  accept:
    'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9',
};

/** The same selections, with `@defer` on the fragment or without it. */
const QUERIES: Record<string, (defer: string) => string> = {
  // The deferred fragment asks again for a field of the first part (its loader's record) and adds
  // the slow reads.
  'a hosting dashboard': (defer) => `{
    apps { appId name status runtimeStatus { __typename }
      ... ${defer} { runtimeStatus { __typename } deployments(limit: 3) { __typename } } } }`,
  // Stitched root fields of one subgraph leave as one batch, deferred or not.
  'stitched catalog root fields': (defer) => `{
    skus(first: 3) { totalCount nodes { id } }
    ... ${defer} { sku(id: "sku_0001") { name } } }`,
  // Inside a stitched field: the subgraph still answers in one piece (the gateway does not forward
  // `@defer`), and the deferred fields are delivered later from that one answer.
  'a fragment inside a stitched field': (defer) => `{
    skus(first: 3) { totalCount nodes { id ... ${defer} { name } } } }`,
  // A local record read in the first part and its sub-resources deferred.
  'a certificate page': (defer) => `{
    certificateCustomer(customerId: "demo-customer") {
      certificates(first: 3) { edges { node { commonName status
        ... ${defer} { domainVerifications { domain status } } } } } } }`,
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off' } });
});
afterAll(() => stack.close());

/** Runs `query` and returns its parts' count and the upstream calls per route. */
async function callsOf(query: string) {
  await stack.resetCounts();
  const answer = await postForParts(`${stack.url}/graphql`, { query }, HEADERS);
  const parts = await answer.parts;
  for (const part of parts) {
    expect(part.body.errors).toBeUndefined();
    for (const entry of part.body.incremental ?? []) expect(entry.errors).toBeUndefined();
  }
  return { parts: parts.length, byRoute: (await stack.sim.stats()).byRoute };
}

describe('upstream calls, deferred and not', () => {
  for (const [name, query] of Object.entries(QUERIES)) {
    it(`are the same for ${name}`, async () => {
      const deferred = await callsOf(query('@defer'));
      const whole = await callsOf(query(''));
      expect(deferred.parts).toBeGreaterThan(1);
      expect(whole.parts).toBe(1);
      expect(Object.keys(deferred.byRoute).length).toBeGreaterThan(0);
      expect(deferred.byRoute).toEqual(whole.byRoute);
      console.info(`[defer figures] ${name}: ${JSON.stringify(deferred.byRoute)} both ways`);
    });
  }
});
