/**
 * The explorer's ledger panel against fixture responses in the ledger's wire format
 * (docs/budget.md): what it reads from `extensions.upstream`, and what it renders — one row per
 * call with its method, route, status, source (with a refusal's limiter), attempts and time, the
 * totals, and the budget — rendered by React 19 to HTML, as the browser gets it. The Chromium
 * test (`test/e2e/server/explorer.browser.test.ts`) checks the same panel against the gateway.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { LastRun } from '../../../explorer/last-run.ts';
import { LedgerView } from '../../../explorer/ledger-panel.tsx';
import { callTimeMs, ledgerRows, readLedger } from '../../../explorer/ledger.ts';

/** A dashboard-like response: one call of each source. */
const RESPONSE = {
  data: { apps: [] },
  extensions: {
    upstream: {
      calls: [
        {
          method: 'GET',
          route: '/v1/hosting/nodejs/apps',
          status: 200,
          source: 'network',
          attempts: 2,
          durationMs: 33.25,
          paths: ['apps'],
        },
        {
          method: 'GET',
          route: '/v1/hosting/nodejs/apps/{appId}/status',
          status: 200,
          source: 'cache',
          attempts: 0,
          durationMs: 0.4,
          paths: ['apps.0.runtimeStatus', 'apps.1.runtimeStatus'],
        },
        {
          method: 'GET',
          route: '/v1/hosting/nodejs/apps/{appId}/deployments',
          status: null,
          source: 'refused',
          limiter: 'ROUTE_CLASS',
          attempts: 0,
          durationMs: 0.1,
          paths: ['apps.2.deployments'],
        },
        {
          method: 'GET',
          route: '/v2/certificates/{id}',
          status: 200,
          source: 'coalesced',
          attempts: 0,
          durationMs: 12,
          paths: [],
        },
      ],
      totals: { upstream: 2, withoutUpstream: 3 },
      budget: { limit: 600, remaining: 571, resetSec: 1399, writeReserve: 60 },
      estimate: { calls: 41 },
    },
  },
};

const run = (result: unknown, state: LastRun['state'] = 'done'): LastRun => ({
  operation: 'Hosting',
  startedAt: Date.UTC(2026, 0, 1, 12),
  state,
  ledger: readLedger(result),
  events: 1,
  delivery: 'single',
  arrived: 0,
  parts: [],
  more: false,
});

const render = (last: LastRun | undefined): string =>
  renderToStaticMarkup(createElement(LedgerView, { run: last }));

/** The text of each `<td data-col=…>` of each row. */
function rowsOf(html: string): Record<string, string>[] {
  const body = /<tbody>([\s\S]*)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map(([, row = '']) =>
    Object.fromEntries(
      [...row.matchAll(/data-col="(\w+)"[^>]*>([^<]*)</g)].map(([, col = '', text = '']) => [
        col,
        text,
      ]),
    ),
  );
}

const fact = (html: string, name: string): string | undefined =>
  new RegExp(`data-name="${name}">([^<]*)<`).exec(html)?.[1];

describe('reading the ledger', () => {
  it('takes the calls, totals and budget of extensions.upstream as they are', () => {
    const ledger = readLedger(RESPONSE)!;
    expect(ledger.calls).toEqual(RESPONSE.extensions.upstream.calls);
    expect(ledger.totals).toEqual({ upstream: 2, withoutUpstream: 3 });
    expect(ledger.budget).toEqual({ limit: 600, remaining: 571, resetSec: 1399, writeReserve: 60 });
    expect(callTimeMs(ledger)).toBeCloseTo(45.75);
    expect(ledger.bound).toBe(41);
  });

  it('names the fields a call lists, then how many more asked (`morePaths`)', () => {
    const call = {
      method: 'GET',
      route: '/v2/customers/{customerId}/certificates/{certificateId}',
      status: null,
      source: 'cache',
      attempts: 0,
      durationMs: 0.2,
      paths: ['certificateCustomer.certificates.edges.0.node.csr'],
      morePaths: 25,
    };
    const ledger = readLedger({ extensions: { upstream: { calls: [call], totals: {} } } })!;
    expect(ledger.calls).toEqual([call]);
    expect(ledgerRows(ledger)[0]!.paths).toBe(
      'certificateCustomer.certificates.edges.0.node.csr, +25 more',
    );
  });

  it('finds none without the extension, and drops entries that are not calls', () => {
    expect(readLedger({ data: {} })).toBeUndefined();
    expect(readLedger({ data: {}, extensions: { rateLimit: {} } })).toBeUndefined();
    expect(readLedger(null)).toBeUndefined();
    const ledger = readLedger({
      extensions: {
        upstream: {
          calls: [{ method: 'GET' }, 'x', RESPONSE.extensions.upstream.calls[0]],
          totals: { upstream: 1, withoutUpstream: 0 },
          budget: null,
        },
      },
    })!;
    expect(ledger.calls).toEqual([RESPONSE.extensions.upstream.calls[0]]);
    expect(ledger.budget).toBeNull();
  });

  it('shows a refusal with its limiter, and no status as a dash', () => {
    const rows = ledgerRows(readLedger(RESPONSE)!);
    expect(rows.map((row) => row.detail)).toEqual([
      'network',
      'cache',
      'refused (ROUTE_CLASS)',
      'coalesced',
    ]);
    expect(rows.map((row) => row.status)).toEqual(['200', '200', '—', '200']);
    expect(rows[1]!.paths).toBe('apps.0.runtimeStatus, apps.1.runtimeStatus');
  });
});

