import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { UpstreamError } from '../../../src/errors/gateway-errors.ts';
import { formatGraphQLError, toUserErrors } from '../../../src/errors/graphql-errors.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import type { RawResponse, Transport } from '../../../src/upstream/transport.ts';
import { backoffDelayMs, DEFAULT_RETRY_POLICY } from '../../../src/upstream/http/retry-policy.ts';
import type { UpstreamCall } from '../../../src/upstream/upstream-call.ts';
import { createUpstreamClient } from '../../../src/upstream/upstream-client.ts';

const credential = createCredentialFactory('unit-test-secret-0123456789')('demo-token');

type Step = RawResponse | UpstreamError;

/** A transport that plays back scripted answers and records what was sent. */
function scripted(steps: Step[]) {
  const sent: UpstreamCall[] = [];
  const transport: Transport = {
    async send(call) {
      sent.push(call);
      const step = steps.shift();
      if (!step) throw new Error('no more scripted answers');
      if (step instanceof UpstreamError) throw step;
      return step;
    },
    probe: async () => true,
    close: async () => undefined,
  };
  return { transport, sent };
}

/** A clock that only moves when the client sleeps: retries are checked without real waiting. */
function virtualTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

const json = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): RawResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

const networkError = (code: string) =>
  new UpstreamError({
    kind: 'network',
    method: 'GET',
    route: '/x',
    message: 'boom',
    cause: Object.assign(new Error(code), { code }),
  });

function client(steps: Step[], deadlineMs = 10_000) {
  const { transport, sent } = scripted(steps);
  const time = virtualTime();
  const upstream = createUpstreamClient({
    transport,
    deadlineMs,
    retry: DEFAULT_RETRY_POLICY,
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
  });
  return { upstream, sent, time };
}

const get: UpstreamCall = { method: 'GET', route: '/v2/certificates', credential };
const post: UpstreamCall = { method: 'POST', route: '/v2/certificates', body: {}, credential };

