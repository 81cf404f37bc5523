/**
 * The explorer's estimate before a run (docs/try-it.md "The explorer"), without a browser: the
 * request it sends for the editors' text (the run's document, variables and headers, the shared
 * token, `Weft-Estimate: 1`) or why it sends none, what it reads of the gateway's answer
 * (`extensions.upstream.estimate`, or the `upstreamCalls` limit's refusal), the debounce and the
 * dropping of stale answers, and what the footer renders — React 19 to HTML. The Chromium test
 * (`test/e2e/server/explorer.browser.test.ts`) checks the same against the gateway.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createEstimator,
  planEstimate,
  readEstimate,
  topFields,
  type EstimateInput,
  type EstimateState,
} from '../../../explorer/estimate.ts';
import { EstimateView } from '../../../explorer/estimate-view.tsx';

const INPUT: EstimateInput = {
  query: 'query Hosting { apps { appId runtimeStatus { appStatus } } }',
  variables: '',
  headers: '{"Authorization": "Bearer <your token>", "X-Store-Id": "s1"}',
  operationName: 'Hosting',
  token: 'Bearer demo-token',
};

const BOUND = {
  extensions: {
    upstream: {
      estimate: {
        calls: 61,
        byField: [
          { field: 'App.runtimeStatus', calls: 20 },
          { field: 'App.deployments', calls: 20 },
          { field: 'App.secrets', calls: 20 },
          { field: 'Query.apps', calls: 1 },
        ],
      },
    },
  },
};

const OVER = {
  errors: [
    {
      message:
        'Operation refused: its upper bound of upstream calls is 200, the limit (upstreamCalls) is 150.',
      extensions: { limit: 'upstreamCalls', max: 150, actual: 200, code: 'BAD_USER_INPUT' },
    },
  ],
};

describe('the estimate request', () => {
  it("sends the run's document, variables and headers with the shared token and Weft-Estimate: 1", () => {
    const plan = planEstimate({ ...INPUT, variables: '{"first": 3}' });
    expect(plan).toEqual({
      kind: 'send',
      request: {
        headers: {
          'X-Store-Id': 's1',
          Authorization: 'Bearer demo-token',
          'Content-Type': 'application/json',
          Accept: 'application/graphql-response+json, application/json',
          'Weft-Priority': 'explorer',
          'Weft-Estimate': '1',
        },
        body: { query: INPUT.query, variables: { first: 3 }, operationName: 'Hosting' },
      },
    });
  });

  it("takes the editor's Authorization never, and no trace (a ledger would replace the estimate)", () => {
    const plan = planEstimate({
      ...INPUT,
      headers: '{"authorization": "Bearer other", "Weft-Trace": "1", "weft-estimate": "0"}',
    });
    expect(plan.kind === 'send' && plan.request.headers).toEqual({
      Authorization: 'Bearer demo-token',
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json, application/json',
      'Weft-Priority': 'explorer',
      'Weft-Estimate': '1',
    });
  });

  it('sends no operation name the document does not define (a previous tab’s)', () => {
    const plan = planEstimate({ ...INPUT, operationName: 'Certificates' });
    expect(plan.kind === 'send' && plan.request.body).toEqual({ query: INPUT.query });
  });

  it('is not sent without a token, mid-edit, for bad variables, nothing or a subscription', () => {
    const reason = (input: Partial<EstimateInput>) => {
      const plan = planEstimate({ ...INPUT, ...input });
      return plan.kind === 'skip' ? plan.reason : 'sent';
    };
    expect(reason({ token: null })).toBe('no-token');
    expect(reason({ query: 'query Hosting { apps { ' })).toBe('syntax');
    expect(reason({ query: '  ' })).toBe('empty');
    expect(reason({ query: 'fragment F on App { appId }' })).toBe('empty');
    expect(reason({ variables: '{"first": ' })).toBe('variables');
    expect(reason({ variables: '[1]' })).toBe('variables');
    expect(
      reason({ query: 'subscription Job { appJob(jobId: "j") { status } }', operationName: 'Job' }),
    ).toBe('subscription');
    // Headers that are no JSON object yet: the token alone goes.
    expect(reason({ headers: '{"X-Store-Id": ' })).toBe('sent');
  });
});

describe("reading the gateway's answer", () => {
  it('takes the bound and its fields, costliest first as sent', () => {
    const estimate = readEstimate(200, BOUND);
    expect(estimate).toEqual({ kind: 'bound', ...BOUND.extensions.upstream.estimate });
    expect(topFields(estimate).map((entry) => entry.field)).toEqual([
      'App.runtimeStatus',
      'App.deployments',
      'App.secrets',
    ]);
  });

  it("reads the per-operation limit's refusal as max and actual, other errors as their message", () => {
    expect(readEstimate(400, OVER)).toEqual({
      kind: 'over-limit',
      max: 150,
      actual: 200,
      message: OVER.errors[0]!.message,
    });
    expect(
      readEstimate(400, {
        errors: [{ message: 'Cannot query field "nope"', extensions: { code: 'X' } }],
      }),
    ).toEqual({ kind: 'refused', message: 'Cannot query field "nope"', code: 'X' });
    expect(readEstimate(502, undefined).kind).toBe('unavailable');
    expect(readEstimate(200, { data: {} }).kind).toBe('unavailable');
  });
});

describe('the estimator', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const answering = (body: unknown, status = 200) =>
    vi.fn(async (_url: string | URL | Request, _init?: RequestInit) =>
      Response.json(body, { status }),
    );

  it('asks once the user pauses, with what the editors say then, and not again for the same', async () => {
    const fetch = answering(BOUND);
    const estimator = createEstimator({ endpoint: '/graphql', fetch, delayMs: 400 });
    const seen: EstimateState['status'][] = [];
    estimator.subscribe(() => seen.push(estimator.get().status));
    estimator.update({ ...INPUT, query: 'query Hosting { apps { appId } }' });
    await vi.advanceTimersByTimeAsync(200);
    estimator.update(INPUT);
    await vi.advanceTimersByTimeAsync(399);
    expect(fetch).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(estimator.get().status).toBe('done'));
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/graphql');
    expect(init?.method).toBe('POST');
    expect(JSON.parse(String(init?.body)).query).toBe(INPUT.query);
    expect(estimator.get()).toEqual({ status: 'done', estimate: readEstimate(200, BOUND) });

    // The same text again (a tab switch back, the same token): nothing is sent.
    estimator.update(INPUT);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(seen).toEqual(['pending', 'pending', 'done']);
  });

  it('sends nothing without a token, and asks once one is set', async () => {
    const fetch = answering(BOUND);
    const estimator = createEstimator({ endpoint: '/graphql', fetch, delayMs: 10 });
    estimator.update({ ...INPUT, token: null });
    await vi.advanceTimersByTimeAsync(100);
    expect(fetch).not.toHaveBeenCalled();
    expect(estimator.get()).toEqual({ status: 'skipped', reason: 'no-token' });
    estimator.update(INPUT);
    await vi.advanceTimersByTimeAsync(100);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('drops the answer to an older text, and keeps the last answer shown while it asks again', async () => {
    let release: (response: Response) => void = () => {};
    const fetch = vi
      .fn<typeof globalThis.fetch>()
      .mockImplementationOnce(async () => Response.json(BOUND))
      .mockImplementationOnce(
        (_url, init) =>
          new Promise<Response>((resolve, reject) => {
            release = resolve;
            init?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
          }),
      )
      .mockImplementationOnce(async () => Response.json(OVER, { status: 400 }));
    const estimator = createEstimator({ endpoint: '/graphql', fetch, delayMs: 10 });
    estimator.update(INPUT);
    await vi.advanceTimersByTimeAsync(20);
    await vi.waitFor(() => expect(estimator.get().status).toBe('done'));

    estimator.update({
      ...INPUT,
      query: 'query Hosting { apps { appId secrets { shared { name } } } }',
    });
    expect(estimator.get()).toEqual({ status: 'pending', previous: readEstimate(200, BOUND) });
    await vi.advanceTimersByTimeAsync(20);
    expect(fetch).toHaveBeenCalledTimes(2);
    // A newer edit while the second is in flight: the second is aborted, its answer ignored.
    estimator.update({ ...INPUT, query: '{ channels { channelId } a: channels { channelId } }' });
    release(Response.json({ extensions: { upstream: { estimate: { calls: 999, byField: [] } } } }));
    await vi.advanceTimersByTimeAsync(20);
    await vi.waitFor(() =>
      expect(estimator.get()).toEqual({ status: 'done', estimate: readEstimate(400, OVER) }),
    );
    expect(fetch).toHaveBeenCalledTimes(3);
    estimator.dispose();
  });

  it('says when the request fails, and asks again for the same text', async () => {
    const fetch = vi
      .fn<typeof globalThis.fetch>()
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(Response.json(BOUND));
    const estimator = createEstimator({ endpoint: '/graphql', fetch, delayMs: 10 });
    estimator.update(INPUT);
    await vi.advanceTimersByTimeAsync(20);
    await vi.waitFor(() => expect(estimator.get().status).toBe('done'));
    const state = estimator.get();
    expect(state.status === 'done' && state.estimate.kind).toBe('unavailable');
    estimator.update(INPUT);
    await vi.advanceTimersByTimeAsync(20);
    await vi.waitFor(() =>
      expect(estimator.get()).toEqual({ status: 'done', estimate: readEstimate(200, BOUND) }),
    );
  });
});

const render = (state: EstimateState): string =>
  renderToStaticMarkup(createElement(EstimateView, { state }));
const fact = (html: string, name: string): string | undefined =>
  new RegExp(`data-name="${name}"[^>]*>([^<]*)<`).exec(html)?.[1];

describe('the footer', () => {
  it('shows the bound and the three costliest fields', () => {
    const html = render({ status: 'done', estimate: readEstimate(200, BOUND) });
    expect(fact(html, 'estimate-calls')).toBe('61');
    const fields = [...html.matchAll(/data-col="field">([^<]*)<[\s\S]*?data-col="calls">(\d+)</g)];
    expect(fields.map(([, field, calls]) => `${field} ${calls}`)).toEqual([
      'App.runtimeStatus 20',
      'App.deployments 20',
      'App.secrets 20',
    ]);
    expect(html).not.toContain('Query.apps');
  });

  it("shows the limit's max and actual when a run would be refused", () => {
    const html = render({ status: 'done', estimate: readEstimate(400, OVER) });
    expect(fact(html, 'estimate-actual')).toBe('200');
    expect(fact(html, 'estimate-max')).toBe('150');
    expect(html).not.toContain('estimate-calls');
  });

  it('asks for the token when there is none, and keeps the last bound while updating', () => {
    const none = render({ status: 'skipped', reason: 'no-token' });
    expect(none).toContain('data-reason="no-token"');
    expect(none).toContain('Set your token');
    const updating = render({ status: 'pending', previous: readEstimate(200, BOUND) });
    expect(fact(updating, 'estimate-calls')).toBe('61');
    expect(updating).toContain('updating');
    expect(render({ status: 'pending', previous: undefined })).toContain('estimating');
  });

  it('escapes what the gateway says (an error message is text, never markup)', () => {
    const html = render({
      status: 'done',
      estimate: readEstimate(400, { errors: [{ message: 'bad <img src=x>' }] }),
    });
    expect(html).not.toContain('<img');
    expect(html).toContain('bad &lt;img src=x&gt;');
  });
});
