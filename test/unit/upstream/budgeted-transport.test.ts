/** What each upstream answer does to the buckets, and that every attempt pays. */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/error-codes.ts';
import { UpstreamError } from '../../../src/errors/gateway-errors.ts';
import {
  correctionOf,
  createBudgetedTransport,
  isRedundant,
} from '../../../src/upstream/budgeted-transport.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import type { RawResponse, Transport } from '../../../src/upstream/http-transport.ts';
import { createMemoryBucketStore } from '../../../src/upstream/memory-bucket-store.ts';
import { createRequestFacts } from '../../../src/upstream/request-facts.ts';
import type { RouteClass } from '../../../src/upstream/upstream-routes.ts';

const READS: RouteClass = { name: 'reads', limit: 120, windowMs: 60_000, perCredential: false };
const WRITES: RouteClass = { name: 'writes', limit: 30, windowMs: 60_000, perCredential: false };
import { createTokenBucketLimiter } from '../../../src/upstream/token-bucket.ts';

const credential = createCredentialFactory('unit-test-secret-0123456789')('demo-token');
const rate = (limit: number, remaining: number, reset: number) => ({
  'ratelimit-limit': String(limit),
  'ratelimit-remaining': String(remaining),
  'ratelimit-reset': String(reset),
});
const answer = (status: number, headers: Record<string, string>, body?: unknown): RawResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

describe('budget corrections from upstream answers', () => {
  it('reads RateLimit-* on every answer', () => {
    expect(correctionOf(answer(200, rate(600, 597, 1200)), undefined)).toEqual({
      limit: 600,
      remaining: 597,
      resetMs: 1_200_000,
    });
    expect(correctionOf(answer(200, {}), undefined)).toEqual({});
  });

  it("empties the credential's bucket on its window's 429", () => {
    const c = correctionOf(
      answer(429, { ...rate(600, 0, 1399), 'retry-after': '1399' }, { retryAfterSec: 1399 }),
      READS,
    );
    expect(c).toEqual({ limit: 600, blockMs: 1_399_000, blockRouteClass: false });
  });

  it("blocks the route class on a 429 while the credential's window still has room", () => {
    const c = correctionOf(
      answer(429, rate(600, 412, 900), { code: 'TOO_MANY_REQUESTS', retryAfterSec: 37 }),
      WRITES,
    );
    expect(c).toMatchObject({ remaining: 412, blockMs: 37_000, blockRouteClass: true });
  });
});

describe('budgeted transport', () => {
  const setup = (capacity: number) => {
    const sent: string[] = [];
    let remaining = capacity;
    const inner: Transport = {
      async send(call) {
        sent.push(call.route);
        remaining -= 1;
        return answer(200, rate(capacity, remaining, 60));
      },
      probe: async () => true,
      close: async () => undefined,
    };
    const limiter = createTokenBucketLimiter({
      store: createMemoryBucketStore({ budget: { capacity, windowMs: 60_000 } }),
      maxWaitMs: 0,
    });
    return {
      transport: createBudgetedTransport(inner, limiter),
      sent,
      limiter,
    };
  };

  it('takes a token per attempt, reports the spend to the request, and refuses when empty', async () => {
    const { transport, sent } = setup(2);
    const facts = createRequestFacts();
    const scope = { credential, requestId: 'r1', facts };
    const call = {
      method: 'GET' as const,
      route: '/v2/certificates',
      credential,
      scope,
      declared: undefined, // no extra limit: only the credential's bucket
    };
    const signal = new AbortController().signal;
    await transport.send(call, signal);
    await transport.send(call, signal);
    expect(facts.spent).toBe(2);
    expect(facts.budget).toEqual({ limit: 2, remaining: 0, resetSec: 60 });
    const error = await transport.send(call, signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RATE_LIMITED, details: { retryAfterSec: 60 } });
    expect(sent).toHaveLength(2);
  });

  it("ends a stale credential's probe lease when the probe gets no answer", async () => {
    const store = createMemoryBucketStore({ budget: { capacity: 10, windowMs: 60_000 } });
    const limiter = createTokenBucketLimiter({ store, maxWaitMs: 0 });
    const refused = new UpstreamError({
      kind: 'network',
      method: 'GET',
      route: '/v2/certificates',
      message: 'connection refused',
    });
    const transport = createBudgetedTransport(
      {
        send: async () => {
          throw refused;
        },
        probe: async () => false,
        close: async () => undefined,
      },
      limiter,
    );
    const call = {
      method: 'GET' as const,
      route: '/v2/certificates',
      credential,
      declared: undefined,
    };
    // Never answered: this call is the credential's slow-start probe.
    await expect(transport.send(call, new AbortController().signal)).rejects.toBe(refused);
    // Its lease is over: the next call may go (as the next probe) instead of waiting for it.
    expect(await store.take(credential.id, undefined)).toMatchObject({ allowed: true });
  });
});

describe('redundant corrections', () => {
  const taken = { limit: 600, remaining: 417, resetSec: 900 };
  it('are the answers that only confirm the take', () => {
    expect(isRedundant(200, taken, { limit: 600, remaining: 417, resetMs: 900_000 })).toBe(true);
    expect(isRedundant(200, taken, { limit: 600, remaining: 420, resetMs: 899_000 })).toBe(true);
  });
  it('are not the ones that lower the budget, move the window earlier, or block', () => {
    expect(isRedundant(200, taken, { limit: 600, remaining: 400, resetMs: 900_000 })).toBe(false);
    expect(isRedundant(200, taken, { limit: 500, remaining: 417, resetMs: 900_000 })).toBe(false);
    expect(isRedundant(200, taken, { limit: 600, remaining: 417, resetMs: 901_000 })).toBe(false);
    expect(isRedundant(200, taken, { limit: 600, remaining: 417, resetMs: 100_000 })).toBe(false);
    expect(isRedundant(429, taken, { limit: 600, blockMs: 5_000 })).toBe(false);
    expect(isRedundant(200, taken, {})).toBe(false);
  });
});
