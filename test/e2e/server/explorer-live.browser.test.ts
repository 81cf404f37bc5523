/**
 * The explorer's answers that come in pieces, in Chromium (docs/try-it.md "The explorer"):
 *
 * - the Hosting example's job subscription (the AppJob tab), run with the token typed in the
 *   Headers tab, goes over GraphQL over SSE with that header and the explorer's own, and shows
 *   PENDING, then ACTIVE; the footer lists each event as it arrives, and the ledger panel shows the
 *   latest event's ledger;
 * - the deferred Dashboard example shows its first part — the apps without their deployments —
 *   while the deferred part is still on its way, the footer saying a part arrived and more is to
 *   come; then the whole result, the deferred part listed with its label and paths, and the ledger
 *   of the last part in the panel;
 * - a query typed in the editor that streams the app list shows the first app, then each further
 *   app as its own upstream call (its runtime status) answers, the footer listing each item.
 *
 * No sleep decides anything: the simulator holds the one upstream call that makes the next piece
 * (the job's second poll, the deployments reads, the next app's status read) until the test has seen
 * the piece before it, and
 * the test waits for text to appear. The simulator's clock stands still, so the job moves one step
 * per poll (pending on the first, active on the second), never by time.
 *
 * The machine's Chromium, else the one `npm ci` installs (test/support/browser-choice.ts).
 */
import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.ts';
import { deferred, type Deferred } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { editorIncludes, editorText } from '../../support/explorer-editors.ts';

const QUERY = 'operation.graphql';
const RESPONSE = 'response.json';
const TOOL_EDITOR = 'section.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor';
const QUERY_EDITOR = '.graphiql-query-editor .monaco-editor';
const TAB = '.graphiql-tab-button';
/** The tabs of the two examples (src/server/explorer/explorer-examples.ts). */
const HOSTING_TAB = 1;
const DASHBOARD_TAB = 3;
const APP_JOB_TAB = 4;

async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.click(selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(text);
}

/** Waits until the editor `name` shows `text`; if it never does, says what it showed. */
async function shows(page: Page, name: string, text: string): Promise<void> {
  try {
    await page.waitForFunction(editorIncludes, { name, text }, { timeout: 20_000 });
  } catch (error) {
    const shown = (await page.evaluate(editorText, name)).replace(/\s+/g, ' ').slice(0, 400);
    throw new Error(`${name} never showed ${text}; it shows: ${shown}`, { cause: error });
  }
}

const response = async (page: Page): Promise<any> =>
  JSON.parse(await page.evaluate(editorText, RESPONSE));

/** What the footer's "As it arrived" line shows. */
const arrivedLine = (page: Page) =>
  page.evaluate(() => {
    const element = (globalThis as any).document.querySelector('.graphiql-footer .weft-parts');
    if (!element) return null;
    return {
      delivery: element.getAttribute('data-delivery'),
      more: element.getAttribute('data-more'),
      count: element.querySelector('[data-name="parts-count"]')?.textContent ?? null,
      parts: [...element.querySelectorAll('.weft-parts-list li[data-kind]')].map((item) => ({
        kind: item.getAttribute('data-kind'),
        what: item.querySelector('[data-col="what"]')?.textContent ?? null,
      })),
      state: element.querySelector('[data-name="parts-state"]')?.textContent ?? null,
    };
  });

/** Opens the explorer on `url` with the demo token in the Headers tab, on tab `tab`. */
async function openWithToken(page: Page, url: string, tab: number, marker: string): Promise<void> {
  await page.goto(`${url}/graphql`);
  await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
  // GraphiQL may still be restoring its tabs when their buttons appear, and a click then is lost:
  // click until the tab's operation is the one shown.
  await expect
    .poll(
      async () => {
        await page.locator(TAB).nth(tab).click();
        return page.evaluate(editorIncludes, { name: QUERY, text: marker });
      },
      { timeout: 20_000, interval: 250 },
    )
    .toBe(true);
  await shows(page, QUERY, marker);
  await page.click('button[data-name="headers"]');
  await typeInto(page, TOOL_EDITOR, '{"Authorization": "Bearer demo-token"}');
}

/** Opens the ledger panel (GraphiQL remembers an open plugin across pages of the profile). */
async function openLedger(page: Page): Promise<void> {
  const show = page.locator('button[aria-label="Show Upstream ledger"]');
  const hide = page.locator('button[aria-label="Hide Upstream ledger"]');
  await expect.poll(async () => (await show.count()) + (await hide.count())).toBe(1);
  if ((await show.count()) === 1) await show.click();
  await page.locator('.graphiql-plugin .weft-ledger').waitFor();
}

/** What the ledger panel shows of the last run. */
async function ledgerPanel(page: Page) {
  const panel = page.locator('.graphiql-plugin .weft-ledger');
  return panel.evaluate((element) => ({
    state: element.getAttribute('data-state'),
    operation: element.querySelector('[data-name="operation"]')?.textContent ?? null,
    upstream: element.querySelector('[data-name="upstream"]')?.textContent ?? null,
    remaining: element.querySelector('[data-name="remaining"]')?.textContent ?? null,
    text: element.textContent ?? '',
  }));
}

