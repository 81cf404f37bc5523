/** What each upstream answer does to the buckets, and that every attempt pays. */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../../src/errors/error-codes.ts';
import { UpstreamError } from '../../../../src/errors/gateway-errors.ts';
import {
  correctionOf,
  createBudgetedTransport,
} from '../../../../src/upstream/budget/budgeted-transport.ts';
import { createCredentialFactory } from '../../../../src/upstream/credential.ts';
import type { RawResponse, Transport } from '../../../../src/upstream/transport.ts';
import { createMemoryBucketStore } from '../../../../src/upstream/budget/memory-bucket-store.ts';
import { createRequestFacts } from '../../../../src/upstream/request-facts.ts';
import { createTokenBucketLimiter } from '../../../../src/upstream/budget/token-bucket.ts';
import type { RequestScope } from '../../../../src/upstream/request-scope.ts';
import type { RouteClass, RoutedCall } from '../../../../src/upstream/upstream-routes.ts';
import type { HttpMethod } from '../../../../src/upstream/upstream-call.ts';
import { createUnprovenGate } from '../../../../src/upstream/budget/unproven-gate.ts';
import { deferred, manualClock, until, type Deferred } from '../../../support/clock.ts';

const READS: RouteClass = { name: 'reads', limit: 120, windowMs: 60_000, perCredential: false };
const WRITES: RouteClass = { name: 'writes', limit: 30, windowMs: 60_000, perCredential: false };

const credentials = createCredentialFactory('unit-test-secret-0123456789');
const credential = credentials('demo-token');
let tokens = 0;
/** A token this test file has not used yet (a credential no store has heard of). */
const newCredential = () => credentials(`token-${process.pid}-${(tokens += 1)}`);
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
      transport: createBudgetedTransport(inner, { limiter }),
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
    expect(facts.budget).toEqual({ limit: 2, remaining: 0, resetSec: 60, writeReserve: 0 });
    const error = await transport.send(call, signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RATE_LIMITED, details: { retryAfterSec: 60 } });
    expect(sent).toHaveLength(2);
  });

  it('releases the call from the send window when it gets no answer', async () => {
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
      { limiter },
    );
    const id = newCredential();
    const call = {
      method: 'GET' as const,
      route: '/v2/certificates',
      credential: id,
      declared: undefined,
    };
    // Never answered: a send window of one call, this one.
    await expect(transport.send(call, new AbortController().signal)).rejects.toBe(refused);
    // Its place is free: the next call may go instead of waiting for it.
    expect(await store.take(id.id, undefined)).toMatchObject({ allowed: true });
    // Spent all the same.
    expect(await store.peek(id.id)).toMatchObject({ remaining: 8 });
  });
});

/** A transport whose answers the test gives, one call at a time, in the order they were sent. */
function heldUpstream() {
  const pending: { call: RoutedCall; answer: Deferred<RawResponse> }[] = [];
  const inner: Transport<RoutedCall> = {
    send(call) {
      const answer = deferred<RawResponse>();
      pending.push({ call, answer });
      return answer.promise;
    },
    probe: async () => true,
    close: async () => undefined,
  };
  return { inner, pending };
}

/**
 * Waits until `count` calls have reached the upstream; fails at once with the call's own error when
 * `call` ends first (refused by the limiter instead of sent).
 */
async function reached(
  pending: readonly unknown[],
  count: number,
  call: Promise<unknown>,
  what: string,
): Promise<void> {
  await Promise.race([
    until(() => pending.length >= count, what),
    call.then(() => {
      throw new Error(`${what}: answered without reaching the upstream`);
    }),
  ]);
  // Nothing else went meanwhile.
  await new Promise((resolve) => setImmediate(resolve));
  expect(pending).toHaveLength(count);
}

const routed = (
  method: HttpMethod,
  who: ReturnType<typeof newCredential>,
  scope?: Partial<RequestScope>,
  limitClass?: RouteClass,
): RoutedCall => ({
  method,
  route: method === 'GET' ? '/v2/things' : '/v2/things/{id}/deploy',
  params: method === 'GET' ? {} : { id: 't1' },
  credential: who,
  scope: { credential: who, requestId: 'r', ...scope },
  declared: limitClass
    ? {
        method,
        route: '/v2/things',
        cache: { type: 'never', why: 'test' },
        breaker: 'test',
        limitClass,
      }
    : undefined,
});