describe('the panel', () => {
  it('lists one row per call, the totals and the budget', () => {
    const html = render(run(RESPONSE));
    expect(rowsOf(html)).toEqual([
      {
        method: 'GET',
        route: '/v1/hosting/nodejs/apps',
        paths: 'apps',
        status: '200',
        source: 'network',
        attempts: '2',
        ms: '33.3',
      },
      {
        method: 'GET',
        route: '/v1/hosting/nodejs/apps/{appId}/status',
        paths: 'apps.0.runtimeStatus, apps.1.runtimeStatus',
        status: '200',
        source: 'cache',
        attempts: '0',
        ms: '0.4',
      },
      {
        method: 'GET',
        route: '/v1/hosting/nodejs/apps/{appId}/deployments',
        paths: 'apps.2.deployments',
        status: '—',
        source: 'refused (ROUTE_CLASS)',
        attempts: '0',
        ms: '0.1',
      },
      {
        method: 'GET',
        route: '/v2/certificates/{id}',
        status: '200',
        source: 'coalesced',
        attempts: '0',
        ms: '12.0',
      },
    ]);
    expect(fact(html, 'operation')).toBe('Hosting');
    expect(fact(html, 'upstream')).toBe('2');
    expect(fact(html, 'withoutUpstream')).toBe('3');
    expect(fact(html, 'listed')).toBe('4');
    expect(fact(html, 'remaining')).toBe('571');
    expect(fact(html, 'limit')).toBe('600');
    expect(fact(html, 'resetSec')).toBe('1399 s');
    expect(fact(html, 'writeReserve')).toBe('60');
    // The bound computed before the run, beside the calls that reached the upstream.
    expect(fact(html, 'bound')).toBe('41');
    expect(fact(html, 'made')).toBe('2');
    expect(html).toMatch(
      /bound <span data-name="bound">41<\/span> · made <span data-name="made">2</,
    );
  });

  it('shows the bound once the unpaged lists arrived beside the one before the run', () => {
    const refined = {
      extensions: {
        upstream: {
          calls: [],
          totals: { upstream: 7, withoutUpstream: 0 },
          budget: null,
          estimate: { calls: 41, refinedCalls: 7 },
        },
      },
    };
    expect(readLedger(refined)!.refinedBound).toBe(7);
    const html = render(run(refined));
    expect(fact(html, 'bound')).toBe('41');
    expect(fact(html, 'refinedBound')).toBe('7');
    expect(fact(html, 'made')).toBe('7');
    expect(readLedger(RESPONSE)!.refinedBound).toBeUndefined();
  });

  it('shows no bound as a dash when the gateway computed none', () => {
    const html = render(
      run({
        extensions: {
          upstream: {
            calls: [],
            totals: { upstream: 0, withoutUpstream: 0 },
            budget: null,
            estimate: null,
          },
        },
      }),
    );
    expect(readLedger({ extensions: { upstream: { estimate: null } } })!.bound).toBeNull();
    expect(fact(html, 'bound')).toBe('—');
    expect(fact(html, 'made')).toBe('0');
  });

  it('says when there is no run yet, no ledger, no budget, or a replay', () => {
    expect(render(undefined)).toContain('data-name="no-run"');
    const none = render(run({ data: {} }));
    expect(none).toContain('data-name="no-ledger"');
    expect(none).not.toContain('<table');
    expect(render(run({ data: {} }, 'running'))).not.toContain('no-ledger');

    const withoutBudget = render(
      run({
        extensions: {
          upstream: { calls: [], totals: { upstream: 0, withoutUpstream: 0 }, budget: null },
        },
      }),
    );
    expect(withoutBudget).toContain('data-name="no-budget"');
    expect(withoutBudget).toContain('data-name="no-calls"');

    const replay = render(
      run({
        extensions: {
          upstream: {
            calls: [],
            totals: { upstream: 0, withoutUpstream: 0 },
            budget: RESPONSE.extensions.upstream.budget,
            replayed: true,
          },
        },
      }),
    );
    expect(replay).toContain('A replay of a whole earlier response');
    expect(fact(replay, 'remaining')).toBe('571');
  });

  it('escapes what the response says (a route is text, never markup)', () => {
    const html = render(
      run({
        extensions: {
          upstream: {
            calls: [{ ...RESPONSE.extensions.upstream.calls[0], route: '/x/<img src=x>' }],
            totals: { upstream: 1, withoutUpstream: 0 },
            budget: null,
          },
        },
      }),
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('/x/&lt;img src=x&gt;');
  });
});
