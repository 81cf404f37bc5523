/**
 * The explorer in a real browser: Chromium, headless, with a fresh
 * profile. It loads the page (GraphiQL 5 from the gateway's own bundle), puts
 * `Authorization: Bearer demo-token` into GraphiQL's header editor, runs the saved certificates
 * example and sees data, then runs the hosting example of another tab without entering the token
 * again — with every request the page made going to the gateway itself (no CDN), Monaco's workers
 * running, and no Content-Security-Policy violation. On the embedded simulator (as `npm start` runs
 * it) the page names the demo token, and a token typed once shows in, and goes with, every tab —
 * new, never opened, opened before — before any operation has run. After a run of each example the
 * ledger panel lists the calls, totals and budget of the response's `extensions.upstream`, and its
 * total of calls that reached the upstream is what the simulator counted. Before a run, the footer
 * shows the open document's estimate (`Weft-Estimate: 1`, asked with the shared token, never
 * without one) — the number the gateway answers for it — and after a run the panel shows that
 * bound beside the calls made, which are the simulator's count.
 *
 * The machine's Chromium, else the one `npm ci` installs (test/support/browser-choice.ts).
 */
import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.ts';
import { startEmbeddedGateway, type EmbeddedGateway } from '../../support/embedded-gateway.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { editorIncludes, editorText } from '../../support/explorer-editors.ts';

const QUERY = 'operation.graphql';
const HEADERS = 'request-headers.json';
const RESPONSE = 'response.json';
const QUERY_EDITOR = '.graphiql-query-editor .monaco-editor';
const HEADER_EDITOR = 'section.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor';
const TAB = '.graphiql-tab-button';
/**
 * The deadline of a condition the page shows (expect.poll's default of 1 s did not allow a loaded
 * two-core machine), as `shows` allows an editor.
 */
const LOADED = { timeout: 10_000 };

/** Replaces the text of the editor at `selector` the way a user does: select all, type. */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.click(selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(text);
}

/** Waits until the editor `name` shows `text`. */
async function shows(page: Page, name: string, text: string, timeout = 10_000): Promise<void> {
  await page.waitForFunction(editorIncludes, { name, text }, { timeout });
}

/** The `Authorization` the open tab's header editor shows. */
async function shownAuthorization(page: Page): Promise<unknown> {
  return JSON.parse(await page.evaluate(editorText, HEADERS)).Authorization;
}

/** GraphQL requests the page sent to the endpoint (runs, estimates, GraphiQL's introspection). */
const isGraphQL = (request: Request): boolean =>
  request.method() === 'POST' && new URL(request.url()).pathname === '/graphql';

/** An estimate before a run (`Weft-Estimate: 1`): checked by the gateway, never run. */
const isEstimate = (request: Request): boolean =>
  isGraphQL(request) && request.headers()['weft-estimate'] === '1';

/**
 * GraphQL requests the page sent to run an operation (not GraphiQL's schema introspection, not an
 * estimate).
 */
const isOperation = (request: Request): boolean =>
  isGraphQL(request) &&
  !isEstimate(request) &&
  !String(request.postDataJSON()?.query).includes('__schema');

/**
 * Runs the open tab; returns what the request carried, the response the editor shows and the one
 * that came over the network.
 */
async function run(
  page: Page,
  expected: string,
): Promise<{ headers: Record<string, string>; authorization?: string; body: any; sent: any }> {
  const [response] = await Promise.all([
    page.waitForResponse((res: Response) => isOperation(res.request()), { timeout: 20_000 }),
    page.click('button.graphiql-execute-button'),
  ]);
  await shows(page, RESPONSE, expected, 20_000);
  const headers = await response.request().allHeaders();
  return {
    headers,
    authorization: headers.authorization,
    body: JSON.parse(await page.evaluate(editorText, RESPONSE)),
    sent: await response.json(),
  };
}

