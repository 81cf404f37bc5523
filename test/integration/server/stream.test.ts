/**
 * `@stream` over HTTP (docs/clients.md "Incremental delivery"): a page's first `initialCount` items
 * come with the first part, each later item in an entry of its own at its index (2022 format) or in
 * the list's entries by its id (v0.2 format), all from the page read once; items whose fields take
 * their own upstream calls arrive one by one as those calls answer; the checks of the operation
 * pipeline answer before any part; a client without `multipart/mixed`, and a mutation, get the
 * whole list. (Calls streamed, deferred and plain: incremental-calls.test.ts; a client that goes
 * away: incremental-client-gone.test.ts.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { heldStatusReads } from '../../support/held-status-reads.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postForParts } from '../../support/multipart-parts.ts';

const STORE = '11111111-1111-4111-8111-111111111111';
const AUTH = { authorization: 'Bearer demo-token', 'x-store-id': STORE };
const DEFER_SPEC = {
  ...AUTH,
  accept:
    'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9',
};
const INCREMENTAL_SPEC = {
  ...AUTH,
  accept:
    'multipart/mixed;incrementalSpec=v0.2,application/graphql-response+json,application/json;q=0.9',
};

const page = (stream: string) =>
  `{ store(storeId: "${STORE}") { transactions(first: 6) { edges ${stream} { cursor node { transactionId amount { formatted } } } } } }`;
const STREAMED_PAGE = page('@stream(initialCount: 2, label: "page")');

/** The app whose runtime status read is held, by app id, until the test lets it go. */
const statusReads = heldStatusReads();
const held = statusReads.held;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    env: { UPSTREAM_CACHE: 'off', RESPONSE_CACHE: 'false' },
    sim: { onArrival: statusReads.onArrival },
  });
});
afterAll(() => stack.close());
beforeEach(async () => {
  held.clear();
  await stack.resetCounts();
});

/** The page's edges as a client without parts gets them. */
async function wholePage() {
  const whole = await stack.gql(page(''), {}, { headers: AUTH });
  expect(whole.body.errors).toBeUndefined();
  return whole.body.data.store.transactions.edges as unknown[];
}