describe('budgeted transport: priorities, tickets and unproven tokens', () => {
  it("keeps the write reserve for a client's writes: a read is refused where a write goes", async () => {
    const store = createMemoryBucketStore({
      budget: { capacity: 100, windowMs: 600_000, writeReserveShare: 0.1 },
    });
    const limiter = createTokenBucketLimiter({ store, maxWaitMs: 0 });
    const sent: string[] = [];
    const transport = createBudgetedTransport(
      {
        async send(call) {
          sent.push(call.method);
          return answer(200, {});
        },
        probe: async () => true,
        close: async () => undefined,
      },
      { limiter },
    );
    const who = newCredential();
    await limiter.observe(who.id, undefined, { limit: 100, remaining: 10, resetMs: 300_000 });
    const signal = new AbortController().signal;
    const read = await transport.send(routed('GET', who), signal).catch((e: unknown) => e);
    expect(read).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { limiter: 'RESERVE', retryAfterSec: 300 },
    });
    // An undeclared POST may write: it is a write, and the reserve is for it.
    await transport.send(routed('POST', who), signal);
    // A background request's write stays background: it stops even earlier than reads.
    const polled = await transport
      .send(routed('POST', who, { priority: 'background' }), signal)
      .catch((e: unknown) => e);
    expect(polled).toMatchObject({ code: ErrorCode.RATE_LIMITED, details: { limiter: 'RESERVE' } });
    expect(sent).toEqual(['POST']);
  });

  it("gives the route class back the 401'd call's own entry (the answer carries its ticket)", async () => {
    const clock = manualClock();
    const store = createMemoryBucketStore({
      budget: { capacity: 100, windowMs: 600_000 },
      now: clock.now,
    });
    const limiter = createTokenBucketLimiter({ store, maxWaitMs: 0, now: clock.now });
    const { inner, pending } = heldUpstream();
    const transport = createBudgetedTransport(inner, { limiter });
    const routeClass: RouteClass = {
      name: `cls-${process.pid}-${Date.now()}`,
      limit: 2,
      windowMs: 60_000,
      perCredential: false,
    };
    const signal = new AbortController().signal;
    const [tenant, junk, other, fourth] = [1, 2, 3, 4].map(() => newCredential());
    const send = (who: ReturnType<typeof newCredential>) =>
      transport.send(routed('GET', who, {}, routeClass), signal);
    // The class's log: the junk call at 0 s, the tenant's at 1 s (2 of 2).
    const junkCall = send(junk!);
    await reached(pending, 1, junkCall, 'the junk call sent');
    await clock.advance(1_000);
    const tenantCall = send(tenant!);
    await reached(pending, 2, tenantCall, "the tenant's call sent");
    // The junk token's 401 gives its own entry back (the 0 s one), not the tenant's.
    pending[0]!.answer.resolve(answer(401, {}));
    await junkCall;
    pending[1]!.answer.resolve(answer(200, {}));
    await tenantCall;
    const third = send(other!);
    await reached(pending, 3, third, 'the third call sent');
    pending[2]!.answer.resolve(answer(200, {}));
    await third;
    // A minute after the junk call the class is still full: both entries left are from 1 s.
    await clock.advance(59_000);
    const refused = await send(fourth!).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { limiter: 'ROUTE_CLASS', retryAfterSec: 1 },
    });
    await clock.advance(1_000);
    const fourthCall = send(fourth!);
    await reached(pending, 4, fourthCall, 'the fourth call sent');
    pending[3]!.answer.resolve(answer(200, {}));
    await fourthCall;
  });

  it('holds calls for unproven tokens from one address to two in flight; a proven token passes', async () => {
    const store = createMemoryBucketStore({ budget: { capacity: 100, windowMs: 600_000 } });
    const limiter = createTokenBucketLimiter({ store, maxWaitMs: 0 });
    const { inner, pending } = heldUpstream();
    const transport = createBudgetedTransport(inner, { limiter, unproven: createUnprovenGate() });
    const signal = new AbortController().signal;
    const junk = [newCredential(), newCredential(), newCredential()];
    const from = { clientAddress: '203.0.113.7' };
    const calls = junk.map((who) => transport.send(routed('GET', who, from), signal));
    await reached(pending, 2, Promise.race(calls), 'two calls sent');
    // Another address is not held by this one's junk.
    const tenant = newCredential();
    const tenantCall = transport.send(
      routed('GET', tenant, { clientAddress: '198.51.100.1' }),
      signal,
    );
    await reached(pending, 3, tenantCall, "the other address's call sent");
    expect(pending.map((p) => p.call.credential)).toEqual([junk[0], junk[1], tenant]);
    // A 401 ends a junk call: the third junk call goes.
    pending[0]!.answer.resolve(answer(401, {}));
    await calls[0];
    await reached(pending, 4, calls[2]!, 'the queued call sent');
    expect(pending[3]!.call.credential).toBe(junk[2]);
    // The tenant's 200 proves its token: from then on its calls pass the full address.
    pending[2]!.answer.resolve(answer(200, {}));
    await tenantCall;
    const more = transport.send(routed('GET', tenant, from), signal);
    await reached(pending, 5, more, "the proven token's call sent");
    for (const p of pending) p.answer.resolve(answer(200, {}));
    await Promise.all([...calls, more]);
  });
});
