/**
 * The upstream ledger (`Weft-Ledger: 1`, or `Weft-Trace: 1` by its first name; docs/budget.md): every upstream call an operation needed,
 * matched call for call against what the simulator counted — cold, warm, coalesced with another
 * request and refused locally — with the GraphQL path that asked, and nothing secret in it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { longAliasCertificates } from '../../support/long-alias-documents.ts';
import {
  MAX_LEDGER_PATH_BYTES,
  MAX_PATH_CHARS,
  MAX_PATHS_PER_CALL,
} from '../../../src/upstream/ledger-field-paths.ts';
import { collectSse, collectWs, wsClient } from '../../support/subscription-clients.ts';

const TRACE = { headers: { 'weft-trace': '1' } };
const DASHBOARD = `{ apps { appId name status urls { publish }
  runtimeStatus { __typename } deployments(limit: 3) { __typename } } }`;

interface LedgerCall {
  method: string;
  route: string;
  status: number | null;
  source: string;
  limiter?: string;
  attempts: number;
  durationMs: number;
  paths: string[];
  morePaths?: number;
}
interface Ledger {
  calls: LedgerCall[];
  totals: { upstream: number; withoutUpstream: number };
  budget: { limit: number; remaining: number; resetSec: number; writeReserve: number } | null;
}

/** `GET /v1/x/{appId}` and `GET /v1/x/{id}` name the same route: parameter names may differ. */
const shape = (route: string) => route.replace(/\{[^}]+\}/g, '{}');

/** Upstream requests per route, as the ledger tells them. */
function perRoute(ledger: Ledger): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of ledger.calls) {
    if (call.attempts === 0) continue;
    const key = shape(`${call.method} ${call.route}`);
    counts[key] = (counts[key] ?? 0) + call.attempts;
  }
  return counts;
}

