/**
 * The explorer in a real browser: Debian's Chromium (no downloaded browser), headless, with a fresh
 * profile. It loads the page, puts `Authorization: Bearer demo-token` into GraphiQL's header editor,
 * runs the saved certificates example and sees data, then runs the hosting example of another tab
 * without entering the token again — with every request the page made going to the
 * gateway itself (no CDN) and no Content-Security-Policy violation. On the embedded simulator (as
 * `npm start` runs it) the page names the demo token, and a token typed once shows in, and goes
 * with, every tab — new, never opened, opened before — before any operation has run.
 *
 * Without Chromium the test is skipped locally; with CI=true it runs and fails (`.ci/run` installs it).
 */
import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.ts';
import { startEmbeddedGateway, type EmbeddedGateway } from '../../support/embedded-gateway.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

/**
 * Runs in the page (serialized by Playwright, so self-contained): the text of the CodeMirror editor
 * at `selector`. Functions, not strings: the page's CSP forbids evaluating strings, as it should.
 */
const editorText = (selector: string): string =>
  String((globalThis as any).document.querySelector(selector)?.CodeMirror?.getValue() ?? '');
const editorIncludes = ({ selector, text }: { selector: string; text: string }): boolean =>
  String(
    (globalThis as any).document.querySelector(selector)?.CodeMirror?.getValue() ?? '',
  ).includes(text);
const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const HEADER_EDITOR = 'section.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
const RESPONSE = '.graphiql-response .CodeMirror';
const TAB = '.graphiql-tab-button';

/** Replaces the text of the editor at `selector` the way a user does: select all, type. */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.click(selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(text);
}

/** The `Authorization` the open tab's header editor shows. */
async function shownAuthorization(page: Page): Promise<unknown> {
  return JSON.parse(await page.evaluate(editorText, HEADER_EDITOR)).Authorization;
}

/** GraphQL requests the page sent for an operation (not GraphiQL's schema introspection). */
const isOperation = (request: Request): boolean =>
  request.method() === 'POST' &&
  new URL(request.url()).pathname === '/graphql' &&
  !String(request.postDataJSON()?.query).includes('__schema');

