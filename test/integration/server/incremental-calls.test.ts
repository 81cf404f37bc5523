/**
 * Neither deferring nor streaming ever adds an upstream call: a deferred fragment's resolvers and a
 * streamed list's items share the request's loaders (and batches) with the first part's, and a
 * streamed page is the page read once. Each query is run plain, with its fragments deferred, with
 * its lists streamed, and with both — the incremental ones in both formats — and the simulator
 * counts the calls of each, route by route: they are the same.
 *
 * The upstream cache is off: with it on, a second read of the same record would be served from the
 * cache and an unshared loader would go unseen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postForParts } from '../../support/multipart-parts.ts';

const STORE = '11111111-1111-4111-8111-111111111111';
const AUTH = { authorization: 'Bearer demo-token', 'x-store-id': STORE };
const FORMATS = {
  'deferSpec=20220824': {
    ...AUTH,
    accept:
      'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9',
  },
  'incrementalSpec=v0.2': {
    ...AUTH,
    accept:
      'multipart/mixed;incrementalSpec=v0.2,application/graphql-response+json,application/json;q=0.9',
  },
};

interface Directives {
  /** `@defer`, or nothing. */
  readonly defer: string;
  /** `@stream(...)`, or nothing. */
  readonly stream: string;
}

/** The same selections, with `@defer` on the fragments and `@stream` on the lists, or without. */
const QUERIES: Record<string, (d: Directives) => string> = {
  // The deferred fragment asks again for a field of the first part (its loader's record) and adds
  // the slow reads; the app list and each app's deployments are streamed.
  'a hosting dashboard': ({ defer, stream }) => `{
    apps ${stream} { appId name status runtimeStatus { __typename }
      ... ${defer} { runtimeStatus { __typename }
        deployments(limit: 3) { deployments ${stream} { deploymentId } } } } }`,
  // A transactions page: the page is read once, its items streamed from it.
  'a transactions page': ({ defer, stream }) => `{
    store(storeId: "${STORE}") { transactions(first: 8) {
      edges ${stream} { cursor node { transactionId amount { formatted } } }
      ... ${defer} { pageInfo { hasNextPage } } } } }`,
  // A local record read in the first part and its sub-resources deferred, the page streamed.
  'a certificate page': ({ defer, stream }) => `{
    certificateCustomer(customerId: "demo-customer") {
      certificates(first: 3) { edges ${stream} { node { commonName status
        ... ${defer} { domainVerifications { domain status } } } } } } }`,
  // An app's logs and deployments: two lists of one app, each one read.
  'logs and deployments': ({ defer, stream }) => `{
    app(appId: "app-0001") { name
      logs(target: PREVIEW, source: "app", since: "7d", lines: 20) { logs ${stream} { message level } total }
      ... ${defer} { deployments(limit: 5) { deployments ${stream} { deploymentId status } } } } }`,
  // Stitched root fields of one subgraph leave as one batch; a subgraph's list streamed from its
  // one answer (the gateway forwards neither `@defer` nor `@stream`).
  'stitched catalog fields': ({ defer, stream }) => `{
    skus(first: 3) { totalCount nodes ${stream} { id ... ${defer} { name } } }
    ... ${defer} { sku(id: "sku_0001") { name } } }`,
};

const VERSIONS: Record<string, Directives> = {
  deferred: { defer: '@defer', stream: '' },
  streamed: { defer: '', stream: '@stream(initialCount: 1)' },
  'deferred and streamed': { defer: '@defer', stream: '@stream(initialCount: 1)' },
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off', RESPONSE_CACHE: 'false' } });
});
afterAll(() => stack.close());

/** Runs `query` and returns its parts' count and the upstream calls per route. */
async function callsOf(query: string, headers: Record<string, string>) {
  await stack.resetCounts();
  const answer = await postForParts(`${stack.url}/graphql`, { query }, headers);
  const parts = await answer.parts;
  for (const part of parts) {
    expect(part.body.errors).toBeUndefined();
    for (const entry of part.body.incremental ?? []) expect(entry.errors).toBeUndefined();
    for (const entry of part.body.completed ?? []) expect(entry.errors).toBeUndefined();
  }
  return { parts: parts.length, byRoute: (await stack.sim.stats()).byRoute };
}

describe('upstream calls, plain, deferred and streamed', () => {
  for (const [name, query] of Object.entries(QUERIES)) {
    it(`are the same for ${name}`, async () => {
      const plain = await callsOf(query({ defer: '', stream: '' }), FORMATS['deferSpec=20220824']);
      expect(plain.parts).toBe(1);
      expect(Object.keys(plain.byRoute).length).toBeGreaterThan(0);
      for (const [version, directives] of Object.entries(VERSIONS)) {
        for (const [format, headers] of Object.entries(FORMATS)) {
          const incremental = await callsOf(query(directives), headers);
          expect(incremental.parts, `${version}, ${format}: in parts`).toBeGreaterThan(1);
          expect(incremental.byRoute, `${version}, ${format}`).toEqual(plain.byRoute);
        }
      }
      console.info(`[incremental figures] ${name}: ${JSON.stringify(plain.byRoute)} every way`);
    });
  }
});
