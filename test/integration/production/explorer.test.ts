/**
 * The explorer over HTTP: who gets the page, what it loads (same origin only), its headers, that
 * its saved examples are valid operations of the graph, and that it names the simulator's demo
 * tokens on the embedded simulator only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TOKENS, EXPLORER_TABS } from '../../../src/server/explorer/explorer-examples.ts';
import { ALL_SCOPES, authenticate } from '../../../src/simulator/accounts.ts';
import { startEmbeddedGateway } from '../../support/embedded-gateway.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe('explorer page', () => {
  it('answers a browser with a self-hosted GraphiQL under a strict CSP', async () => {
    const res = await stack.http('GET', '/graphql', { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(5);
    for (const source of sources.filter((s) => !s.startsWith('data:'))) {
      expect(source.startsWith('/explorer/'), source).toBe(true);
      const asset = await stack.http('GET', source);
      expect(asset.status, source).toBe(200);
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('serves only the listed vendor files from node_modules', async () => {
    for (const path of [
      '/explorer/package.json',
      '/explorer/README.md',
      '/explorer/../package.json',
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
      expect((await off.http('GET', '/explorer/graphiql.min.js')).status).toBe(404);
    } finally {
      await off.close();
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
  it('are valid operations of the graph (certificates, hosting, commerce)', async () => {
    expect(EXPLORER_TABS).toHaveLength(3);
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
});