/** Runs the open tab; returns what the request carried and the response the editor shows. */
async function run(page: Page, expected: string): Promise<{ authorization?: string; body: any }> {
  const [request] = await Promise.all([
    page.waitForRequest(isOperation, { timeout: 10_000 }),
    page.click('button.graphiql-execute-button'),
  ]);
  await page.waitForFunction(
    editorIncludes,
    { selector: RESPONSE, text: expected },
    { timeout: 20_000 },
  );
  const { authorization } = await request.allHeaders();
  return { authorization, body: JSON.parse(await page.evaluate(editorText, RESPONSE)) };
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
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${stack.url}/graphql`);
    await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
    // The saved certificates example is the open tab.
    await page.waitForFunction(
      editorIncludes,
      { selector: QUERY_EDITOR, text: 'certificateCustomer' },
      {
        timeout: 10_000,
      },
    );

    // The header editor: replace the placeholder with the demo token.
    await page.click('button[data-name="headers"]');
    await page.click(HEADER_EDITOR);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText('{"Authorization": "Bearer demo-token"}');
    expect(await page.evaluate(editorText, HEADER_EDITOR)).toBe(
      '{"Authorization": "Bearer demo-token"}',
    );

    await stack.resetCounts();
    await page.click('button.graphiql-execute-button');
    await page.waitForFunction(
      editorIncludes,
      { selector: RESPONSE, text: '"certificateId"' },
      {
        timeout: 20_000,
      },
    );
    const response = JSON.parse(await page.evaluate(editorText, RESPONSE));
    expect(response.errors).toBeUndefined();
    expect(response.data.certificateCustomer.certificates.edges.length).toBeGreaterThan(0);
    expect(response.data.viewer.rateLimit.limit).toBe(600);
    expect(await stack.upstreamCalls()).toBeGreaterThan(0);

    // Another example tab: its header editor shows the token entered once, and sends it.
    await page.locator(TAB).nth(1).click();
    await page.waitForFunction(
      editorIncludes,
      { selector: QUERY_EDITOR, text: 'apps' },
      { timeout: 10_000 },
    );
    expect(await shownAuthorization(page)).toBe('Bearer demo-token');
    await page.click('button.graphiql-execute-button');
    await page.waitForFunction(
      editorIncludes,
      { selector: RESPONSE, text: '"appId"' },
      { timeout: 20_000 },
    );
    const second = JSON.parse(await page.evaluate(editorText, RESPONSE));
    expect(second.errors).toBeUndefined();
    expect(second.data.apps.length).toBeGreaterThan(0);
    // Never in localStorage (GraphiQL's tabs and history keep headers; the explorer's storage
    // replaces any bearer token with the placeholder).
    const stored = await page.evaluate(() => JSON.stringify((globalThis as any).localStorage));
    expect(stored).not.toContain('demo-token');

    const foreign = requested.filter(
      (url) => !url.startsWith(`${stack.url}/`) && !url.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
    expect(problems.filter((text) => /Content Security Policy|Refused to/i.test(text))).toEqual([]);
    // A real upstream URL: no demo token is named.
    expect(await page.locator('.weft-explorer-hint').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('names the demo token on the embedded simulator, above a GraphiQL that fits the window', async () => {
    const page = await context.newPage();
    await page.goto(`${embedded.url}/graphql`);
    await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
    const hint = page.locator('.weft-explorer-hint');
    await expect.poll(() => hint.isVisible()).toBe(true);
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
    await page.waitForFunction(
      editorIncludes,
      { selector: QUERY_EDITOR, text: 'certificateCustomer' },
      { timeout: 10_000 },
    );
    await page.click('button[data-name="headers"]');
    const placeholder = await shownAuthorization(page);
    expect(placeholder).toBe('Bearer <your token>');

    // The commerce tab, opened before the token exists: GraphiQL keeps the placeholder as its headers.
    await page.locator(TAB).nth(2).click();
    await page.waitForFunction(
      editorIncludes,
      { selector: QUERY_EDITOR, text: 'store(storeId' },
      { timeout: 10_000 },
    );
    expect(await shownAuthorization(page)).toBe(placeholder);
    await page.locator(TAB).nth(0).click();
    await page.waitForFunction(
      editorIncludes,
      { selector: QUERY_EDITOR, text: 'certificateCustomer' },
      { timeout: 10_000 },
    );

    // The token, typed in the first tab's header editor; nothing run.
    await typeInto(page, HEADER_EDITOR, '{"Authorization": "Bearer demo-token"}');
    expect(operations).toEqual([]);

    // A new tab shows the token and sends it.
    await page.click('.graphiql-tab-add');
    await expect.poll(() => page.locator(TAB).count()).toBe(4);
    await expect.poll(() => shownAuthorization(page)).toBe('Bearer demo-token');
    await typeInto(page, QUERY_EDITOR, '{ apps { appId name } }');
    const fresh = await run(page, '"appId"');
    expect(fresh.authorization).toBe('Bearer demo-token');
    expect(fresh.body.errors).toBeUndefined();
    expect(fresh.body.data.apps.length).toBeGreaterThan(0);

    // The hosting example, never opened, and the commerce one, opened with the placeholder: both
    // show the token and send it.
    await page.locator(TAB).nth(1).click();
    await expect.poll(() => shownAuthorization(page)).toBe('Bearer demo-token');
    const hosting = await run(page, '"appId"');
    expect(hosting.authorization).toBe('Bearer demo-token');
    expect(hosting.body.data.apps.length).toBeGreaterThan(0);
    await page.locator(TAB).nth(2).click();
    await expect.poll(() => shownAuthorization(page)).toBe('Bearer demo-token');
    const commerce = await run(page, '"transactionId"');
    expect(commerce.authorization).toBe('Bearer demo-token');
    expect(commerce.body.errors).toBeUndefined();
    expect(commerce.body.data.store.transactions.edges.length).toBeGreaterThan(0);

    // Another token, typed in the commerce tab, is the one the first tab shows and sends.
    await typeInto(page, HEADER_EDITOR, '{"Authorization": "Bearer demo-readonly"}');
    await page.locator(TAB).nth(0).click();
    await expect.poll(() => shownAuthorization(page)).toBe('Bearer demo-readonly');
    const certificates = await run(page, '"certificateId"');
    expect(certificates.authorization).toBe('Bearer demo-readonly');
    expect(certificates.body.data.certificateCustomer.certificates.edges.length).toBeGreaterThan(0);

    // Removed in one tab, it is gone from the others: the placeholder is back, and sent.
    await typeInto(page, HEADER_EDITOR, '{}');
    await page.locator(TAB).nth(1).click();
    await expect.poll(() => shownAuthorization(page)).toBe(placeholder);
    await typeInto(page, QUERY_EDITOR, '{ apps { appId } }');
    const without = await run(page, '"errors"');
    expect(without.authorization).toBe(placeholder);
    expect(without.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');

    const stored = await page.evaluate(() => JSON.stringify((globalThis as any).localStorage));
    expect(stored).not.toMatch(/demo-(token|readonly)/);
    await page.close();
  }, 90_000);
});