/** Upstream requests per route, as the simulator counted them. */
async function simPerRoute(stack: Stack): Promise<Record<string, number>> {
  const stats = await stack.sim.stats();
  return Object.fromEntries(
    Object.entries(stats.byRoute).map(([route, count]) => [shape(route), count]),
  );
}

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('the upstream ledger', () => {
  it('matches what the upstream saw, call for call, cold and then warm', async () => {
    stack = await startStack();
    const cold = await stack.gql(DASHBOARD, {}, TRACE);
    expect(cold.body.errors).toBeUndefined();
    const ledger = cold.body.extensions.upstream as Ledger;
    const sim = await simPerRoute(stack);
    expect(perRoute(ledger)).toEqual(sim);
    expect(ledger.totals.upstream).toBe(await stack.upstreamCalls());
    expect(ledger.totals.upstream).toBeGreaterThan(2);
    for (const call of ledger.calls) {
      expect(call).toMatchObject({ source: 'network', status: 200, attempts: 1 });
      expect(call.route).not.toMatch(/app-\d/); // a template, never a filled path
      expect(call.durationMs).toBeGreaterThanOrEqual(0);
      expect(call.paths).toHaveLength(1);
    }
    // Each call names the field that asked: the list by `apps`, each app's reads by its own
    // element — also the calls a loader made in one batch.
    const paths = ledger.calls.map((call) => call.paths[0]!);
    expect(paths).toContain('apps');
    const apps = cold.body.data.apps.length;
    for (const field of ['runtimeStatus', 'deployments']) {
      const asked = paths.filter((path) => path.endsWith(`.${field}`)).sort();
      expect(asked).toEqual(Array.from({ length: apps }, (_, i) => `apps.${i}.${field}`).sort());
    }
    expect(ledger.budget).toMatchObject({ limit: 600, remaining: 600 - ledger.totals.upstream });

    // Warm: the same reads from the upstream cache (another document, so no whole-response
    // replay), the same calls listed as served without the upstream.
    await stack.resetCounts();
    const warm = await stack.gql(`{ __typename ${DASHBOARD.slice(1)}`, {}, TRACE);
    const again = warm.body.extensions.upstream as Ledger;
    expect(await stack.upstreamCalls()).toBe(0);
    expect(again.totals).toEqual({ upstream: 0, withoutUpstream: ledger.calls.length });
    expect(new Set(again.calls.map((call) => call.source))).toEqual(new Set(['cache']));
    expect(again.calls.map((call) => call.attempts)).toEqual(again.calls.map(() => 0));

    // The same document again: the whole response is replayed, and the ledger says so.
    const replayed = await stack.gql(DASHBOARD, {}, TRACE);
    expect(replayed.headers['x-weft-response-cache']).toBe('hit');
    expect(replayed.body.extensions.upstream).toEqual({
      replayed: true,
      calls: [],
      totals: { upstream: 0, withoutUpstream: 0 },
      budget: ledger.budget,
    });
    expect(await stack.upstreamCalls()).toBe(0);
    // Without the header the replay is unchanged.
    const plainReplay = await stack.gql(DASHBOARD, {});
    expect(plainReplay.headers['x-weft-response-cache']).toBe('hit');
    expect(plainReplay.body.extensions).toBeUndefined();
  });

  it('is absent without the header, and the response otherwise the same', async () => {
    stack = await startStack();
    const plain = await stack.gql(DASHBOARD);
    expect(plain.body.extensions?.upstream).toBeUndefined();
    expect(Object.keys(plain.body.extensions ?? {}).sort()).toEqual(['rateLimit']);
    const other = await stack.gql(DASHBOARD, {}, { headers: { 'weft-trace': 'yes' } });
    expect(other.body.extensions?.upstream).toBeUndefined();
  });

  it('lists a call joined to another request in flight as coalesced', async () => {
    stack = await startStack({ sim: { latencyMs: 150 } });
    const [a, b] = await Promise.all([
      stack.gql(DASHBOARD, {}, TRACE),
      stack.gql(DASHBOARD, {}, TRACE),
    ]);
    const ledgers = [a, b].map((r) => r.body.extensions.upstream as Ledger);
    const calls = await stack.upstreamCalls();
    // Between them the two requests made what the upstream saw, not twice that.
    expect(ledgers[0]!.totals.upstream + ledgers[1]!.totals.upstream).toBe(calls);
    const sources = ledgers.flatMap((l) => l.calls.map((call) => call.source));
    expect(sources).toContain('coalesced');
    const coalesced = ledgers.flatMap((l) => l.calls.filter((call) => call.source === 'coalesced'));
    for (const call of coalesced) expect(call.attempts).toBe(0);
  });

  it('lists a call the budget refused locally, with the limiter that refused it', async () => {
    stack = await startStack({
      sim: { rateLimit: 3, rateWindowSec: 120 },
      env: { UPSTREAM_RATE_LIMIT: '3', UPSTREAM_RATE_WINDOW_SEC: '120' },
    });
    // Partial results accepted: the operation runs although its bound exceeds the budget
    // (docs/budget.md), and the calls the budget cannot pay are refused one by one.
    const result = await stack.gql(
      DASHBOARD,
      {},
      {
        headers: { ...TRACE.headers, 'weft-accept-partial': '1' },
      },
    );
    const ledger = result.body.extensions.upstream as Ledger;
    const refused = ledger.calls.filter((call) => call.source === 'refused');
    expect(refused.length).toBeGreaterThan(0);
    for (const call of refused) {
      expect(call.attempts).toBe(0);
      expect(['CREDENTIAL', 'RESERVE']).toContain(call.limiter);
    }
    expect(ledger.totals.upstream).toBe(await stack.upstreamCalls());
    expect(ledger.totals.upstream).toBeLessThanOrEqual(3);
    expect(ledger.budget?.remaining).toBe(3 - ledger.totals.upstream);
  });

  it('holds no token and no id of a path', async () => {
    stack = await startStack();
    const result = await stack.gql(
      `{ app(appId: "app-0001") { appId runtimeStatus { __typename } } }`,
      {},
      TRACE,
    );
    const text = JSON.stringify(result.body.extensions.upstream);
    expect(text).not.toContain('demo-token');
    expect(text).not.toContain('app-0001');
    expect((result.body.extensions.upstream as Ledger).calls.length).toBeGreaterThan(0);
  });

  it('may be asked for from a page of another origin', async () => {
    stack = await startStack();
    const preflight = await stack.http('OPTIONS', '/graphql', {
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization,weft-trace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('weft-trace');
  });
});

/**
 * The header's two names: `Weft-Ledger: 1`, and `Weft-Trace: 1` (its first name) for the clients
 * written against it — the same ledger either way, on every path that answers one.
 */
describe('the header that asks for the ledger', () => {
  const LEDGER = { headers: { 'weft-ledger': '1' } };

  it('is Weft-Ledger, and Weft-Trace still gives the same ledger', async () => {
    stack = await startStack();
    const named = await stack.gql(DASHBOARD, {}, LEDGER);
    expect(named.body.errors).toBeUndefined();
    const ledger = named.body.extensions.upstream as Ledger;
    expect(perRoute(ledger)).toEqual(await simPerRoute(stack));
    expect(ledger.totals.upstream).toBe(await stack.upstreamCalls());
    expect(ledger.totals.upstream).toBeGreaterThan(2);

    // Another document (no replay): the same reads, served from the cache, listed alike.
    const former = await stack.gql(`{ __typename ${DASHBOARD.slice(1)}`, {}, TRACE);
    const again = former.body.extensions.upstream as Ledger;
    expect(again.totals).toEqual({ upstream: 0, withoutUpstream: ledger.calls.length });
    expect(again.calls.map((call) => call.paths)).toEqual(ledger.calls.map((call) => call.paths));

    const plain = await stack.gql(`{ __typename ${DASHBOARD.slice(1)}`, {});
    expect(plain.body.extensions?.upstream).toBeUndefined();
  });

  it('gives a replayed answer its ledger by either name, and the replay varies on both', async () => {
    stack = await startStack();
    const first = await stack.gql(DASHBOARD, {});
    expect(first.body.errors).toBeUndefined();
    for (const headers of [LEDGER, TRACE]) {
      const replayed = await stack.gql(DASHBOARD, {}, headers);
      expect(replayed.headers['x-weft-response-cache']).toBe('hit');
      expect(replayed.body.extensions.upstream).toMatchObject({ replayed: true, calls: [] });
      expect(String(replayed.headers['vary'])).toMatch(/weft-ledger/);
      expect(String(replayed.headers['vary'])).toMatch(/weft-trace/);
    }
  });

  it('may be sent by a page of another origin under either name', async () => {
    stack = await startStack();
    const preflight = await stack.http('OPTIONS', '/graphql', {
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization,weft-ledger,weft-trace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('weft-ledger');
    expect(preflight.headers['access-control-allow-headers']).toContain('weft-trace');
  });

  it('gives subscription events their ledger over SSE and graphql-ws', async () => {
    stack = await startStack({
      env: { SUBSCRIPTION_POLL_MIN_MS: '50', SUBSCRIPTION_POLL_MAX_MS: '200' },
    });
    const CREATE = `mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } } }`;
    const SUB_JOB = `subscription($jobId: ID!) { appJob(jobId: $jobId) { jobId status } }`;
    const newJob = async (name: string) =>
      (await stack!.gql(CREATE, { name })).body.data.createApp.job.jobId as string;
    const sse = await collectSse(
      stack.url,
      SUB_JOB,
      { jobId: await newJob('ledger-header-sse') },
      'demo-token',
      undefined,
      { 'weft-ledger': '1' },
    );
    expect(sse.results.length).toBeGreaterThan(0);
    for (const event of sse.results) expect(event.extensions?.upstream).toBeDefined();

    const client = wsClient(stack.url, { authorization: 'Bearer demo-token', 'Weft-Ledger': '1' });
    try {
      const ws = await collectWs(client, SUB_JOB, { jobId: await newJob('ledger-header-ws') });
      expect(ws.results.length).toBeGreaterThan(0);
      for (const event of ws.results) expect(event.extensions?.upstream).toBeDefined();
    } finally {
      await client.dispose();
    }
  });
});

/** A call's fields beside its paths: method, a route template, status, source, counts. */
const ENTRY_BYTES_WITHOUT_PATHS = 256;

describe('the size of a traced answer', () => {
  // Every alias is repeated in the path of each field under it, and a call asked for by
  // 26 fields named them all — 1.3 MB of answer, 6 MB of ledger. The finding's document (30
  // aliases, 32 KB: within the default limits), then the same limits spent on the ancestors' aliases.
  const documents = {
    finding: longAliasCertificates({ fields: 26, aliasChars: 1050 }),
    'long ancestors': longAliasCertificates({ fields: 26, aliasChars: 12, ancestorChars: 7_800 }),
  };

  it('is bounded per call and per response whatever the aliases', async () => {
    stack = await startStack();
    for (const [name, document] of Object.entries(documents)) {
      expect(Buffer.byteLength(document)).toBeLessThanOrEqual(32 * 1024);
      const traced = await stack.gql(document, {}, TRACE);
      expect(traced.body.errors).toBeUndefined();
      // The same answer without its ledger (from the upstream cache).
      const plain = await stack.gql(document);
      expect(plain.body.data).toEqual(traced.body.data);
      const added = Buffer.byteLength(traced.text) - Buffer.byteLength(plain.text);
      const ledger = traced.body.extensions.upstream as Ledger;
      console.log(
        `${name}: answer ${Buffer.byteLength(plain.text)} bytes, traced ${Buffer.byteLength(traced.text)} (+${added}), ${ledger.calls.length} calls`,
      );
      expect(ledger.calls).toHaveLength(45);
      let pathBytes = 0;
      for (const call of ledger.calls) {
        expect(call.paths.length).toBeLessThanOrEqual(MAX_PATHS_PER_CALL);
        for (const path of call.paths) expect(path.length).toBeLessThanOrEqual(MAX_PATH_CHARS);
        const bytes = call.paths.reduce((sum, path) => sum + Buffer.byteLength(path), 0);
        pathBytes += bytes;
        // Each entry: its own fields, then at most 8 paths (with their quotes and commas).
        expect(Buffer.byteLength(JSON.stringify(call))).toBeLessThanOrEqual(
          ENTRY_BYTES_WITHOUT_PATHS + bytes + 3 * call.paths.length,
        );
        // Every field that asked is counted once: named, or in `morePaths`.
        const asked = call.route.endsWith('{certificateId}') ? 26 : 1;
        expect(call.paths.length + (call.morePaths ?? 0)).toBe(asked);
      }
      expect(pathBytes).toBeLessThanOrEqual(MAX_LEDGER_PATH_BYTES);
      // Per response: the entries, the path text of the whole report, the totals and budget.
      expect(added).toBeLessThanOrEqual(
        ledger.calls.length * (ENTRY_BYTES_WITHOUT_PATHS + 3 * MAX_PATHS_PER_CALL) +
          MAX_LEDGER_PATH_BYTES +
          512,
      );
    }
  });
});

describe('the ledger of subscription events', () => {
  const JOB_ROUTE = 'GET /v1/hosting/nodejs/apps/jobs/{jobId}';
  const CREATE = `mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } } }`;
  const SUB_JOB = `subscription($jobId: ID!) { appJob(jobId: $jobId) { jobId status } }`;
  const newJob = async (name: string) =>
    (await stack!.gql(CREATE, { name })).body.data.createApp.job.jobId as string;
  /** The polls the events say they took, by route. */
  const polls = (events: { extensions?: { upstream?: Ledger } }[]) => {
    let total = 0;
    for (const event of events) {
      const ledger = event.extensions!.upstream!;
      for (const call of ledger.calls) expect(`${call.method} ${call.route}`).toBe(JOB_ROUTE);
      total += ledger.totals.upstream;
    }
    return total;
  };

  it('gives each event over SSE and graphql-ws the polls it took', async () => {
    stack = await startStack({
      env: { SUBSCRIPTION_POLL_MIN_MS: '50', SUBSCRIPTION_POLL_MAX_MS: '200' },
    });
    const viaSse = await newJob('ledger-sse');
    await stack.resetCounts();
    const sse = await collectSse(stack.url, SUB_JOB, { jobId: viaSse }, 'demo-token', undefined, {
      'weft-trace': '1',
    });
    expect(sse.results.map((r) => r.data.appJob.status)).toEqual(['PENDING', 'ACTIVE']);
    expect(polls(sse.results)).toBe(await stack.upstreamCalls(JOB_ROUTE));
    expect(await stack.upstreamCalls(JOB_ROUTE)).toBeGreaterThan(1);
    // Each event names the subscriber's budget, as a query's ledger does; after the last event
    // (terminal: no poll follows) it is what viewer.rateLimit shows.
    for (const event of sse.results) {
      expect(event.extensions!.upstream!.budget).toMatchObject({ limit: 600, writeReserve: 60 });
    }
    const { budget: last } = sse.results.at(-1)!.extensions!.upstream!;
    const viewer = await stack.gql('{ viewer { rateLimit { limit remaining writeReserve } } }');
    expect(viewer.body.data.viewer.rateLimit).toEqual({
      limit: last!.limit,
      remaining: last!.remaining,
      writeReserve: last!.writeReserve,
    });

    const client = wsClient(stack.url, { authorization: 'Bearer demo-token', 'Weft-Trace': '1' });
    try {
      const viaWs = await newJob('ledger-ws');
      await stack.resetCounts();
      const ws = await collectWs(client, SUB_JOB, { jobId: viaWs });
      expect(ws.results.map((r) => r.data.appJob.status)).toEqual(['PENDING', 'ACTIVE']);
      expect(polls(ws.results)).toBe(await stack.upstreamCalls(JOB_ROUTE));
      for (const event of ws.results) {
        expect(event.extensions!.upstream!.budget).toMatchObject({ limit: 600, writeReserve: 60 });
      }
    } finally {
      await client.dispose();
    }
  });

  it('leaves events unchanged for a subscriber that did not ask', async () => {
    stack = await startStack({
      env: { SUBSCRIPTION_POLL_MIN_MS: '50', SUBSCRIPTION_POLL_MAX_MS: '200' },
    });
    const jobId = await newJob('ledger-plain');
    const sse = await collectSse(stack.url, SUB_JOB, { jobId });
    expect(sse.results.length).toBeGreaterThan(0);
    for (const result of sse.results) expect(result.extensions).toBeUndefined();
  });
});

describe('upstream calls per operation in metrics', () => {
  /** A counter's value for one operation in the Prometheus text. */
  const counter = (text: string, name: string, operation: string) =>
    Number(new RegExp(`^${name}\\{operation="${operation}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

  it('counts, per named operation, the calls that reached the upstream and those that did not', async () => {
    stack = await startStack({ env: { METRICS: 'true' } });
    // No Weft-Trace header: metrics count without the response listing anything.
    const cold = await stack.gql(`query Dashboard ${DASHBOARD}`, {});
    expect(cold.body.extensions?.upstream).toBeUndefined();
    const calls = await stack.upstreamCalls();
    await stack.gql(`query DashboardAgain ${DASHBOARD}`, {});
    const text = (await stack.http('GET', '/metrics')).text;
    expect(counter(text, 'weft_operation_upstream_calls_total', 'Dashboard')).toBe(calls);
    expect(counter(text, 'weft_operation_served_without_upstream_total', 'Dashboard')).toBe(0);
    expect(counter(text, 'weft_operation_upstream_calls_total', 'DashboardAgain')).toBe(0);
    expect(counter(text, 'weft_operation_served_without_upstream_total', 'DashboardAgain')).toBe(
      calls,
    );
  });
});
