/**
 * The explorer in a real browser: Debian's Chromium (no downloaded browser), headless, with a fresh
 * profile. It loads the page, puts `Authorization: Bearer demo-token` into GraphiQL's header editor,
 * runs the saved certificates example and sees data, then runs the hosting example of another tab
 * without entering the token again — with every request the page made going to the
 * gateway itself (no CDN) and no Content-Security-Policy violation.
 *
 * Without Chromium the test is skipped locally; with CI=true it runs and fails (`.ci/run` installs it).
 */
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.ts';
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

describe.skipIf(chromiumMissing)('explorer in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchChromium();
    context = browser.context;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
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

    // Another example tab, whose header editor still shows the placeholder: the token entered once
    // is used (kept in this browser tab's session only).
    await page.locator('.graphiql-tab-button').nth(1).click();
    await page.waitForFunction(
      editorIncludes,
      { selector: QUERY_EDITOR, text: 'apps' },
      { timeout: 10_000 },
    );
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
    await page.close();
  }, 60_000);
});
