/**
 * Who still waits for a call (`call-interest.ts`), and what the queues do when nobody does: the
 * shared interest of a coalesced call aborts only when its last waiter leaves; the send window's
 * line, a bucket's wait and the unproven-token gate let a call nobody waits for go with CLIENT_GONE
 * — no refusal counted, no token taken, its place handed to the next call.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/error-codes.ts';
import { isClientGone, sharedInterest } from '../../../src/upstream/call-interest.ts';
import { createMemoryBucketStore } from '../../../src/upstream/budget/memory-bucket-store.ts';
import { createSingleflight } from '../../../src/upstream/cache/singleflight.ts';
import { createTokenBucketLimiter } from '../../../src/upstream/budget/token-bucket.ts';
import { createUnprovenGate } from '../../../src/upstream/budget/unproven-gate.ts';
import { deferred, manualClock } from '../../support/clock.ts';

const settledOf = <T>(promise: Promise<T>) => {
  const state: { value?: T; error?: unknown; done: boolean } = { done: false };
  promise.then(
    (value) => Object.assign(state, { value, done: true }),
    (error: unknown) => Object.assign(state, { error, done: true }),
  );
  return state;
};
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('sharedInterest', () => {
  it('aborts only when every waiter has gone, with CLIENT_GONE', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const interest = sharedInterest(a.signal);
    interest.join(b.signal);
    a.abort();
    expect(interest.signal?.aborted).toBe(false);
    b.abort();
    expect(interest.signal?.aborted).toBe(true);
    expect(isClientGone(interest.signal?.reason)).toBe(true);
  });

  it('counts one request that asks twice once', () => {
    const a = new AbortController();
    const interest = sharedInterest(a.signal);
    interest.join(a.signal);
    a.abort();
    expect(interest.signal?.aborted).toBe(true);
  });

  it('never aborts once a waiter without a signal joined, nor for a first one without', () => {
    const a = new AbortController();
    const interest = sharedInterest(a.signal);
    interest.join(undefined);
    a.abort();
    expect(interest.signal?.aborted).toBe(false);
    expect(sharedInterest(undefined).signal).toBeUndefined();
  });

  it('stops listening once the call settled', () => {
    const a = new AbortController();
    const interest = sharedInterest(a.signal);
    interest.end();
    a.abort();
    expect(interest.signal?.aborted).toBe(false);
  });
});

describe('singleflight', () => {
  it("hands the fetch a signal that aborts when the leader and every joiner's request are gone", async () => {
    const flights = createSingleflight();
    const [leader, joiner] = [new AbortController(), new AbortController()];
    const answer = deferred<string>();
    let unwanted: AbortSignal | undefined;
    const first = flights.run(
      'k',
      (signal) => {
        unwanted = signal;
        return answer.promise;
      },
      leader.signal,
    );
    const second = flights.run('k', () => Promise.resolve('not called'), joiner.signal);
    leader.abort();
    expect(unwanted?.aborted).toBe(false);
    joiner.abort();
    expect(unwanted?.aborted).toBe(true);
    answer.resolve('late');
    expect(await first).toBe('late');
    expect(await second).toBe('late');
  });
});

describe('the send window and the buckets', () => {
  const setUp = (capacity = 100) => {
    const clock = manualClock();
    const refusals: string[] = [];
    const store = createMemoryBucketStore({
      budget: { capacity, windowMs: 60_000, writeReserveShare: 0 },
      now: clock.now,
    });
    const limiter = createTokenBucketLimiter({
      store,
      maxWaitMs: 60_000,
      now: clock.now,
      sleep: clock.sleep,
      onRefuse: (bucket) => refusals.push(bucket),
    });
    return { clock, limiter, refusals };
  };

  it('lets a call waiting in line for the window go when nobody waits for it, and the next one in', async () => {
    const { limiter, refusals } = setUp();
    const id = 'cred-window';
    // A view never answered lets one call out: it holds the window.
    const probe = await limiter.acquire(id, undefined, { priority: 'read' });
    const gone = new AbortController();
    const departed = settledOf(
      limiter.acquire(id, undefined, { priority: 'read', unwanted: gone.signal }),
    );
    const staying = settledOf(limiter.acquire(id, undefined, { priority: 'read' }));
    await tick();
    expect(departed.done).toBe(false);
    gone.abort();
    await tick();
    expect(departed.done).toBe(true);
    expect((departed.error as { code?: string }).code).toBe(ErrorCode.CLIENT_GONE);
    await limiter.observe(id, undefined, { ticket: probe.ticket });
    await tick();
    expect(staying.done).toBe(true);
    expect(staying.error).toBeUndefined();
    expect(refusals).toEqual([]);
  });

  it('lets a call waiting for a token go without counting a refusal, and takes nothing for one already unwanted', async () => {
    const { limiter, refusals } = setUp(1);
    const id = 'cred-bucket';
    const first = await limiter.acquire(id, undefined, { priority: 'read' });
    // The answer says the budget is spent until the window's end: the next call waits for a token.
    await limiter.observe(id, undefined, {
      ticket: first.ticket,
      limit: 1,
      remaining: 0,
      resetMs: 30_000,
    });
    const gone = new AbortController();
    const waiting = settledOf(
      limiter.acquire(id, undefined, { priority: 'read', unwanted: gone.signal }),
    );
    await tick();
    expect(waiting.done).toBe(false);
    gone.abort();
    await tick();
    expect(isClientGone(waiting.error)).toBe(true);
    expect(refusals).toEqual([]);
    await expect(
      limiter.acquire('cred-other', undefined, { priority: 'read', unwanted: gone.signal }),
    ).rejects.toSatisfy(isClientGone);
    expect((await limiter.snapshot({ id: 'cred-other' } as never)).remaining).toBe(1);
  });
});

describe('the unproven-token gate', () => {
  it('lets a queued call nobody waits for go with CLIENT_GONE and hands its place on', async () => {
    const gate = createUnprovenGate();
    // The token's probe is in flight: its other calls wait for its answer.
    const probe = await gate.enter('junk', '10.0.0.1', undefined);
    const gone = new AbortController();
    const departed = settledOf(gate.enter('junk', '10.0.0.1', undefined, gone.signal));
    const staying = settledOf(gate.enter('junk', '10.0.0.1', undefined));
    gone.abort();
    await tick();
    expect(isClientGone(departed.error)).toBe(true);
    expect(staying.done).toBe(false);
    // The probe ends without an answer: the call still wanted becomes the token's next probe.
    probe();
    await tick();
    expect(staying.done).toBe(true);
    expect(staying.error).toBeUndefined();
  });
});