const JOB_POLL = /^\/v1\/hosting\/nodejs\/apps\/jobs\/(job-\d+)$/;
const isDeployments = (url: string) => url.split('?')[0]!.endsWith('/deployments');
const STATUS_READ = /\/apps\/([^/]+)\/status$/;

describe.skipIf(chromiumMissing)('explorer in Chromium: subscriptions, @defer and @stream', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  /** The job the current test follows, and its polls that reached the simulator. */
  let watched: string | undefined;
  let polls = 0;
  /** The job's second poll waits for this (the test has seen PENDING). */
  let secondPoll: Deferred<void>;
  /** Deployments reads wait for this (the test has seen the first part). */
  let deferredReads: Deferred<void>;
  let deploymentsArrived: Deferred<void>;
  /** Apps whose status read waits, each until the test lets it go. */
  const heldStatus = new Map<string, Deferred<void>>();

  beforeAll(async () => {
    const frozen = Date.now();
    stack = await startStack({
      // The shortest polls the configuration allows: the job's second poll follows quickly. No
      // upstream cache: every run's reads reach the simulator, where the test holds them.
      env: {
        SUBSCRIPTION_POLL_MIN_MS: '50',
        SUBSCRIPTION_POLL_MAX_MS: '200',
        UPSTREAM_CACHE: 'off',
      },
      sim: {
        now: () => frozen,
        onArrival: async ({ method, url }) => {
          const path = url.split('?')[0]!;
          const job = JOB_POLL.exec(path)?.[1];
          if (method === 'GET' && job !== undefined && job === watched) {
            polls += 1;
            if (polls === 2) await secondPoll.promise;
          }
          if (method === 'GET' && isDeployments(url)) {
            deploymentsArrived.resolve();
            await deferredReads.promise;
          }
          const app = STATUS_READ.exec(path)?.[1];
          if (method === 'GET' && app !== undefined) await heldStatus.get(app)?.promise;
        },
      },
    });
    browser = await launchChromium();
    context = browser.context;
  }, 60_000);
  afterAll(async () => {
    secondPoll?.resolve();
    deferredReads?.resolve();
    for (const held of heldStatus.values()) held.resolve();
    await browser?.close();
    await stack?.close();
  });
  beforeEach(() => {
    watched = undefined;
    polls = 0;
    secondPoll = deferred<void>();
    deferredReads = deferred<void>();
    deploymentsArrived = deferred<void>();
    heldStatus.clear();
  });

  it("follows the Hosting example's job subscription: PENDING, then ACTIVE, each event as it arrives", async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    const subscriptions: Request[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && String(request.postData()).includes('appJob(')) {
        subscriptions.push(request);
      }
    });

    const created = await stack.gql(
      'mutation($name: String!) { createApp(input: { name: $name }) { job { jobId status } } }',
      { name: 'explorer-live' },
    );
    expect(created.body.data.createApp.job.status).toBe('PENDING');
    const jobId: string = created.body.data.createApp.job.jobId;
    watched = jobId;

    await openWithToken(page, stack.url, APP_JOB_TAB, 'subscription AppJob');
    await page.click('button[data-name="variables"]');
    await typeInto(page, TOOL_EDITOR, JSON.stringify({ jobId }));
    await openLedger(page);
    await page.click('button.graphiql-execute-button');

    // The first event, while the job's second poll is held at the simulator.
    await shows(page, RESPONSE, '"PENDING"');
    const first = await response(page);
    expect(first.errors).toBeUndefined();
    expect(first.data.appJob).toEqual({ jobId, status: 'PENDING', app: null });
    await expect
      .poll(() => arrivedLine(page))
      .toEqual({
        delivery: 'events',
        more: 'true',
        count: '1 event',
        parts: [{ kind: 'event', what: 'event 1' }],
        state: 'listening…',
      });
    // One POST, an event stream, with the Headers tab's token and the explorer's own headers.
    expect(subscriptions).toHaveLength(1);
    const headers = await subscriptions[0]!.allHeaders();
    expect(headers.accept).toContain('text/event-stream');
    expect(headers.authorization).toBe('Bearer demo-token');
    expect(headers['weft-ledger']).toBe('1');
    expect(headers['weft-priority']).toBe('explorer');

    // The second poll goes on: ACTIVE, and the stream ends.
    secondPoll.resolve();
    await shows(page, RESPONSE, '"ACTIVE"');
    const last = await response(page);
    expect(last.data.appJob.status).toBe('ACTIVE');
    expect(last.data.appJob.app.appId).toMatch(/^app-/);
    await expect
      .poll(() => arrivedLine(page))
      .toEqual({
        delivery: 'events',
        more: 'false',
        count: '2 events',
        parts: [
          { kind: 'event', what: 'event 1' },
          { kind: 'event', what: 'event 2' },
        ],
        state: 'the stream ended',
      });
    expect(polls).toBe(2);

    // The ledger panel: the latest event's ledger, and the events counted.
    const ledger = last.extensions.upstream;
    expect(ledger.totals.upstream).toBeGreaterThan(0);
    await expect.poll(async () => (await ledgerPanel(page)).operation).toBe('AppJob');
    const panel = await ledgerPanel(page);
    expect(panel.upstream).toBe(String(ledger.totals.upstream));
    expect(panel.text).toContain('2 events');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('shows the deferred Dashboard example part by part: the first part while the deferred one is on its way', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await openWithToken(page, stack.url, DASHBOARD_TAB, 'query Dashboard');
    await openLedger(page);
    await stack.resetCounts();
    await page.click('button.graphiql-execute-button');

    // The first part: the apps, without the deferred deployments (held at the simulator).
    await deploymentsArrived.promise;
    await shows(page, RESPONSE, '"appId"');
    const first = await response(page);
    expect(first.data.apps.length).toBeGreaterThan(0);
    for (const app of first.data.apps) expect(app.deployments).toBeUndefined();
    await expect
      .poll(() => arrivedLine(page))
      .toEqual({
        delivery: 'parts',
        more: 'true',
        count: '1 part',
        parts: [{ kind: 'first', what: 'first part' }],
        state: 'more to come…',
      });

    // The deployments answer: the whole result, the deferred part listed with its label and paths.
    deferredReads.resolve();
    await shows(page, RESPONSE, '"totalCount"');
    await expect.poll(async () => (await arrivedLine(page))?.more).toBe('false');
    const whole = await response(page);
    expect(whole.errors).toBeUndefined();
    const apps = whole.data.apps as { deployments: { totalCount: number } }[];
    for (const app of apps) expect(app.deployments.totalCount).toBeGreaterThanOrEqual(0);
    const line = (await arrivedLine(page))!;
    expect(line.delivery).toBe('parts');
    expect(line.state).toBe('complete');
    expect(line.parts[0]).toEqual({ kind: 'first', what: 'first part' });
    const later = line.parts.slice(1);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((part) => part.kind === 'later')).toBe(true);
    // Every app's deferred fragment arrived, each named by its label and path.
    const named = later.map((part) => part.what).join('; ');
    for (const index of apps.keys()) expect(named).toContain(`apps.${index}`);
    expect(named).toContain('"deployments" at');
    expect(line.count).toBe(`${line.parts.length} parts`);

    // The ledger rides on the last part: the panel shows it, and it counts every call.
    const ledger = whole.extensions.upstream;
    await expect.poll(async () => (await ledgerPanel(page)).operation).toBe('Dashboard');
    expect((await ledgerPanel(page)).upstream).toBe(String(ledger.totals.upstream));
    expect(ledger.totals.upstream).toBe(await stack.upstreamCalls());
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
  it('shows a streamed list item by item: each app as its own upstream call answers', async () => {
    const list = await stack.gql('{ apps { appId } }');
    const appIds = (list.body.data.apps as { appId: string }[]).map((app) => app.appId);
    expect(appIds.length).toBeGreaterThanOrEqual(3);
    for (const appId of appIds.slice(1)) heldStatus.set(appId, deferred<void>());
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await openWithToken(page, stack.url, HOSTING_TAB, 'query Hosting');
    await typeInto(
      page,
      QUERY_EDITOR,
      'query Streamed { apps @stream(initialCount: 1, label: "apps") { appId runtimeStatus { appStatus } } }',
    );
    await shows(page, QUERY, 'query Streamed');
    await page.click('button.graphiql-execute-button');

    // The first app, while the next one's status read is held at the simulator.
    await shows(page, RESPONSE, `"${appIds[0]}"`);
    expect((await response(page)).data.apps.map((app: { appId: string }) => app.appId)).toEqual([
      appIds[0],
    ]);
    await expect
      .poll(() => arrivedLine(page))
      .toEqual({
        delivery: 'parts',
        more: 'true',
        count: '1 part',
        parts: [{ kind: 'first', what: 'first part' }],
        state: 'more to come…',
      });

    // Each further app once its own read is let go: one more item in the response, one more part.
    for (const [index, appId] of appIds.entries()) {
      if (index === 0) continue;
      heldStatus.get(appId)!.resolve();
      await shows(page, RESPONSE, `"${appId}"`);
      const shown = await response(page);
      expect(shown.data.apps.map((app: { appId: string }) => app.appId)).toEqual(
        appIds.slice(0, index + 1),
      );
      await expect.poll(async () => (await arrivedLine(page))?.parts.length).toBe(index + 1);
      const line = (await arrivedLine(page))!;
      expect(line.parts[index]).toEqual({ kind: 'later', what: '"apps": 1 item at apps' });
    }
    await expect.poll(async () => (await arrivedLine(page))?.state).toBe('complete');
    const whole = await response(page);
    expect(whole.errors).toBeUndefined();
    for (const app of whole.data.apps)
      expect(app.runtimeStatus.appStatus).toEqual(expect.any(String));
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
