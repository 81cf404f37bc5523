/**
 * An unpaged list (`apps`: `GET /apps` has no paging and no documented maximum) counts its assumed
 * maximum before the run; once it arrives, its length gives the bound of what is still to run
 * (docs/budget.md § Unpaged lists). Held over the range of account sizes, below and above the assumed
 * maximum, and over the range of what is left of the window around the dashboard's real cost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { APPS_LIST_MAX } from '../../../../src/hosting/hosting.call-bounds.ts';
import { boundOf, startColdStack } from '../../../support/call-bound.ts';
import { startStack, type Stack } from '../../../support/gateway-harness.ts';
import { setAppCount } from '../../../support/hosting-account.ts';

/** The bench's apps dashboard: one list read, then a status and a deployments read per app. */
const DASHBOARD = `{ apps { appId name status urls { publish }
  runtimeStatus { __typename } deployments(limit: 3) { __typename } } }`;
const dashboardCalls = (apps: number) => 1 + 2 * apps;
const TRACE = { headers: { 'weft-trace': '1' } };

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('the bound of an unpaged list, once it arrived', () => {
  it('is the calls the dashboard makes, for accounts below, at and above the assumed maximum', async () => {
    stack = await startColdStack();
    const before = (await boundOf(DASHBOARD)).calls;
    expect(before).toBe(dashboardCalls(APPS_LIST_MAX));
    const rows: string[] = [];
    for (const apps of [0, 1, 3, 8, APPS_LIST_MAX, APPS_LIST_MAX + 5]) {
      await setAppCount(stack, apps);
      await stack.resetCounts();
      const result = await stack.gql(DASHBOARD, {}, TRACE);
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data.apps).toHaveLength(apps);
      const actual = await stack.upstreamCalls();
      expect(actual).toBe(dashboardCalls(apps));
      const { estimate, totals } = result.body.extensions.upstream;
      expect(totals.upstream).toBe(actual);
      // Exact once the list's length is known — above the assumed maximum too, where the bound
      // before the run was below what the run made.
      expect(estimate).toEqual({ calls: before, refinedCalls: dashboardCalls(apps) });
      rows.push(
        `  ${String(apps).padStart(2)} apps: bound ${before}, refined ${estimate.refinedCalls}, actual ${actual}`,
      );
    }
    console.log(`apps dashboard, cold:\n${rows.join('\n')}`);
  }, 60_000);

  it('is not reported for an operation without one', async () => {
    stack = await startColdStack();
    const result = await stack.gql(`{ app(appId: "app-0001") { name } }`, {}, TRACE);
    expect(result.body.extensions.upstream.estimate).toEqual({ calls: 1 });
  });
});

describe('an operation over an unpaged list, against what is left of the window', () => {
  /**
   * A 40-call window (4 kept for writes: 36 for queries) spent down to `left` with one-call reads,
   * on the seeded account of 3 apps: the dashboard's bound before the run is 41, its real cost 7.
   */
  async function windowWithLeft(left: number): Promise<Stack> {
    const started = await startStack({
      sim: { rateLimit: 40, rateWindowSec: 300 },
      env: {
        UPSTREAM_RATE_LIMIT: '40',
        UPSTREAM_RATE_WINDOW_SEC: '300',
        UPSTREAM_CACHE: 'off',
        RESPONSE_CACHE: 'false',
      },
    });
    for (let spent = 0; spent < 36 - left; spent += 1) {
      const read = await started.gql(`{ app(appId: "app-0001") { name } }`);
      expect(read.body.errors).toBeUndefined();
    }
    const viewer = await started.gql('{ viewer { rateLimit { remaining writeReserve } } }');
    expect(viewer.body.data.viewer.rateLimit).toEqual({ remaining: left + 4, writeReserve: 4 });
    await started.resetCounts();
    return started;
  }

  for (const left of [36, 8, 7]) {
    it(`runs the dashboard whole with ${left} left (it costs 7; its bound before the run is 41)`, async () => {
      stack = await windowWithLeft(left);
      const result = await stack.gql(DASHBOARD, {}, TRACE);
      expect(result.status).toBe(200);
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data.apps).toHaveLength(3);
      expect(await stack.upstreamCalls()).toBe(dashboardCalls(3));
      expect(result.body.extensions.upstream.estimate.refinedCalls).toBe(dashboardCalls(3));
    });
  }

  for (const left of [6, 2, 1]) {
    it(`with ${left} left, reads the list, then refuses before any per-app call`, async () => {
      stack = await windowWithLeft(left);
      const result = await stack.gql(DASHBOARD, {}, TRACE);
      expect(result.body.data).toBeNull();
      expect(result.body.errors).toHaveLength(1);
      expect(result.body.errors[0].path).toEqual(['apps']);
      expect(result.body.errors[0].extensions).toMatchObject({
        code: 'RATE_LIMITED',
        limiter: 'OPERATION_BOUND',
        bound: dashboardCalls(3),
        remaining: left,
      });
      expect(result.body.errors[0].extensions.retryAfterSec).toBeGreaterThan(0);
      // The list, and nothing below it: no per-app read started half way.
      expect(await stack.upstreamCalls()).toBe(1);
      expect(await stack.upstreamCalls('GET /v1/hosting/nodejs/apps')).toBe(1);
    });
  }

  it('with nothing left for queries, spends nothing', async () => {
    stack = await windowWithLeft(0);
    const result = await stack.gql(DASHBOARD, {}, TRACE);
    expect(result.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses before any call when what runs beside the list cannot be paid either', async () => {
    stack = await windowWithLeft(3);
    // Beside the list: three one-call reads of an app record (4 calls before the list's length
    // matters, more than the 3 left).
    const query = `{ a: app(appId: "app-0001") { name } b: app(appId: "app-0002") { name }
      c: app(appId: "app-0003") { name } apps { runtimeStatus { __typename } } }`;
    const result = await stack.gql(query, {}, TRACE);
    expect(result.status).toBe(429);
    expect(result.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'OPERATION_BOUND',
      bound: (await boundOf(query)).calls,
      remaining: 3,
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });
});
