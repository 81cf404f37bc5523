/**
 * The line of calls waiting for room in a credential's send window: an answer wakes the first two,
 * not everyone, so a burst of thousands behind a window of four costs a few takes per answer, not
 * thousands; and the line drains at once when the budget runs out.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryBucketStore } from '../../../../src/upstream/budget/memory-bucket-store.ts';
import {
  createTokenBucketLimiter,
  type Grant,
} from '../../../../src/upstream/budget/token-bucket.ts';
import { createWindowQueue, WINDOW_POLLERS } from '../../../../src/upstream/budget/window-queue.ts';
import { manualClock, until } from '../../../support/clock.ts';

const READ = { priority: 'read' } as const;

describe('the line for a send window', () => {
  it('wakes the first two on an answer and the next when one leaves', async () => {
    const queue = createWindowQueue();
    const places = Array.from({ length: 10 }, () => queue.join('c'));
    const turns = places.map((place) => place.next());
    expect(turns.map((turn) => turn.polls)).toEqual(
      Array.from({ length: 10 }, (_, i) => i < WINDOW_POLLERS),
    );
    const woken: number[] = [];
    turns.forEach((turn, i) => void turn.woken.then(() => woken.push(i)));
    queue.answered('c');
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toEqual([0, 1]);
    // The first leaves: the new first looks again, and the call that moved up starts polling.
    const again = places.slice(1).map((place) => place.next());
    again.forEach((turn, i) => void turn.woken.then(() => woken.push(i + 1)));
    places[0]!.leave();
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toEqual([0, 1, 1, WINDOW_POLLERS]);
    expect(places[WINDOW_POLLERS]!.next().polls).toBe(true);
  });

  it('costs a few takes per answer, not one per waiting call', async () => {
    const clock = manualClock();
    const store = createMemoryBucketStore({
      budget: { capacity: 100_000, windowMs: 1_399_000 },
      now: clock.now,
    });
    let takes = 0;
    const counted = {
      ...store,
      take: (...args: Parameters<typeof store.take>) => {
        takes += 1;
        return store.take(...args);
      },
    };
    const limiter = createTokenBucketLimiter({
      store: counted,
      maxWaitMs: 5_000,
      now: clock.now,
      sleep: clock.sleep,
    });
    const id = 'burst';
    const first = await limiter.acquire(id, undefined, READ); // never answered: a window of one
    const grants: Grant[] = [];
    const burst = Array.from({ length: 1_000 }, () =>
      limiter.acquire(id, undefined, READ).then((grant) => grants.push(grant)),
    );
    await until(() => clock.sleeping === 1_000, 'the whole burst in line');
    takes = 0;
    // The first call's answer: a fresh view, 4 calls may now be in flight.
    await limiter.observe(id, undefined, {
      limit: 100_000,
      remaining: 99_000,
      resetMs: 600_000,
      ticket: first.ticket,
    });
    await until(() => grants.length === 4, 'the window filled');
    await new Promise((resolve) => setImmediate(resolve));
    expect(grants).toHaveLength(4);
    // Each woken call looked once, and one more found the window full: nowhere near 1 000.
    expect(takes).toBeLessThanOrEqual(10);
    // Answers keep it moving, a few takes each.
    for (let answered = 0; answered < 100; answered += 1) {
      await limiter.observe(id, undefined, { ticket: grants[answered]!.ticket });
      await until(() => grants.length >= 5 + answered, 'the next call in');
    }
    expect(takes / 100).toBeLessThan(6);
    void burst;
  });
});