describe('error envelope', () => {
  it('parses {code, message, fields} into a typed error', async () => {
    const { upstream } = client([
      json(422, {
        code: 'INVALID_FORMAT',
        message: 'bad period',
        fields: [{ path: '$.period', code: 'OUT_OF_RANGE', message: '1..3' }],
      }),
    ]);
    const error = await upstream.request(post).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({
      kind: 'http',
      status: 422,
      upstreamCode: 'INVALID_FORMAT',
      message: 'bad period',
    });
    expect(toUserErrors(error)).toEqual([
      { code: 'OUT_OF_RANGE', message: '1..3', path: ['input', 'period'] },
    ]);
  });

  it.each([
    [400, 'BAD_USER_INPUT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [422, 'BAD_USER_INPUT'],
    [429, 'RATE_LIMITED'],
    [500, 'UPSTREAM_ERROR'],
  ])('maps HTTP %i to %s', async (status, code) => {
    const { upstream } = client(
      [json(status, { code: 'X', message: 'm', retryAfterSec: 99 })],
      1_000,
    );
    const error = await upstream.request(post).catch((e: unknown) => e);
    const formatted = formatGraphQLError({ message: 'x' }, error);
    expect(formatted.extensions).toMatchObject({ code, upstream: { status, code: 'X' } });
  });

  it('reads a 429 wait from Retry-After when the body has none', async () => {
    const { upstream } = client([json(429, undefined, { 'retry-after': '42' })], 1_000);
    await expect(upstream.request(get)).rejects.toMatchObject({ status: 429, retryAfterSec: 42 });
  });

  it('masks unknown errors', () => {
    const formatted = formatGraphQLError(
      { message: 'secret internals', extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      new Error('secret internals'),
    );
    expect(formatted.message).not.toContain('secret');
    expect(formatted.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
  });
});

describe('retry policy', () => {
  it('retries a GET on 503 with jittered backoff, then succeeds', async () => {
    const { upstream, sent, time } = client([
      json(503, { code: 'UNAVAILABLE' }),
      json(502, {}),
      json(200, { ok: true }),
    ]);
    const response = await upstream.request<{ ok: boolean }>(get);
    expect(response.data).toEqual({ ok: true });
    expect(sent).toHaveLength(3);
    expect(time.sleeps).toEqual([50, 100]); // random 0.5 × min(cap, 100·2^(n-1))
  });

  it('retries a GET on a network error', async () => {
    const { upstream, sent } = client([networkError('ECONNRESET'), json(200, [])]);
    await upstream.request(get);
    expect(sent).toHaveLength(2);
  });

  it('gives up after the capped number of attempts', async () => {
    const { upstream, sent } = client([json(503, {}), json(503, {}), json(503, {}), json(200, {})]);
    await expect(upstream.request(get)).rejects.toMatchObject({ status: 503 });
    expect(sent).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
  });

  it('never retries a POST, and says its outcome is unknown after a 5xx', async () => {
    const { upstream, sent } = client([json(503, {}), json(200, {})]);
    const error = await upstream.request(post).catch((e: unknown) => e);
    expect(sent).toHaveLength(1);
    expect(error).toMatchObject({ status: 503, outcomeUnknown: true });
    expect(formatGraphQLError({ message: '' }, error).extensions).toMatchObject({
      outcome: 'UNKNOWN',
    });
  });

  it('never retries a PATCH after a connection reset (outcome unknown)', async () => {
    const { upstream, sent } = client([networkError('ECONNRESET'), json(200, {})]);
    const error = await upstream.request({ ...post, method: 'PATCH' }).catch((e: unknown) => e);
    expect(sent).toHaveLength(1);
    expect(error).toMatchObject({ kind: 'network', outcomeUnknown: true });
  });

  it('knows a refused connection means the write did not happen', async () => {
    const { upstream } = client([networkError('ECONNREFUSED')]);
    await expect(upstream.request(post)).rejects.toMatchObject({
      kind: 'network',
      outcomeUnknown: false,
    });
  });

  it('does not retry a 4xx', async () => {
    const { upstream, sent } = client([json(404, { code: 'NOT_FOUND' }), json(200, {})]);
    await expect(upstream.request(get)).rejects.toMatchObject({ status: 404 });
    expect(sent).toHaveLength(1);
  });

  it('honours Retry-After: a 429 is retried no sooner than it says', async () => {
    const { upstream, sent, time } = client([
      json(429, { code: 'TOO_MANY', retryAfterSec: 3 }),
      json(200, {}),
    ]);
    await upstream.request(get);
    expect(sent).toHaveLength(2);
    expect(time.sleeps).toEqual([3000]);
  });

  it('answers RATE_LIMITED with retryAfterSec when the wait passes the deadline', async () => {
    const { upstream, sent, time } = client([
      json(429, { code: 'TOO_MANY', retryAfterSec: 600 }),
      json(200, {}),
    ]);
    const error = await upstream.request(get).catch((e: unknown) => e);
    expect(sent).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
    expect(formatGraphQLError({ message: '' }, error).extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSec: 600,
    });
  });

  it('does not start an attempt after the deadline', async () => {
    const { upstream, sent } = client([json(503, {}), json(503, {}), json(200, {})], 60);
    // random 0.5 → first backoff 50 ms (fits in 60), second 100 ms (does not).
    await expect(upstream.request(get)).rejects.toMatchObject({ status: 503 });
    expect(sent).toHaveLength(2);
  });

  it('keeps full-jitter delays within [0, min(cap, base·2^(n-1)))', () => {
    for (let attempt = 1; attempt <= 8; attempt += 1) {
      const ceiling = Math.min(
        DEFAULT_RETRY_POLICY.maxDelayMs,
        DEFAULT_RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1),
      );
      expect(backoffDelayMs(attempt, DEFAULT_RETRY_POLICY, () => 0)).toBe(0);
      expect(backoffDelayMs(attempt, DEFAULT_RETRY_POLICY, () => 0.999999)).toBeLessThan(ceiling);
    }
  });
});

describe('credential', () => {
  it('never shows the token when serialised or inspected', async () => {
    const { inspect } = await import('node:util');
    const factory = createCredentialFactory('another-secret-0123456789');
    const c = factory('super-secret-token');
    expect(JSON.stringify({ c })).not.toContain('super-secret-token');
    expect(inspect(c)).not.toContain('super-secret-token');
    expect(`${c}`).not.toContain('super-secret-token');
    expect(c.id).toBe(factory('super-secret-token').id);
    expect(c.id).not.toBe(factory('other-token').id);
  });
});

describe('attempt deadline', () => {
  it('ends with the attempt: an answered attempt’s signal is not aborted when its deadline passes', async () => {
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const signals: AbortSignal[] = [];
    const transport: Transport = {
      async send(_call, signal) {
        signals.push(signal);
        return json(200, { ok: true });
      },
      probe: async () => true,
      close: async () => undefined,
    };
    const upstream = createUpstreamClient({
      transport,
      deadlineMs: 50,
      retry: DEFAULT_RETRY_POLICY,
    });
    await upstream.request(get);
    vi.advanceTimersByTime(120); // past the deadline
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
  });

  it('leaves no timer behind once an attempt is answered, retried or failed', async () => {
    vi.useFakeTimers();
    try {
      const answered = client([json(200, { ok: true })]);
      await answered.upstream.request(get);
      expect(vi.getTimerCount()).toBe(0);
      const retried = client([networkError('ECONNRESET'), json(200, { ok: true })]);
      await retried.upstream.request(get);
      expect(vi.getTimerCount()).toBe(0);
      const failed = client([json(422, { code: 'INVALID_FORMAT', message: 'bad' })]);
      await failed.upstream.request(post).catch(() => undefined);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
