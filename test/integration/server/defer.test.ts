/**
 * `@defer` over HTTP (docs/clients.md "Incremental delivery"): a dashboard whose slow part is
 * deferred gets its first part as soon as the fast upstream calls have answered and the deferred
 * part when the slow call answers; the operation pipeline's checks answer before any part; a
 * deferred part's errors arrive in it; the ledger (`Weft-Trace: 1`) rides on the last part and
 * covers every call; a client without `multipart/mixed` gets the whole answer; a subscription may
 * not defer. (A client that goes away: defer-client-gone.test.ts.)
 *
 * The slow route is the simulator's deployments read: held at the simulator (`onArrival`) for
 * SLOW_MS after it arrives — the latency of that one route; every other route answers at once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postForParts } from '../../support/multipart-parts.ts';
import { collectSse, collectWs, wsClient } from '../../support/subscription-clients.ts';

/** The slow route's latency. */
const SLOW_MS = 300;
const AUTH = { authorization: 'Bearer demo-token' };
/** What Apollo Client 4's Defer20220824Handler sends; urql sends a bare `multipart/mixed`. */
const PARTS = {
  ...AUTH,
  accept:
    'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9',
};
/** What Apollo Client 4's GraphQL17Alpha9Handler sends. */
const PARTS_V02 = {
  ...AUTH,
  accept:
    'multipart/mixed;incrementalSpec=v0.2,application/graphql-response+json,application/json;q=0.9',
};

const FAST_FIELDS = 'appId name status urls { publish } runtimeStatus { __typename }';
const FAST_KEYS = ['appId', 'name', 'runtimeStatus', 'status', 'urls'];
const SLOW_FIELDS = 'deployments(limit: 3) { __typename }';
const DEFERRED_DASHBOARD = `query Dashboard { apps { ${FAST_FIELDS} ... @defer(label: "deployments") { ${SLOW_FIELDS} } } }`;
const WHOLE_DASHBOARD = `query Dashboard { apps { ${FAST_FIELDS} ${SLOW_FIELDS} } }`;

interface Arrival {
  readonly url: string;
  readonly at: number;
}
/** When each upstream call of the current test was answered by the simulator. */
let answers: Arrival[] = [];
const isSlow = (url: string) => url.split('?')[0]!.endsWith('/deployments');

let stack: Stack;
let arrivals: Arrival[] = [];
/** How many slow calls of the current test have been let go (their latency over). */
let slowAnswered = 0;

beforeAll(async () => {
  stack = await startStack({
    sim: {
      onArrival: async ({ url }) => {
        arrivals.push({ url, at: performance.now() });
        if (!isSlow(url)) return;
        // The route's latency, not a synchronisation: every assertion waits for a condition.
        await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
        slowAnswered += 1;
      },
      onAnswered: ({ url }) => {
        answers.push({ url, at: performance.now() });
      },
    },
  });
  // Warm the executor and the hosting code, so that the first timed request is not the first one
  // (from the credential no timed test uses).
  const warm = await postForParts(
    `${stack.url}/graphql`,
    { query: DEFERRED_DASHBOARD },
    { ...PARTS, authorization: 'Bearer demo-other' },
  );
  await warm.parts;
});
afterAll(() => stack.close());
beforeEach(async () => {
  arrivals = [];
  answers = [];
  slowAnswered = 0;
  await stack.resetCounts();
});

const round = (ms: number) => Math.round(ms * 10) / 10;