describe.skipIf(chromiumMissing)('explorer in Chromium', () => {
  let stack: Stack;
  let embedded: EmbeddedGateway;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    stack = await startStack();
    embedded = await startEmbeddedGateway();
    browser = await launchChromium();
    context = browser.context;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await embedded?.close();
    await stack?.close();
  });

  it('loads GraphiQL offline, takes the token in the header editor, and shows data', async () => {
    const page = await context.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    const workers: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('worker', (worker) => workers.push(new URL(worker.url()).pathname));

    await page.goto(`${stack.url}/graphql`);
    await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
    // The saved certificates example is the open tab.
    await shows(page, QUERY, 'certificateCustomer');

    // The header editor: replace the placeholder with the demo token.
    await page.click('button[data-name="headers"]');
    await typeInto(page, HEADER_EDITOR, '{"Authorization": "Bearer demo-token"}');
    expect(await page.evaluate(editorText, HEADERS)).toBe('{"Authorization": "Bearer demo-token"}');

    await stack.resetCounts();
    const first = await run(page, '"certificateId"');
    expect(first.headers['weft-priority']).toBe('explorer');
    expect(first.headers['weft-ledger']).toBe('1');
    const response = first.body;
    expect(response.errors).toBeUndefined();
    expect(response.data.certificateCustomer.certificates.edges.length).toBeGreaterThan(0);
    expect(response.data.viewer.rateLimit.limit).toBe(600);
    expect(await stack.upstreamCalls()).toBeGreaterThan(0);

    // Another example tab: its header editor shows the token entered once, and sends it.
    await page.locator(TAB).nth(1).click();
    await shows(page, QUERY, 'apps');
    expect(await shownAuthorization(page)).toBe('Bearer demo-token');
    const second = (await run(page, '"appId"')).body;
    expect(second.errors).toBeUndefined();
    expect(second.data.apps.length).toBeGreaterThan(0);
    // Never in localStorage (GraphiQL's tabs and history keep headers; the explorer's storage
    // replaces any bearer token with the placeholder).
    const stored = await page.evaluate(() => JSON.stringify((globalThis as any).localStorage));
    expect(stored).not.toContain('demo-token');

    // Monaco's language services run in their workers, from the bundle.
    await expect
      .poll(() => workers.map((path) => path.replace(/-\w+\.js$/, '')).sort())
      .toEqual(expect.arrayContaining(['/explorer/graphql.worker', '/explorer/json.worker']));
    const foreign = requested.filter(
      (url) => !url.startsWith(`${stack.url}/`) && !url.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
    expect(problems.filter((text) => /Content Security Policy|Refused to/i.test(text))).toEqual([]);
    expect(problems).toEqual([]);
    // A real upstream URL: no demo token is named.
    expect(await page.locator('.weft-explorer-hint').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('names the demo token on the embedded simulator, above a GraphiQL that fits the window', async () => {
    const page = await context.newPage();
    await page.goto(`${embedded.url}/graphql`);
    await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
    const hint = page.locator('.weft-explorer-hint');
    await expect.poll(() => hint.isVisible(), LOADED).toBe(true);
    expect(await hint.textContent()).toContain('{"Authorization": "Bearer demo-token"}');
    const window = page.viewportSize()!;
    const graphiql = (await page.locator('.graphiql-container').boundingBox())!;
    expect(graphiql.y).toBeGreaterThanOrEqual((await hint.boundingBox())!.height);
    expect(graphiql.y + graphiql.height).toBeLessThanOrEqual(window.height + 1);
    await page.close();
  }, 60_000);

  it('uses a token typed once in every tab, and shows it there, before any operation ran', async () => {
    const page = await context.newPage();
    const operations: Request[] = [];
    page.on('request', (request) => {
      if (isOperation(request)) operations.push(request);
    });
    await page.goto(`${embedded.url}/graphql`);
    await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
    await shows(page, QUERY, 'certificateCustomer');
    await page.click('button[data-name="headers"]');
    const placeholder = await shownAuthorization(page);
    expect(placeholder).toBe('Bearer <your token>');

    // The commerce tab, opened before the token exists: GraphiQL keeps the placeholder as its headers.
    await page.locator(TAB).nth(2).click();
    await shows(page, QUERY, 'store(storeId');
    expect(await shownAuthorization(page)).toBe(placeholder);
    await page.locator(TAB).nth(0).click();
    await shows(page, QUERY, 'certificateCustomer');

    // The token, typed in the first tab's header editor; nothing run.
    await typeInto(page, HEADER_EDITOR, '{"Authorization": "Bearer demo-token"}');
    expect(operations).toEqual([]);

    // A new tab shows the token and sends it.
    await page.click('.graphiql-tab-add');
    await expect.poll(() => page.locator(TAB).count(), LOADED).toBe(6);
    await expect.poll(() => shownAuthorization(page), LOADED).toBe('Bearer demo-token');
    await typeInto(page, QUERY_EDITOR, '{ apps { appId name } }');
    const fresh = await run(page, '"appId"');
    expect(fresh.authorization).toBe('Bearer demo-token');
    expect(fresh.body.errors).toBeUndefined();
    expect(fresh.body.data.apps.length).toBeGreaterThan(0);

    // The hosting example, never opened, and the commerce one, opened with the placeholder: both
    // show the token and send it.
    await page.locator(TAB).nth(1).click();
    await expect.poll(() => shownAuthorization(page), LOADED).toBe('Bearer demo-token');
    const hosting = await run(page, '"appId"');
    expect(hosting.authorization).toBe('Bearer demo-token');
    expect(hosting.body.data.apps.length).toBeGreaterThan(0);
    await page.locator(TAB).nth(2).click();
    await expect.poll(() => shownAuthorization(page), LOADED).toBe('Bearer demo-token');
    const commerce = await run(page, '"transactionId"');
    expect(commerce.authorization).toBe('Bearer demo-token');
    expect(commerce.body.errors).toBeUndefined();
    expect(commerce.body.data.store.transactions.edges.length).toBeGreaterThan(0);

    // Another token, typed in the commerce tab, is the one the first tab shows and sends.
    await typeInto(page, HEADER_EDITOR, '{"Authorization": "Bearer demo-readonly"}');
    await page.locator(TAB).nth(0).click();
    await expect.poll(() => shownAuthorization(page), LOADED).toBe('Bearer demo-readonly');
    const certificates = await run(page, '"certificateId"');
    expect(certificates.authorization).toBe('Bearer demo-readonly');
    expect(certificates.body.data.certificateCustomer.certificates.edges.length).toBeGreaterThan(0);

    // Removed in one tab, it is gone from the others: the placeholder is back, and sent.
    await typeInto(page, HEADER_EDITOR, '{}');
    await page.locator(TAB).nth(1).click();
    await expect.poll(() => shownAuthorization(page), LOADED).toBe(placeholder);
    await typeInto(page, QUERY_EDITOR, '{ apps { appId } }');
    const without = await run(page, '"errors"');
    expect(without.authorization).toBe(placeholder);
    expect(without.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');

    const stored = await page.evaluate(() => JSON.stringify((globalThis as any).localStorage));
    expect(stored).not.toMatch(/demo-(token|readonly)/);
    await page.close();
  }, 90_000);

  it("shows each example's ledger in its panel: the calls, totals and budget the response carried", async () => {
    // A gateway of its own: each example's first run is cold.
    const cold = await startStack();
    try {
      const page = await context.newPage();
      await page.goto(`${cold.url}/graphql`);
      await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
      await shows(page, QUERY, 'certificateCustomer');
      await page.click('button[data-name="headers"]');
      await typeInto(page, HEADER_EDITOR, '{"Authorization": "Bearer demo-token"}');

      // The panel, opened from GraphiQL's sidebar, before any run.
      await page.click('button[aria-label="Show Upstream ledger"]');
      const panel = page.locator('.graphiql-plugin .weft-ledger');
      await expect.poll(() => panel.locator('[data-name="no-run"]').count(), LOADED).toBe(1);

      /** What the panel shows: its rows (cell by cell), totals and budget. */
      const shown = () =>
        panel.evaluate((element: any) => {
          const text = (node: any): string | null => node?.textContent ?? null;
          const fact = (name: string) => text(element.querySelector(`[data-name="${name}"]`));
          return {
            operation: fact('operation'),
            state: element.getAttribute('data-state'),
            rows: [...element.querySelectorAll('.weft-ledger-calls tbody tr')].map((row: any) => ({
              method: text(row.querySelector('[data-col="method"]')),
              route: text(row.querySelector('[data-col="route"]')),
              paths: text(row.querySelector('[data-col="paths"]')) ?? '',
              status: text(row.querySelector('[data-col="status"]')),
              source: text(row.querySelector('[data-col="source"]')),
              attempts: text(row.querySelector('[data-col="attempts"]')),
              ms: text(row.querySelector('[data-col="ms"]')),
            })),
            totals: { upstream: fact('upstream'), withoutUpstream: fact('withoutUpstream') },
            budget: {
              limit: fact('limit'),
              remaining: fact('remaining'),
              resetSec: fact('resetSec'),
              writeReserve: fact('writeReserve'),
            },
          };
        });
      /** What the panel should show for a response's ledger. */
      const expected = (operation: string, ledger: any) => ({
        operation,
        state: 'done',
        rows: ledger.calls.map((call: any) => ({
          method: call.method,
          route: call.route,
          paths: [...call.paths, ...(call.morePaths ? [`+${call.morePaths} more`] : [])].join(', '),
          status: call.status === null ? '—' : String(call.status),
          source: call.limiter ? `${call.source} (${call.limiter})` : call.source,
          attempts: String(call.attempts),
          ms: call.durationMs.toFixed(1),
        })),
        totals: {
          upstream: String(ledger.totals.upstream),
          withoutUpstream: String(ledger.totals.withoutUpstream),
        },
        budget: {
          limit: String(ledger.budget.limit),
          remaining: String(ledger.budget.remaining),
          resetSec: `${ledger.budget.resetSec} s`,
          writeReserve: String(ledger.budget.writeReserve),
        },
      });

      const examples = [
        {
          tab: 0,
          operation: 'Certificates',
          marker: 'certificateCustomer',
          data: '"certificateId"',
        },
        { tab: 1, operation: 'Hosting', marker: 'apps', data: '"appId"' },
        { tab: 2, operation: 'Commerce', marker: 'store(storeId', data: '"transactionId"' },
        // Again, warm: what the cache served shows as such.
        {
          tab: 0,
          operation: 'Certificates',
          marker: 'certificateCustomer',
          data: '"certificateId"',
        },
      ];
      const sources = new Set<string>();
      for (const [index, example] of examples.entries()) {
        await page.locator(TAB).nth(example.tab).click();
        await shows(page, QUERY, example.marker);
        await expect.poll(() => shownAuthorization(page), LOADED).toBe('Bearer demo-token');
        await cold.resetCounts();
        const { sent, body } = await run(page, example.data);
        expect(body.errors, example.operation).toBeUndefined();
        const ledger = sent.extensions?.upstream;
        expect(ledger, `${example.operation}: extensions.upstream`).toBeDefined();
        if (index < 3) expect(ledger.calls.length, example.operation).toBeGreaterThan(0);
        for (const call of ledger.calls) sources.add(call.source);

        await expect.poll(shown, LOADED).toEqual(expected(example.operation, ledger));
        // The calls that reached the upstream are the ones the upstream counted.
        expect(Number((await shown()).totals.upstream), example.operation).toBe(
          await cold.upstreamCalls(),
        );
      }
      expect([...sources]).toContain('network');
      expect([...sources].some((source) => source !== 'network')).toBe(true);
      await page.close();
    } finally {
      await cold.close();
    }
  }, 90_000);

  it('estimates the open document before a run, and shows the bound beside the calls made after it', async () => {
    // A gateway of its own: the run is cold, and its calls are the ones counted here.
    const cold = await startStack();
    try {
      const page = await context.newPage();
      const estimates: Request[] = [];
      page.on('request', (request) => {
        if (isEstimate(request)) estimates.push(request);
      });
      await page.goto(`${cold.url}/graphql`);
      await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
      await shows(page, QUERY, 'certificateCustomer');
      const footer = page.locator('.graphiql-footer .weft-estimate');

      // No token yet: the footer asks for one, and nothing is sent.
      await expect
        .poll(() => footer.locator('[data-name="estimate-skipped"]').getAttribute('data-reason'))
        .toBe('no-token');
      await page.waitForTimeout(800);
      expect(estimates).toEqual([]);

      /** What the gateway answers `Weft-Estimate: 1` for the open tab's document, asked directly. */
      const direct = async () => {
        const query = await page.evaluate(editorText, QUERY);
        const answer = await cold.gql(query, {}, { headers: { 'weft-estimate': '1' } });
        return answer.body;
      };
      /** What the footer shows once its estimate is the latest. */
      const shownEstimate = () =>
        footer.evaluate((element: any) => ({
          status: element.getAttribute('data-status'),
          calls: element.querySelector('[data-name="estimate-calls"]')?.textContent ?? null,
          fields: [...element.querySelectorAll('[data-name="estimate-fields"] li')].map(
            (item: any) =>
              `${item.querySelector('[data-col="field"]').textContent} ${item.querySelector('[data-col="calls"]').textContent}`,
          ),
          max: element.querySelector('[data-name="estimate-max"]')?.textContent ?? null,
          actual: element.querySelector('[data-name="estimate-actual"]')?.textContent ?? null,
        }));
      const expectedBound = (body: any) => ({
        status: 'done',
        calls: String(body.extensions.upstream.estimate.calls),
        fields: body.extensions.upstream.estimate.byField
          .slice(0, 3)
          .map((entry: any) => `${entry.field} ${entry.calls}`),
        max: null,
        actual: null,
      });

      // The token, typed once: the open example is estimated with it, and nothing is spent.
      await cold.resetCounts();
      await page.click('button[data-name="headers"]');
      await typeInto(page, HEADER_EDITOR, '{"Authorization": "Bearer demo-token"}');
      const certificates = await direct();
      expect(certificates.extensions.upstream.estimate.calls).toBeGreaterThan(0);
      await expect.poll(shownEstimate, { timeout: 10_000 }).toEqual(expectedBound(certificates));

      // Another example, chosen by its tab.
      await page.locator(TAB).nth(1).click();
      await shows(page, QUERY, 'apps');
      const hosting = await direct();
      await expect.poll(shownEstimate, { timeout: 10_000 }).toEqual(expectedBound(hosting));

      // A document typed in it.
      await typeInto(
        page,
        QUERY_EDITOR,
        'query Apps { apps { appId runtimeStatus { appStatus } deployments(limit: 2) { totalCount } } }',
      );
      const typed = await direct();
      expect(typed.extensions.upstream.estimate.calls).not.toBe(
        hosting.extensions.upstream.estimate.calls,
      );
      await expect.poll(shownEstimate, { timeout: 10_000 }).toEqual(expectedBound(typed));

      // Every estimate carried the run's headers with the shared token, and ran nothing.
      expect(estimates.length).toBeGreaterThan(0);
      for (const request of estimates) {
        const headers = await request.allHeaders();
        expect(headers.authorization).toBe('Bearer demo-token');
        expect(headers['weft-priority']).toBe('explorer');
        expect(headers['weft-trace']).toBeUndefined();
      }
      expect(await cold.upstreamCalls()).toBe(0);

      // Run it, with the ledger panel open: the bound beside the calls made.
      await page.click('button[aria-label="Show Upstream ledger"]');
      const panel = page.locator('.graphiql-plugin .weft-ledger');
      const { sent, body } = await run(page, '"appId"');
      expect(body.errors).toBeUndefined();
      const ledger = sent.extensions.upstream;
      const made = await cold.upstreamCalls();
      expect(made).toBeGreaterThan(0);
      // The apps list is unpaged: once it arrived, the bound is exact (docs/budget.md).
      expect(ledger.estimate).toEqual({
        calls: typed.extensions.upstream.estimate.calls,
        refinedCalls: made,
      });
      expect(ledger.totals.upstream).toBe(made);
      const fact = (name: string) => panel.locator(`[data-name="${name}"]`).textContent();
      await expect.poll(() => fact('operation')).toBe('Apps');
      expect(await fact('bound')).toBe(String(typed.extensions.upstream.estimate.calls));
      expect(await fact('refinedBound')).toBe(String(made));
      expect(await fact('made')).toBe(String(made));
      expect((await fact('boundMade'))?.replace(/\s+/g, ' ')).toBe(
        `bound ${typed.extensions.upstream.estimate.calls} → ${made} · made ${made}`,
      );

      // Over the per-operation limit: the footer shows the limit and the bound a run would exceed.
      await typeInto(
        page,
        QUERY_EDITOR,
        '{ channels { channelId } a: channels { channelId } b: channels { channelId } c: channels { channelId } }',
      );
      const over = (await direct()).errors[0].extensions;
      expect(over.limit).toBe('upstreamCalls');
      await expect.poll(shownEstimate, { timeout: 10_000 }).toEqual({
        status: 'done',
        calls: null,
        fields: [],
        max: String(over.max),
        actual: String(over.actual),
      });
      await page.close();
    } finally {
      await cold.close();
    }
  }, 90_000);
});
