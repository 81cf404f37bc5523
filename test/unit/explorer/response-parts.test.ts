/**
 * The explorer's "As it arrived" line (docs/explorer.md "Subscriptions and @defer"): what it reads of
 * each part of a `@defer` answer (the `deferSpec=20220824` wire format) and of each subscription
 * event, what it renders (React 19 to HTML, as the browser gets it), and the fetcher's choice of
 * transport — a subscription goes over SSE, the rest over GraphiQL's own fetcher. The Chromium test
 * (`test/e2e/server/explorer-live.browser.test.ts`) checks the same line against the gateway.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { isSubscription } from '../../../explorer/fetcher.ts';
import type { LastRun } from '../../../explorer/last-run.ts';
import { PartsView } from '../../../explorer/parts-view.tsx';
import {
  announcesMore,
  describeFragments,
  isIncremental,
  NAMED_FRAGMENTS,
  readPart,
} from '../../../explorer/response-parts.ts';
import { headerValues } from '../../../explorer/subscription-fetcher.ts';

const FIRST = { data: { apps: [{ appId: 'app-0001' }] }, hasNext: true };
const DEFERRED = {
  incremental: [
    { data: { deployments: { totalCount: 3 } }, path: ['apps', 0], label: 'deployments' },
    { data: { deployments: null }, path: ['apps', 1], label: 'deployments', errors: [{}] },
  ],
  hasNext: false,
};

describe('reading the parts', () => {
  it('names the first part, and each deferred fragment by its label and path', () => {
    expect(readPart(FIRST, 'parts', 1, 12)).toEqual({
      index: 1,
      atMs: 12,
      kind: 'first',
      fragments: [],
      errors: 0,
    });
    expect(readPart(DEFERRED, 'parts', 2, 480)).toEqual({
      index: 2,
      atMs: 480,
      kind: 'deferred',
      fragments: [
        { label: 'deployments', path: 'apps.0' },
        { label: 'deployments', path: 'apps.1' },
      ],
      errors: 1,
    });
    expect(announcesMore(FIRST)).toBe(true);
    expect(announcesMore(DEFERRED)).toBe(false);
  });

  it("counts a subscription event's errors, and tells parts from one response", () => {
    expect(readPart({ data: null, errors: [{}, {}] }, 'events', 3, 40)).toMatchObject({
      kind: 'event',
      index: 3,
      errors: 2,
    });
    expect(isIncremental([FIRST])).toBe(true);
    expect(isIncremental(FIRST)).toBe(true);
    expect(isIncremental({ data: {} })).toBe(false);
  });

  it('groups fragments by label and names a bounded number of paths', () => {
    const many = Array.from({ length: NAMED_FRAGMENTS + 3 }, (_, i) => ({
      label: 'deployments',
      path: `apps.${i}`,
    }));
    expect(describeFragments([...many, { label: undefined, path: '(root)' }])).toBe(
      `"deployments" at ${many
        .slice(0, NAMED_FRAGMENTS)
        .map((f) => f.path)
        .join(', ')} +3 more; unlabelled at (root)`,
    );
  });
});

const base: LastRun = {
  operation: 'Dashboard',
  startedAt: 0,
  state: 'done',
  ledger: undefined,
  events: 0,
  delivery: 'parts',
  arrived: 1,
  parts: [readPart(FIRST, 'parts', 1, 12)],
  more: true,
};
const render = (run: LastRun | undefined) =>
  renderToStaticMarkup(createElement(PartsView, { run }));

describe('the footer line', () => {
  it('shows nothing for a run answered in one piece', () => {
    expect(render(undefined)).toBe('');
    expect(render({ ...base, delivery: 'single', arrived: 0, parts: [], more: false })).toBe('');
  });

  it('shows the first part while more is to come, then every part once complete', () => {
    const waiting = render(base);
    expect(waiting).toContain('data-more="true"');
    expect(waiting).toContain('1 part<');
    expect(waiting).toContain('first part');
    expect(waiting).toContain('more to come…');

    const done = render({
      ...base,
      arrived: 2,
      parts: [...base.parts, readPart(DEFERRED, 'parts', 2, 480)],
      more: false,
    });
    expect(done).toContain('2 parts');
    expect(done).toContain('&quot;deployments&quot; at apps.0, apps.1 (1 error)');
    expect(done).toContain('480 ms');
    expect(done).toContain('complete');
  });

  it("lists a subscription's events, saying how many earlier ones are not listed", () => {
    const html = render({
      ...base,
      delivery: 'events',
      arrived: 60,
      parts: [readPart({ data: {} }, 'events', 60, 900)],
      more: true,
    });
    expect(html).toContain('60 events');
    expect(html).toContain('59 earlier not listed');
    expect(html).toContain('event 60');
    expect(html).toContain('listening…');
  });
});

describe('the transport', () => {
  it('sends a subscription over SSE: the operation that would run decides', () => {
    const document =
      'query Apps { apps { appId } } subscription Job { appJob(jobId: "j") { status } }';
    expect(isSubscription({ query: document, operationName: 'Job' })).toBe(true);
    expect(isSubscription({ query: document, operationName: 'Apps' })).toBe(false);
    expect(isSubscription({ query: 'subscription { appJob(jobId: "j") { status } }' })).toBe(true);
    expect(isSubscription({ query: '{ apps { appId } }' })).toBe(false);
    expect(isSubscription({ query: 'subscription {' })).toBe(false);
  });

  it("sends the Headers tab's values as strings, dropping empty ones", () => {
    expect(
      headerValues({ Authorization: 'Bearer t', 'X-Count': 2, Gone: null, Missing: undefined }),
    ).toEqual({ Authorization: 'Bearer t', 'X-Count': '2' });
    expect(headerValues(null)).toEqual({});
    expect(headerValues(['a'])).toEqual({});
  });
});
