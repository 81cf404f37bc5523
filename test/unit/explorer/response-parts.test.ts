/**
 * The explorer's "As it arrived" line (docs/try-it.md "The explorer"): what it
 * reads of each part of an answer in parts — in the `deferSpec=20220824` format and in the
 * `incrementalSpec=v0.2` one, deferred fragments and streamed items — and of each subscription
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
  createPartReader,
  describePieces,
  isIncremental,
  NAMED_FRAGMENTS,
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
/** A streamed list's items in the 2022 format: each item's own path, its index last. */
const STREAMED = {
  incremental: [
    { items: [{ appId: 'app-0002' }], path: ['apps', 1], label: 'apps' },
    { items: [{ appId: 'app-0003' }], path: ['apps', 2], label: 'apps' },
  ],
  hasNext: true,
};
const readPart = (result: unknown, delivery: 'parts' | 'events', index: number, atMs: number) =>
  createPartReader().read(result, delivery, index, atMs);

describe('reading the parts', () => {
  it('names the first part, and each deferred fragment by its label and path', () => {
    expect(readPart(FIRST, 'parts', 1, 12)).toEqual({
      index: 1,
      atMs: 12,
      kind: 'first',
      pieces: [],
      errors: 0,
    });
    expect(readPart(DEFERRED, 'parts', 2, 480)).toEqual({
      index: 2,
      atMs: 480,
      kind: 'later',
      pieces: [
        { kind: 'fragment', label: 'deployments', path: 'apps.0' },
        { kind: 'fragment', label: 'deployments', path: 'apps.1' },
      ],
      errors: 1,
    });
    expect(announcesMore(FIRST)).toBe(true);
    expect(announcesMore(DEFERRED)).toBe(false);
  });

  it("names a streamed list's items by the list's path, without their indexes", () => {
    expect(readPart(STREAMED, 'parts', 2, 30).pieces).toEqual([
      { kind: 'items', label: 'apps', path: 'apps', count: 1 },
      { kind: 'items', label: 'apps', path: 'apps', count: 1 },
    ]);
  });

  it('reads the v0.2 format: paths and labels from the pending records, by id, across parts', () => {
    const reader = createPartReader();
    const first = reader.read(
      {
        data: { store: { transactions: { edges: [{}] } } },
        pending: [
          { id: '0', path: ['store', 'transactions', 'edges'], label: 'page' },
          { id: '1', path: ['store'] },
        ],
        hasNext: true,
      },
      'parts',
      1,
      10,
    );
    expect(first.kind).toBe('first');
    const later = reader.read(
      {
        pending: [{ id: '2', path: ['store', 'transactions'], label: 'total' }],
        incremental: [
          { id: '0', items: [{}, {}] },
          { id: '1', data: { name: 'x' }, subPath: ['owner'] },
          { id: '2', data: { totalCount: 3 } },
        ],
        completed: [{ id: '1' }, { id: '2' }, { id: '3', errors: [{}, {}] }],
        hasNext: true,
      },
      'parts',
      2,
      20,
    );
    expect(later).toEqual({
      index: 2,
      atMs: 20,
      kind: 'later',
      pieces: [
        { kind: 'items', label: 'page', path: 'store.transactions.edges', count: 2 },
        { kind: 'fragment', label: undefined, path: 'store.owner' },
        { kind: 'fragment', label: 'total', path: 'store.transactions' },
      ],
      errors: 2,
    });
    // The last part may only complete what is pending: no pieces.
    expect(reader.read({ completed: [{ id: '0' }], hasNext: false }, 'parts', 3, 30)).toMatchObject(
      {
        kind: 'later',
        pieces: [],
      },
    );
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

  it('groups fragments by label and names a bounded number of paths; items by list', () => {
    const many = Array.from({ length: NAMED_FRAGMENTS + 3 }, (_, i) => ({
      kind: 'fragment' as const,
      label: 'deployments',
      path: `apps.${i}`,
    }));
    expect(
      describePieces([
        ...many,
        { kind: 'fragment', label: undefined, path: '(root)' },
        { kind: 'items', label: 'apps', path: 'apps', count: 1 },
        { kind: 'items', label: 'apps', path: 'apps', count: 2 },
        { kind: 'items', label: undefined, path: 'logs', count: 1 },
      ]),
    ).toBe(
      `"deployments" at ${many
        .slice(0, NAMED_FRAGMENTS)
        .map((f) => f.path)
        .join(
          ', ',
        )} +3 more; unlabelled at (root); "apps": 3 items at apps; unlabelled: 1 item at logs`,
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

  it("lists a streamed list's items as they came", () => {
    const html = render({
      ...base,
      arrived: 2,
      parts: [...base.parts, readPart(STREAMED, 'parts', 2, 30)],
    });
    expect(html).toContain('&quot;apps&quot;: 2 items at apps');
    expect(html).toContain('more to come…');
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
