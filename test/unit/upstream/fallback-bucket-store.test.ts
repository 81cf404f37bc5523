/** The Redis-down policy: a local share of every budget, never unlimited; Redis again when back. */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { createFallbackBucketStore } from '../../../src/upstream/fallback-bucket-store.ts';
import { createMemoryBucketStore } from '../../../src/upstream/memory-bucket-store.ts';
import type { BucketStore, BudgetCorrection } from '../../../src/upstream/token-bucket.ts';

const budget = { capacity: 40, windowMs: 60_000 };

/** One call, answered with its ticket when it was allowed (as the gateway answers each call). */
async function call(store: BucketStore, correction: BudgetCorrection = {}) {
  const verdict = await store.take('c', undefined);
  if (verdict.allowed)
    await store.correct('c', undefined, { ...correction, ticket: verdict.ticket });
  return verdict;
}

function setup() {
  const shared = createMemoryBucketStore({ budget });
  let failing = false;
  let usable = true;
  const calls: string[] = [];
  const primary: BucketStore = {
    take: async (...args) => {
      calls.push('take');
      if (failing) throw new Error('Redis timeout');
      return shared.take(...args);
    },
    correct: async (...args) => {
      calls.push('correct');
      if (failing) throw new Error('Redis timeout');
      return shared.correct(...args);
    },
    peek: async (...args) => shared.peek(...args),
    release: async (...args) => shared.release(...args),
  };
  const store = createFallbackBucketStore({
    primary,
    fallback: createMemoryBucketStore({ budget, share: 0.25 }),
    usable: async () => usable,
    logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
  });
  return {
    store,
    shared,
    calls,
    fail: (value: boolean) => {
      failing = value;
    },
    unusable: (value: boolean) => {
      usable = !value;
    },
  };
}

describe('fallback bucket store', () => {
  it('uses the shared buckets while Redis answers', async () => {
    const { store } = setup();
    const verdict = await store.take('c', undefined);
    expect(verdict.budget).toMatchObject({ limit: 40, remaining: 39 });
  });

  it('falls back to the local share when Redis fails or is down: never unlimited', async () => {
    for (const breakIt of ['fail', 'unusable'] as const) {
      const harness = setup();
      await harness.store.correct('c', undefined, {}); // an answer: a fresh view
      harness[breakIt](true);
      // At the switch the view is stale: one call, the next waits for its answer.
      const first = await harness.store.take('c', undefined);
      expect(first.allowed).toBe(true);
      expect((await harness.store.take('c', undefined)).deniedBy).toBe('window');
      await harness.store.correct('c', undefined, { ticket: first.ticket });
      const verdicts = [first];
      for (let i = 0; i < 11; i += 1) verdicts.push(await call(harness.store));
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
      expect(verdicts.at(-1)?.deniedBy).toBe('credential');
      expect(verdicts[0]?.budget.limit).toBe(10);
    }
  });

  it("follows what the shared bucket says is left after each take, other replicas' calls included", async () => {
    const { store, shared, fail } = setup();
    await store.correct('c', undefined, {});
    // Another replica spends 30 of the credential's 40; this one then takes once and sees 9 left.
    for (let i = 0; i < 30; i += 1) {
      const taken = await shared.take('c', undefined);
      await shared.correct('c', undefined, { ticket: taken.ticket });
    }
    expect((await call(store)).budget.remaining).toBe(9);
    fail(true);
    // The switch's first call, then others, each answered with nothing new.
    const local = [];
    for (let i = 0; i < 12; i += 1) local.push(await call(store));
    // A quarter of the 9 left, not a quarter of the capacity.
    expect(local.filter((v) => v.allowed)).toHaveLength(2);
  });

  it('keeps the local share informed, and tells Redis of every answer (its call leaves the shared window)', async () => {
    const { store, shared, calls, fail } = setup();
    await store.correct('c', undefined, { remaining: 12, resetMs: 30_000 });
    expect(calls).toEqual(['correct']);
    // Four calls in the shared window; an answer that only confirms the take still reaches Redis,
    // or the shared window would stay full of answered calls.
    const taken = [];
    for (let i = 0; i < 4; i += 1) taken.push(await store.take('c', undefined));
    expect(taken.every((v) => v.allowed)).toBe(true);
    expect((await shared.take('c', undefined)).deniedBy).toBe('window');
    await store.correct('c', undefined, {
      remaining: 8,
      resetMs: 30_000,
      ticket: taken[0]!.ticket,
    });
    expect(calls.filter((c) => c === 'correct')).toHaveLength(2);
    expect((await shared.take('c', undefined)).allowed).toBe(true);
    for (const { ticket } of taken.slice(1)) await store.correct('c', undefined, { ticket });
    fail(true);
    // The local share learned that only 8 are left in the window, of which its share is 2.
    const verdicts = [];
    for (let i = 0; i < 4; i += 1) verdicts.push(await call(store));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(2);
  });

  it('two replicas that lose Redis between calls spend together exactly what is left, no more', async () => {
    const shared = createMemoryBucketStore({ budget });
    let failing = false;
    const primary: BucketStore = {
      take: async (...args) => (failing ? Promise.reject(new Error('down')) : shared.take(...args)),
      correct: async (...args) =>
        failing ? Promise.reject(new Error('down')) : shared.correct(...args),
      peek: async (...args) => shared.peek(...args),
      release: async (...args) => shared.release(...args),
    };
    const replicas = [0, 1].map(() =>
      createFallbackBucketStore({
        primary,
        fallback: createMemoryBucketStore({ budget, share: 0.5 }),
        usable: async () => true,
        logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
      }),
    );
    // The upstream's window: every call is counted and answered with what is left.
    let spent = 0;
    const call = async (replica: BucketStore) => {
      const verdict = await replica.take('c', undefined);
      if (!verdict.allowed) return;
      spent += 1;
      await replica.correct('c', undefined, {
        limit: 40,
        remaining: 40 - spent,
        ticket: verdict.ticket,
      });
    };
    for (let i = 0; i < 38; i += 1) await call(replicas[i % 2]!);
    expect(spent).toBe(38);
    failing = true;
    for (let i = 0; i < 20; i += 1) await call(replicas[i % 2]!);
    expect(spent).toBe(40);
  });

  it('goes back to Redis when it answers again', async () => {
    const { store, fail } = setup();
    fail(true);
    expect((await store.take('c', undefined)).budget.limit).toBe(10);
    fail(false);
    expect((await store.take('c', undefined)).budget.limit).toBe(40);
  });
});
