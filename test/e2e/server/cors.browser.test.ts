/**
 * CORS in a real browser (Chromium, headless): a page served from an allowed origin
 * queries, mutates and subscribes over SSE with its bearer token, reading `RateLimit-*` and
 * `x-request-id`; a page from a disallowed origin is refused by the browser itself. The gateway
 * runs with `CORS_ORIGINS` naming the allowed page's origin only.
 *
 * The machine's Chromium, else the one `npm ci` installs (test/support/browser-choice.ts).
 */
import { createServer, type Server } from 'node:http';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

/** A page server: an empty HTML page, the origin a front end would be served from. */
async function pageServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

/** Runs in the page: what a front end does, with fetch, against the gateway on another origin. */
async function frontEnd(gateway: string) {
  const headers = {
    'content-type': 'application/json',
    authorization: 'Bearer demo-token',
  };
  const post = (query: string, variables: object = {}, extra: object = {}) =>
    fetch(`${gateway}/graphql`, {
      method: 'POST',
      headers: { ...headers, ...extra },
      body: JSON.stringify({ query, variables }),
    });
  const queried = await post('{ apps { appId } }');
  const query = {
    status: queried.status,
    apps: ((await queried.json()) as any).data.apps.length,
    remaining: queried.headers.get('ratelimit-remaining'),
    requestId: queried.headers.get('x-request-id'),
  };
  const created = await (
    await post(
      'mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } userErrors { message } } }',
      { name: 'cors-app' },
      { 'idempotency-key': crypto.randomUUID() },
    )
  ).json();
  const jobId = (created as any).data.createApp.job.jobId as string;
  const stream = await post(
    'subscription($jobId: ID!) { appJob(jobId: $jobId) { status } }',
    { jobId },
    { accept: 'text/event-stream' },
  );
  const reader = stream.body!.getReader();
  let text = '';
  while (!text.includes('event: next')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  return { query, jobId, streamType: stream.headers.get('content-type'), event: text };
}

/** Runs in the page: a cross-origin call the browser should refuse (a TypeError, no response). */
async function refusedFrontEnd(gateway: string) {
  try {
    await fetch(`${gateway}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({ query: '{ apps { appId } }' }),
    });
    return 'answered';
  } catch (error) {
    return `refused: ${(error as Error).name}`;
  }
}

describe.skipIf(chromiumMissing)('CORS in Chromium', () => {
  let stack: Stack;
  let allowed: { server: Server; port: number };
  let disallowed: { server: Server; port: number };
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    [allowed, disallowed] = await Promise.all([pageServer(), pageServer()]);
    stack = await startStack({
      env: {
        NODE_ENV: 'production',
        UPSTREAM: 'url',
        CORS_ORIGINS: `http://127.0.0.1:${allowed.port}`,
      },
    });
    browser = await launchChromium();
    context = browser.context;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    allowed?.server.close();
    disallowed?.server.close();
  });

  it('lets a page from an allowed origin query, mutate and subscribe over SSE', async () => {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${allowed.port}/`);
    const result = await page.evaluate(frontEnd, stack.url);
    expect(result.query.status).toBe(200);
    expect(result.query.apps).toBeGreaterThan(0);
    // Exposed headers: the page can read its budget and the request id.
    expect(Number(result.query.remaining)).toBeGreaterThan(0);
    expect(result.query.requestId).toBeTruthy();
    expect(result.jobId).toBeTruthy();
    expect(result.streamType).toMatch(/^text\/event-stream/);
    expect(result.event).toContain('"status"');
  });

  it('is refused by the browser for a page from another origin', async () => {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${disallowed.port}/`);
    const before = await stack.upstreamCalls();
    expect(await page.evaluate(refusedFrontEnd, stack.url)).toBe('refused: TypeError');
    // The preflight failed: the request itself never ran.
    expect(await stack.upstreamCalls()).toBe(before);
  });
});
