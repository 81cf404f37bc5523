/**
 * The explorer over HTTP: who gets the page, what it loads (the bundle's files, same origin only),
 * its headers, that its saved examples are valid operations of the graph, that it names the
 * simulator's demo tokens on the embedded simulator only, and what it says without a bundle or
 * with one built from other sources.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXPLORER_BUNDLE_DIR,
  explorerInputsHash,
  readExplorerManifest,
} from '../../../src/server/explorer/explorer-bundle.ts';
import {
  DEMO_TOKENS,
  EXPLORER_ALL_TABS,
  EXPLORER_SUBSCRIPTION_TABS,
  EXPLORER_TABS,
} from '../../../src/server/explorer/explorer-examples.ts';
import { registerExplorer } from '../../../src/server/explorer/explorer.routes.ts';
import { ALL_SCOPES, authenticate } from '../../../src/simulator/accounts.ts';
import { startEmbeddedGateway } from '../../support/embedded-gateway.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { collectSse } from '../../support/subscription-clients.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const CONFIG = /<script id="weft-explorer-config" type="application\/json">([^<]*)<\/script>/;
const manifest = readExplorerManifest(EXPLORER_BUNDLE_DIR);

let stack: Stack;
beforeAll(async () => {
  if (!manifest) throw new Error('no explorer bundle: run `npm run build:explorer`');
  stack = await startStack();
});
afterAll(() => stack.close());

describe('explorer page', () => {
  it('answers a browser with a self-hosted GraphiQL under a strict CSP', async () => {
    const res = await stack.http('GET', '/graphql', { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("worker-src 'self'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['content-security-policy']).not.toMatch(/unsafe-eval|blob:|https?:/);
    const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).toEqual([
      'data:,',
      `/explorer/${manifest!.style}`,
      `/explorer/${manifest!.script}`,
    ]);
    expect(res.text).toContain(`<script type="module" src="/explorer/${manifest!.script}">`);
    const config = JSON.parse(CONFIG.exec(res.text)![1]!);
    expect(config.workers).toEqual({
      editor: `/explorer/${manifest!.workers.editor}`,
      json: `/explorer/${manifest!.workers.json}`,
      graphql: `/explorer/${manifest!.workers.graphql}`,
    });
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('serves every file of the bundle, typed, immutable, and nothing else from its folder', async () => {
    const types: Record<string, RegExp> = {
      js: /^text\/javascript|^application\/javascript/,
      css: /^text\/css/,
      ttf: /^font\/ttf/,
      txt: /^text\/plain/,
    };
    for (const file of manifest!.files) {
      const asset = await stack.http('GET', `/explorer/${file}`);
      expect(asset.status, file).toBe(200);
      expect(asset.headers['content-type'], file).toMatch(types[file.split('.').pop()!]!);
      expect(asset.headers['cache-control'], file).toContain('immutable');
      expect(asset.headers['x-content-type-options'], file).toBe('nosniff');
      // Same origin only: a script or stylesheet names no other origin to load from.
      if (/\.(js|css)$/.test(file)) {
        expect(asset.text, file).not.toMatch(/(?:import|from|url\()\s*["']?https?:\/\//);
      }
    }
    for (const path of [
      '/explorer/manifest.json',
      '/explorer/graphiql.min.js',
      '/explorer/package.json',
      '/explorer/../package.json',
      '/explorer/../dist/explorer/manifest.json',
    ]) {
      expect((await stack.http('GET', path)).status, path).toBe(404);
    }
  });

  it('leaves GraphQL clients alone: JSON, */* and no Accept still reach the endpoint', async () => {
    for (const accept of [
      'application/json',
      '*/*',
      'application/graphql-response+json, text/html;q=0.5',
    ]) {
      const res = await stack.http(
        'GET',
        `/graphql?query=${encodeURIComponent('{ __typename }')}`,
        {
          headers: { accept, 'apollo-require-preflight': 'true' },
        },
      );
      expect(res.status, accept).toBe(200);
      expect(res.body.data.__typename).toBe('Query');
    }
  });

  it('is switched off with EXPLORER=false', async () => {
    const off = await startStack({ env: { EXPLORER: 'false' } });
    try {
      const res = await off.http('GET', '/graphql', { headers: { accept: BROWSER_ACCEPT } });
      expect(res.headers['content-type']).not.toContain('text/html');
      expect((await off.http('GET', `/explorer/${manifest!.script}`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe('the bundle', () => {
  /** A server with the explorer on the bundle in `dir`, and the warnings it logged. */
  async function explorerOn(dir: string) {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) } as never;
    const app = Fastify();
    const page = await registerExplorer(app, {
      graphqlPath: '/graphql',
      embeddedUpstream: false,
      logger,
      bundleDir: dir,
    });
    return { app, page, warnings };
  }

  it('is built from the sources of this checkout', () => {
    expect(manifest!.inputsHash).toBe(explorerInputsHash());
  });

  it('missing, the page says how to build it and GraphQL is unaffected', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-explorer-'));
    try {
      const { app, page, warnings } = await explorerOn(dir);
      expect(page.html).toContain('npm run build:explorer');
      expect(page.html).not.toContain('<script');
      expect(warnings.join('\n')).toContain('npm run build:explorer');
      await app.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('built from other sources, the first page load says so, once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-explorer-'));
    try {
      await writeFile(
        join(dir, 'manifest.json'),
        JSON.stringify({ ...manifest, inputsHash: 'older' }),
      );
      const { app, page, warnings } = await explorerOn(dir);
      expect(warnings).toEqual([]);
      expect(page.html).toContain(manifest!.script);
      expect(page.html).toContain(manifest!.script);
      expect(warnings).toEqual([
        'the explorer bundle is older than its sources: run `npm run build:explorer`',
      ]);
      await app.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('demo token hint', () => {
  const HINT = /<p class="weft-explorer-hint"[^>]*>([\s\S]*?)<\/p>/;

  it('names the demo tokens on the embedded simulator, under the same CSP', async () => {
    const embedded = await startEmbeddedGateway();
    try {
      const res = await stack.http('GET', '/graphql', { headers: { accept: BROWSER_ACCEPT } });
      const page = await fetch(`${embedded.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toBe(
        res.headers['content-security-policy'],
      );
      const hint = HINT.exec(html)?.[1] ?? '';
      expect(hint).toContain(
        '<code>{&quot;Authorization&quot;: &quot;Bearer demo-token&quot;}</code>',
      );
      // The first is the one to use; the others are named.
      for (const { token } of DEMO_TOKENS.slice(1)) {
        expect(hint).toContain(`<code>${token}</code>`);
      }
      expect(html).not.toMatch(/https?:\/\//);
    } finally {
      await embedded.close();
    }
  });

  it('names none with a real upstream URL', async () => {
    const res = await stack.http('GET', '/graphql', { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(HINT);
    for (const { token } of DEMO_TOKENS) expect(res.text).not.toContain(token);
  });

  it("describes the simulator's own accounts", () => {
    for (const { token, gives } of DEMO_TOKENS) {
      const auth = authenticate(`Bearer ${token}`);
      if (!auth.ok) throw new Error(`${token} is not a simulator token`);
      expect(gives, token).toContain(`account ${auth.principal.accountId}`);
      const scopes = [...auth.principal.scopes];
      if (/every scope/.test(gives)) expect(scopes.sort(), token).toEqual([...ALL_SCOPES].sort());
      if (/read scopes only/.test(gives)) {
        expect(scopes.length, token).toBeGreaterThan(0);
        expect(
          scopes.every((scope) => scope.endsWith(':read')),
          token,
        ).toBe(true);
      }
    }
  });
});

describe('saved examples', () => {
  it('are valid operations of the graph (certificates, hosting, commerce, a deferred dashboard)', async () => {
    expect(EXPLORER_TABS).toHaveLength(4);
    expect(EXPLORER_TABS.filter((tab) => tab.query.includes('@defer'))).toHaveLength(1);
    for (const tab of EXPLORER_TABS) {
      const res = await stack.gql(tab.query);
      const requestErrors = (res.body.errors ?? []).filter((e: any) =>
        ['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_USER_INPUT'].includes(
          e.extensions.code,
        ),
      );
      expect(requestErrors, tab.query.split('\n')[0]).toEqual([]);
      expect(res.body.data, tab.query.split('\n')[0]).toBeTruthy();
    }
  });

  it('include the job subscription, which runs as it is over SSE, after the other tabs', async () => {
    expect(EXPLORER_ALL_TABS).toEqual([...EXPLORER_TABS, ...EXPLORER_SUBSCRIPTION_TABS]);
    expect(EXPLORER_SUBSCRIPTION_TABS).toHaveLength(1);
    for (const tab of EXPLORER_SUBSCRIPTION_TABS) {
      const { results, failure } = await collectSse(stack.url, tab.query);
      expect(failure, tab.query.split('\n')[0]).toBeUndefined();
      // Its default job is the embedded simulator's first, already ACTIVE: one event.
      expect(results).toEqual([
        { data: { appJob: { jobId: 'job-0001', status: 'ACTIVE', app: expect.any(Object) } } },
      ]);
    }
  });
});