describe('a dashboard whose slow part is deferred', () => {
  it('gets its first part before the slow calls answer, each deferred part once its call has', async () => {
    const started = performance.now();
    // Each timed test has a credential of its own: its reads are not in the upstream cache yet.
    const answer = await postForParts(`${stack.url}/graphql`, { query: DEFERRED_DASHBOARD }, PARTS);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(
      'multipart/mixed; boundary="-"; deferSpec=20220824',
    );
    // What had happened when the first part arrived; then the whole answer, read to its end
    // before anything is asserted (a failed assertion leaves no call of this test in flight).
    const atFirst = answer.partsArrived(1).then(() => ({
      slowAnswered,
      slowArrived: arrivals.filter((arrival) => isSlow(arrival.url)).length,
      fast: answers.filter((answer) => !isSlow(answer.url)),
    }));
    const parts = await answer.parts;
    const seen = await atFirst;
    // The first part, then the app's deferred fragments: each as soon as its own slow call has
    // answered, together when their calls answered together.
    expect(parts.length).toBeGreaterThanOrEqual(2);
    const first = parts[0]!;
    const later = parts.slice(1);
    const last = parts.at(-1)!;
    // The first part came before any slow call had answered, though they had been sent.
    expect(seen.slowAnswered).toBe(0);
    expect(seen.slowArrived).toBeGreaterThan(0);
    const apps = first.body.data.apps as Record<string, unknown>[];
    expect(apps.length).toBeGreaterThan(0);
    for (const app of apps) {
      expect(app).toHaveProperty('runtimeStatus');
      expect(app).not.toHaveProperty('deployments');
    }
    expect(first.body.hasNext).toBe(true);
    // How soon after the fast calls: a timing, measured by `npm run bench` (g.), not asserted here.
    const lastFast = Math.max(...seen.fast.map((fast) => fast.at));

    for (const part of later.slice(0, -1)) expect(part.body.hasNext).toBe(true);
    expect(last.body.hasNext).toBe(false);
    const entries = later.flatMap((part) => part.body.incremental);
    entries.sort((a, b) => a.path[1] - b.path[1]);
    expect(entries).toEqual(
      apps.map((_app, index) => ({
        data: { deployments: { __typename: 'AppDeploymentList' } },
        path: ['apps', index],
        label: 'deployments',
      })),
    );
    // When the (last) slow call answered: one call per app; each part after its own call.
    expect(slowAnswered).toBe(apps.length);
    for (const part of later) {
      const answered = answers.filter((answer) => isSlow(answer.url) && answer.at < part.at);
      expect(answered.length).toBeGreaterThanOrEqual(
        later.slice(0, later.indexOf(part) + 1).flatMap((p) => p.body.incremental).length,
      );
    }
    const lastSlowAnswer = Math.max(
      ...answers.filter((answer) => isSlow(answer.url)).map((answer) => answer.at),
    );
    expect(last.at).toBeGreaterThan(lastSlowAnswer);
    console.info(
      `[defer figures] deferred: first part ${round(first.at - started)} ms after the request, ` +
        `${round(first.at - lastFast)} ms after the last fast call answered; last deferred part ` +
        `${round(last.at - started)} ms after the request, ${round(last.at - lastSlowAnswer)} ms ` +
        `after the last slow call answered (slow route ${SLOW_MS} ms, ${later.length} deferred parts)`,
    );
  });

  it('without @defer, the whole answer waits for the slow call', async () => {
    const started = performance.now();
    const answer = await postForParts(
      `${stack.url}/graphql`,
      { query: WHOLE_DASHBOARD },
      { ...PARTS, authorization: 'Bearer demo-readonly' },
    );
    expect(answer.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    const [whole] = await answer.parts;
    expect(whole!.body.errors).toBeUndefined();
    expect(slowAnswered).toBe(whole!.body.data.apps.length);
    const lastSlowAnswer = Math.max(
      ...answers.filter((answer) => isSlow(answer.url)).map((answer) => answer.at),
    );
    expect(whole!.at).toBeGreaterThan(lastSlowAnswer);
    const lastFast = Math.max(
      ...answers.filter((answer) => !isSlow(answer.url)).map((answer) => answer.at),
    );
    console.info(
      `[defer figures] not deferred: whole answer ${round(whole!.at - started)} ms after the ` +
        `request, ${round(whole!.at - lastFast)} ms after the last fast call answered`,
    );
  });
});

describe('the same dashboard in the incrementalSpec=v0.2 format', () => {
  it('lists what is pending in the first part, then delivers and completes each by its id', async () => {
    const answer = await postForParts(
      `${stack.url}/graphql`,
      { query: DEFERRED_DASHBOARD },
      { ...PARTS_V02, authorization: 'Bearer demo-other' },
    );
    expect(answer.headers['content-type']).toBe(
      'multipart/mixed; boundary="-"; incrementalSpec=v0.2',
    );
    const [first, ...later] = await answer.parts;
    const apps = first!.body.data.apps as Record<string, unknown>[];
    expect(apps.length).toBeGreaterThan(0);
    // The first part is the data without the deferred fields, nothing of Weft's added to it.
    for (const app of apps) expect(Object.keys(app).sort()).toEqual(FAST_KEYS);
    const ids = apps.map((_app, index) => String(index));
    expect(first!.body.pending).toEqual(
      ids.map((id, index) => ({ id, path: ['apps', index], label: 'deployments' })),
    );
    expect(first!.body.hasNext).toBe(true);
    // Each fragment's data and its completion in the same part, each by its id.
    for (const part of later) {
      expect(part.body.completed).toEqual(
        part.body.incremental.map((entry: { id: string }) => ({ id: entry.id })),
      );
      expect(part.body.pending).toBeUndefined();
    }
    const entries = later.flatMap((part) => part.body.incremental);
    entries.sort((a, b) => Number(a.id) - Number(b.id));
    expect(entries).toEqual(
      ids.map((id) => ({ id, data: { deployments: { __typename: 'AppDeploymentList' } } })),
    );
    expect(later.at(-1)!.body.hasNext).toBe(false);
  });

  it("delivers a deferred part's errors in its entry", async () => {
    const answer = await postForParts(
      `${stack.url}/graphql`,
      {
        query: `{ apps { appId } ... @defer(label: "missing") { app(appId: "app-9999") { name } } }`,
      },
      PARTS_V02,
    );
    const [first, last] = await answer.parts;
    expect(first!.body.pending).toEqual([{ id: '0', path: [], label: 'missing' }]);
    expect(last!.body.incremental).toEqual([
      {
        id: '0',
        data: { app: null },
        errors: [
          expect.objectContaining({
            path: ['app', 'name'],
            extensions: expect.objectContaining({
              code: 'NOT_FOUND',
              requestId: answer.headers['x-request-id'],
            }),
          }),
        ],
      },
    ]);
    expect(last!.body.completed).toEqual([{ id: '0' }]);
  });
});

describe('@defer and the operation pipeline', () => {
  it('refuses before any part what it refuses without @defer (ranges, variables)', async () => {
    const range = await stack.gql(
      `{ apps { appId ... @defer { deployments(limit: 500) { __typename } } } }`,
      {},
      { headers: PARTS },
    );
    expect(range.status).toBe(400);
    expect(range.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    expect(range.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const variables = await stack.gql(
      `query ($n: Int!) { apps { appId ... @defer { deployments(limit: $n) { __typename } } } }`,
      { n: 'three' },
      { headers: PARTS },
    );
    expect(variables.status).toBe(400);
    expect(variables.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses before any part an operation over the upstream-call bound', async () => {
    // Each alias can make 11 calls (the list, and 10 apps' deployments by the default list size):
    // 15 of them are over the default bound (150).
    const aliases = Array.from(
      { length: 15 },
      (_, i) => `a${i}: apps { deployments(limit: 1) { __typename } }`,
    ).join(' ');
    const refused = await stack.gql(
      `{ __typename ... @defer { ${aliases} } }`,
      {},
      {
        headers: PARTS,
      },
    );
    expect(refused.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    expect(refused.body.errors[0].extensions).toMatchObject({ limit: 'upstreamCalls' });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it("delivers a deferred part's errors in that part, typed, with the request id", async () => {
    const answer = await postForParts(
      `${stack.url}/graphql`,
      { query: `{ apps { appId } ... @defer { app(appId: "app-9999") { name } } }` },
      PARTS,
    );
    const [first, last] = await answer.parts;
    expect(first!.body.errors).toBeUndefined();
    expect(first!.body.data.apps.length).toBeGreaterThan(0);
    const [part] = last!.body.incremental;
    expect(part.path).toEqual([]);
    expect(part.data).toEqual({ app: null });
    expect(part.errors).toHaveLength(1);
    expect(part.errors[0]).toMatchObject({
      path: ['app', 'name'],
      extensions: { code: 'NOT_FOUND', requestId: answer.headers['x-request-id'] },
    });
    // The log line counts every part's errors.
    await until(
      () =>
        stack.logs.some(
          (line) =>
            line.includes(answer.headers['x-request-id']!) &&
            line.includes('"errorCodes":["NOT_FOUND"]'),
        ),
      'the operation log line',
    );
  });

  it('puts the ledger of the whole operation on the last part (Weft-Trace: 1)', async () => {
    await stack.resetCounts();
    const answer = await postForParts(
      `${stack.url}/graphql`,
      { query: DEFERRED_DASHBOARD },
      { ...PARTS, authorization: 'Bearer demo-other', 'weft-trace': '1' },
    );
    const [first, last] = await answer.parts;
    expect(first!.body.extensions).toBeUndefined();
    const ledger = last!.body.extensions.upstream;
    // Every call, made (by the first part or a deferred one) or served from the cache (the warm-up
    // read some of them), is listed once.
    expect(ledger.totals.upstream).toBe(await stack.upstreamCalls());
    expect(ledger.totals.upstream + ledger.totals.withoutUpstream).toBe(ledger.calls.length);
    const apps = first!.body.data.apps.length;
    const paths = ledger.calls.map((call: { paths: string[] }) => call.paths[0]);
    for (let i = 0; i < apps; i += 1) expect(paths).toContain(`apps.${i}.deployments`);
    expect(ledger.estimate.calls).toBeGreaterThanOrEqual(ledger.totals.upstream);
    expect(ledger.budget).toMatchObject({ limit: 600 });
  });

  it('answers a client that does not read multipart/mixed in one JSON answer', async () => {
    const whole = await stack.gql(
      DEFERRED_DASHBOARD,
      {},
      {
        headers: { accept: 'application/json' },
      },
    );
    expect(whole.headers['content-type']).toMatch(/^application\/json/);
    expect(whole.body.errors).toBeUndefined();
    for (const app of whole.body.data.apps) expect(app.deployments).toBeDefined();
    // Inside a stitched field too: the subgraph is asked for the deferred fields with the rest.
    const stitched = await stack.gql(
      `{ skus(first: 2, storeId: "11111111-1111-4111-8111-111111111111") { nodes { id ... @defer { name } } } }`,
      {},
      { headers: { accept: 'application/json' } },
    );
    expect(stitched.body.errors).toBeUndefined();
    for (const sku of stitched.body.data.skus.nodes) expect(sku.name).toEqual(expect.any(String));
  });

  it('refuses @defer in a subscription, over HTTP, SSE and graphql-ws alike', async () => {
    const subscription = `subscription { appJob(jobId: "job-0001") { ... on AppJob @defer { status } } }`;
    const refusedOverHttp = await stack.gql(subscription, {}, { headers: PARTS });
    const overSse = await collectSse(stack.url, subscription);
    const ws = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    const overWs = await collectWs(ws, subscription);
    await ws.dispose();
    expect(refusedOverHttp.status).toBe(400);
    const errors = [
      refusedOverHttp.body.errors[0],
      overSse.results[0]?.errors?.[0],
      (overWs.failure as { 0?: unknown } | undefined)?.[0],
    ];
    for (const error of errors) {
      expect(error).toMatchObject({
        message: expect.stringMatching(/`@defer` is not supported in a subscription/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
    }
    // A fragment used by a subscription is refused too; `if: false` is allowed.
    const viaFragment = await stack.gql(
      `subscription { appJob(jobId: "job-0001") { ...Job } } fragment Job on AppJob { ... @defer { status } }`,
      {},
      { headers: PARTS },
    );
    expect(viaFragment.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const off = await collectSse(
      stack.url,
      `subscription { appJob(jobId: "job-0001") { ... @defer(if: false) { status } } }`,
    );
    expect(off.results[0]?.errors?.[0]?.extensions?.code).not.toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('answers a mutation that uses @defer whole', async () => {
    const answer = await postForParts(
      `${stack.url}/graphql`,
      {
        query: `mutation { createApp(input: { name: "defer-app" }) { ... @defer { job { jobId } } userErrors { message } } }`,
      },
      PARTS,
    );
    expect(answer.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    const [whole] = await answer.parts;
    expect(whole!.body.errors).toBeUndefined();
    expect(whole!.body.data.createApp.job.jobId).toBeTruthy();
  });
});