describe('a streamed transactions page', () => {
  it('comes with its first items, then each further item at its index (deferSpec=20220824)', async () => {
    const edges = await wholePage();
    expect(edges).toHaveLength(6);
    await stack.resetCounts();
    const answer = await postForParts(`${stack.url}/graphql`, { query: STREAMED_PAGE }, DEFER_SPEC);
    expect(answer.headers['content-type']).toBe(
      'multipart/mixed; boundary="-"; deferSpec=20220824',
    );
    const [first, ...later] = await answer.parts;
    expect(first!.body).toEqual({
      data: { store: { transactions: { edges: edges.slice(0, 2) } } },
      hasNext: true,
    });
    const entries = later.flatMap((part) => part.body.incremental ?? []);
    expect(entries).toEqual(
      edges.slice(2).map((edge, offset) => ({
        items: [edge],
        path: ['store', 'transactions', 'edges', 2 + offset],
        label: 'page',
      })),
    );
    expect(later.at(-1)!.body.hasNext).toBe(false);
    // The page was read once, as without @stream.
    expect((await stack.sim.stats()).byRoute).toEqual({
      'GET /v2/commerce/stores/{storeId}/transactions': 1,
    });
  });

  it('lists the stream as pending, then its items by its id (incrementalSpec=v0.2)', async () => {
    const edges = await wholePage();
    const answer = await postForParts(
      `${stack.url}/graphql`,
      { query: STREAMED_PAGE },
      INCREMENTAL_SPEC,
    );
    expect(answer.headers['content-type']).toBe(
      'multipart/mixed; boundary="-"; incrementalSpec=v0.2',
    );
    const [first, ...later] = await answer.parts;
    expect(first!.body).toEqual({
      data: { store: { transactions: { edges: edges.slice(0, 2) } } },
      pending: [{ id: '0', path: ['store', 'transactions', 'edges'], label: 'page' }],
      hasNext: true,
    });
    const items = later.flatMap((part) =>
      (part.body.incremental ?? []).flatMap((entry: { id: string; items: unknown[] }) => {
        expect(entry.id).toBe('0');
        return entry.items;
      }),
    );
    expect(items).toEqual(edges.slice(2));
    expect(later.flatMap((part) => part.body.completed ?? [])).toEqual([{ id: '0' }]);
    expect(later.at(-1)!.body.hasNext).toBe(false);
  });

  it('has the ledger and the bound of the same page not streamed (Weft-Trace: 1)', async () => {
    const plain = await stack.gql(page(''), {}, { headers: { ...AUTH, 'weft-trace': '1' } });
    const plainLedger = plain.body.extensions.upstream;
    await stack.resetCounts();
    const answer = await postForParts(
      `${stack.url}/graphql`,
      { query: STREAMED_PAGE },
      { ...INCREMENTAL_SPEC, 'weft-trace': '1' },
    );
    const parts = await answer.parts;
    expect(parts.length).toBeGreaterThan(1);
    const ledger = parts.at(-1)!.body.extensions.upstream;
    expect(ledger.totals).toEqual(plainLedger.totals);
    expect(ledger.estimate).toEqual(plainLedger.estimate);
    expect(ledger.totals.upstream).toBe(await stack.upstreamCalls());
    expect(ledger.calls.map((call: { route: string }) => call.route)).toEqual(
      plainLedger.calls.map((call: { route: string }) => call.route),
    );
  });

  it('comes whole to a client that reads no parts, and with a short page', async () => {
    const edges = await wholePage();
    const whole = await stack.gql(
      STREAMED_PAGE,
      {},
      { headers: { ...AUTH, accept: 'application/json' } },
    );
    expect(whole.headers['content-type']).toMatch(/^application\/json/);
    expect(whole.body.data.store.transactions.edges).toEqual(edges);
    // No item is left to stream when the page is no longer than initialCount: one answer.
    const short = await postForParts(
      `${stack.url}/graphql`,
      { query: page('@stream(initialCount: 6)') },
      INCREMENTAL_SPEC,
    );
    expect(short.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    const [one] = await short.parts;
    expect(one!.body.data).toEqual({ store: { transactions: { edges } } });
    expect(one!.body).not.toHaveProperty('hasNext');
  });
});

describe('a streamed list whose items take their own upstream calls', () => {
  it('delivers each item when its own call has answered, one part per item', async () => {
    const list = await stack.gql('{ apps { appId } }', {}, { headers: AUTH });
    const appIds = (list.body.data.apps as { appId: string }[]).map((app) => app.appId);
    expect(appIds.length).toBeGreaterThanOrEqual(3);
    // Every app's status read but the first is held, each until the test lets it go.
    for (const appId of appIds.slice(1)) statusReads.hold(appId);
    const answer = await postForParts(
      `${stack.url}/graphql`,
      { query: '{ apps @stream(initialCount: 1) { appId runtimeStatus { appStatus } } }' },
      DEFER_SPEC,
    );
    const [first] = await answer.partsArrived(1);
    expect(first!.body.data.apps.map((app: { appId: string }) => app.appId)).toEqual([appIds[0]]);
    for (const [index, appId] of appIds.entries()) {
      if (index === 0) continue;
      // The next part is this item alone, and it comes only once its call is let go.
      held.get(appId)!.resolve();
      const parts = await answer.partsArrived(index + 1);
      expect(parts).toHaveLength(index + 1);
      expect(parts[index]!.body.incremental).toEqual([
        {
          items: [{ appId, runtimeStatus: { appStatus: expect.any(String) } }],
          path: ['apps', index],
        },
      ]);
    }
    const parts = await answer.parts;
    expect(parts).toHaveLength(appIds.length);
    expect(parts.at(-1)!.body.hasNext).toBe(false);
  });
});

describe('@stream and the operation pipeline', () => {
  it('refuses before any part a negative initialCount and a field that is not a list', async () => {
    const negative = await stack.gql(
      '{ apps @stream(initialCount: -1) { appId } }',
      {},
      { headers: DEFER_SPEC },
    );
    expect(negative.status).toBe(400);
    expect(negative.body.errors[0]).toMatchObject({
      message: '`initialCount` must be a whole number of at least 0',
      extensions: { code: 'BAD_USER_INPUT', field: 'initialCount' },
    });
    const variable = await stack.gql(
      'query ($n: Int) { apps @stream(initialCount: $n) { appId } }',
      { n: -3 },
      { headers: DEFER_SPEC },
    );
    expect(variable.body.errors[0].extensions).toMatchObject({ field: 'initialCount' });
    const notAList = await stack.gql(
      '{ app(appId: "app-0001") @stream { appId } }',
      {},
      { headers: DEFER_SPEC },
    );
    expect(notAList.body.errors[0]).toMatchObject({
      message: '`@stream` is only for list fields: `Query.app` returns `App`.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('answers a mutation that uses @stream whole', async () => {
    const answer = await postForParts(
      `${stack.url}/graphql`,
      {
        query:
          'mutation { createApp(input: { name: "stream-app" }) { job { jobId } userErrors @stream { message } } }',
      },
      DEFER_SPEC,
    );
    expect(answer.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    const [whole] = await answer.parts;
    expect(whole!.body.errors).toBeUndefined();
    expect(whole!.body.data.createApp).toEqual({
      job: { jobId: expect.any(String) },
      userErrors: [],
    });
  });
});
