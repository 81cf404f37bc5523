/**
 * Token leases on a real Redis (the `cluster` project reruns this file on a Redis Cluster): a
 * replica pays one script run per lease, not per call; whatever it holds it may spend while Redis is
 * gone, and nothing more; what it does not spend goes back (at its close, when another replica is
 * refused for it, or with its next run once its lease ended); a lease Redis lost (a failed-over
 * master) is taken from the bucket again by its holder's next run. The shared side's state is read
 * from Redis itself. Each test uses its own credential; the clock is the test's (the scripts run on
 * it too), so a lease ends only when a test moves it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RedisConnection } from '../../../src/upstream/redis-connection.ts';
import { createLeasedBucketStore } from '../../../src/upstream/leased-bucket-store.ts';
import { createMemoryBucketStore } from '../../../src/upstream/memory-bucket-store.ts';
import { createRedisLeases } from '../../../src/upstream/redis-leases.ts';
import { createRedisRouteClasses } from '../../../src/upstream/redis-route-classes.ts';
import { createSharedBuckets } from '../../../src/upstream/shared-buckets.ts';
import {
  STALE_AFTER_MS,
  type BucketStore,
  type CredentialBudget,
} from '../../../src/upstream/token-bucket.ts';
import { manualClock } from '../../support/clock.ts';
import {
  openTestConnection,
  silentLogger,
  testPrefix,
  testRedisAvailable,
  useTestRedis,
} from '../../support/redis.ts';

let n = 0;
const fresh = () => `lease-${process.pid}-${Date.now()}-${(n += 1)}`;
const BUDGET: CredentialBudget = { capacity: 100, windowMs: 600_000, writeReserveShare: 0.1 };

describe.skipIf(!testRedisAvailable)('token leases', () => {
  const prefix = testPrefix('leases');
  const redis = useTestRedis(prefix);
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const one of opened.splice(0)) await one.close();
  });

  /** The shared bucket's tokens (what no replica holds) and every replica's lease record. */
  const sharedState = async (id: string) => {
    const admin = redis.admin();
    const tokens = Number(await admin.hGet(`${prefix}:bucket:{${id}}`, 'tokens'));
    const leases = Object.values(await admin.hGetAll(`${prefix}:leases:{${id}}`)).map((record) =>
      Number(record.split(' ')[0]),
    );
    return { tokens, held: leases.reduce((sum, held) => sum + held, 0), holders: leases.length };
  };

  /** A replica on the test's connection whose script runs are counted, and Redis can be cut off. */
  const replica = (now: () => number, connection: RedisConnection = redis.connection()) => {
    let runs = 0;
    let reachable = true;
    const client = new Proxy(connection.client, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'evalSha' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          runs += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store = createLeasedBucketStore({
      leases: createRedisLeases({
        client,
        prefix,
        capacity: BUDGET.capacity,
        windowMs: BUDGET.windowMs,
        writeReserveShare: BUDGET.writeReserveShare ?? 0,
        staleAfterMs: STALE_AFTER_MS,
        replica: `r${(n += 1)}`,
        now,
      }),
      classes: createRedisRouteClasses({ client, prefix, now }),
      local: createMemoryBucketStore({ budget: BUDGET, now }),
      budget: BUDGET,
      usable: async () => reachable,
      recall: () => undefined,
      now,
    });
    return {
      store,
      runs: () => runs,
      cutOff: () => void (reachable = false),
      reconnect: () => void (reachable = true),
    };
  };

  /** Calls one after another, each answered as the upstream would (what is left after it). */
  const spend = async (store: BucketStore, id: string, calls: number, left: { n: number }) => {
    const verdicts = [];
    for (let i = 0; i < calls; i += 1) {
      const verdict = await store.take(id, undefined, { priority: 'read' });
      verdicts.push(verdict);
      if (!verdict.allowed) continue;
      left.n -= 1;
      await store.correct(id, undefined, {
        ticket: verdict.ticket,
        limit: BUDGET.capacity,
        remaining: left.n,
        resetMs: 300_000,
      });
    }
    return verdicts;
  };

  it('runs its script once per lease of several calls, not once per call', async () => {
    const clock = manualClock();
    const { store, runs } = replica(clock.now);
    const id = fresh();
    const left = { n: BUDGET.capacity };
    // Steady demand: a call every 100 ms for 4 s (10 calls a second).
    const verdicts = [];
    for (let i = 0; i < 40; i += 1) {
      verdicts.push(...(await spend(store, id, 1, left)));
      await clock.advance(100);
    }
    expect(verdicts.every((v) => v.allowed)).toBe(true);
    // Every call was one run before leases (two with its answer): the target is a quarter of that.
    expect(runs()).toBeLessThanOrEqual(10);
    // What Redis knows: the calls spent, plus what this replica holds unspent, is all of it.
    const { tokens, held } = await sharedState(id);
    expect(tokens + held).toBeLessThanOrEqual(BUDGET.capacity - 40 + held);
    expect(tokens + held).toBeGreaterThanOrEqual(BUDGET.capacity - 40);
  });

  it('spends only what it holds while Redis is gone, within its lease, then refuses by name', async () => {
    const clock = manualClock();
    const { store, cutOff, reconnect } = replica(clock.now);
    const id = fresh();
    const left = { n: BUDGET.capacity };
    for (let i = 0; i < 20; i += 1) {
      await spend(store, id, 1, left);
      await clock.advance(50);
    }
    // Granted to this replica and not reported spent (it spent some since its last run).
    const { held } = await sharedState(id);
    expect(held).toBeGreaterThanOrEqual(2);
    cutOff();
    const during = await spend(store, id, held + 3, left);
    const sent = during.filter((v) => v.allowed).length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThanOrEqual(held);
    // Every call past what it held is refused by name, with the short wait of a call asking again.
    expect(during.slice(sent).map((v) => [v.allowed, v.deniedBy, v.waitMs])).toEqual(
      Array.from({ length: held + 3 - sent }, () => [false, 'shared-budget', 250]),
    );
    reconnect();
    expect((await spend(store, id, 1, left))[0]?.allowed).toBe(true);
  });

  it('spends nothing of a lease that ended while Redis was gone, and settles it once Redis is back', async () => {
    const clock = manualClock();
    const { store, cutOff, reconnect } = replica(clock.now);
    const id = fresh();
    const left = { n: BUDGET.capacity };
    for (let i = 0; i < 20; i += 1) {
      await spend(store, id, 1, left);
      await clock.advance(50);
    }
    expect((await sharedState(id)).held).toBeGreaterThanOrEqual(2);
    cutOff();
    // Past the longest lease: what it held is no longer this replica's to spend.
    await clock.advance(31_000);
    expect(await store.take(id, undefined, { priority: 'read' })).toMatchObject({
      allowed: false,
      deniedBy: 'shared-budget',
    });
    reconnect();
    const leftBefore = left.n;
    expect((await spend(store, id, 1, left))[0]?.allowed).toBe(true);
    // Its run (before that call) settled the ended lease — what it had not spent is free again —
    // and took a new one: the free tokens and the new lease are exactly what the upstream had left
    // then. Nothing lost, nothing counted twice.
    const after = await sharedState(id);
    expect(after.tokens + after.held).toBe(leftBefore);
  });

  it('gives back what it holds when it closes', async () => {
    const shared = createSharedBuckets({
      redis: redis.connection(),
      budget: BUDGET,
      prefix,
      logger: silentLogger,
    });
    opened.push(shared);
    const id = fresh();
    const left = { n: BUDGET.capacity };
    for (let i = 0; i < 20; i += 1) await spend(shared.store, id, 1, left);
    const before = await sharedState(id);
    expect(before.held).toBeGreaterThanOrEqual(1);
    await shared.close();
    expect(await sharedState(id)).toEqual({ tokens: BUDGET.capacity - 20, held: 0, holders: 0 });
  });

  it('takes the tokens of a lease Redis lost (a failed-over master) from the bucket again', async () => {
    const clock = manualClock();
    const { store, cutOff } = replica(clock.now);
    const id = fresh();
    // Answers that confirm the window but say nothing of what is left (no RateLimit-Remaining):
    // only the lease itself tells Redis what this replica holds.
    const call = async () => {
      const verdict = await store.take(id, undefined, { priority: 'read' });
      if (verdict.allowed) {
        await store.correct(id, undefined, {
          ticket: verdict.ticket,
          limit: BUDGET.capacity,
          resetMs: 300_000,
        });
      }
      return verdict.allowed;
    };
    for (let i = 0; i < 20; i += 1) {
      expect(await call()).toBe(true);
      await clock.advance(50);
    }
    expect((await sharedState(id)).held).toBeGreaterThanOrEqual(2);
    // The new master never saw the lease, nor the calls spent under it: a full bucket.
    await redis.admin().del(`${prefix}:leases:{${id}}`);
    await redis.admin().hSet(`${prefix}:bucket:{${id}}`, 'tokens', String(BUDGET.capacity));
    // Calls until a run happened (the lease held runs low): it reports the lease it holds.
    while ((await sharedState(id)).holders === 0) {
      expect(await call()).toBe(true);
      await clock.advance(50);
    }
    const { tokens } = await sharedState(id);
    // What the bucket has free and what this replica can still spend (Redis cut off: only what it
    // holds) is at most the bucket the new master has: the held tokens are not free a second time.
    // (The calls spent under the lost lease are what the upstream's RateLimit-Remaining, reported
    // with the same run, takes off; these answers carry none.)
    cutOff();
    let spendable = 0;
    while (await call()) spendable += 1;
    expect(spendable).toBeGreaterThanOrEqual(1);
    expect(tokens + spendable).toBeLessThanOrEqual(BUDGET.capacity);
  });

  it('gets the tokens another replica holds when a call is refused for them (recall)', async () => {
    const clock = manualClock();
    const other = await openTestConnection();
    opened.push(other);
    const a = replica(clock.now);
    const b = replica(clock.now, other);
    const id = fresh();
    const left = { n: BUDGET.capacity };
    // A spends most of the window for reads (the reserve is 10) and holds some of what is left.
    for (let i = 0; i < 80; i += 1) {
      await spend(a.store, id, 1, left);
      await clock.advance(20);
    }
    const held = (await sharedState(id)).held;
    expect(held).toBeGreaterThanOrEqual(1);
    // B finds nothing free above the reserve but what A holds: refused with a short wait, and
    // (here by hand: the channel is the gateway's) A is asked to give back.
    let refusal;
    for (let i = 0; i < 20 && !refusal; i += 1) {
      const verdict = await b.store.take(id, undefined, { priority: 'read' });
      if (!verdict.allowed) refusal = verdict;
      else {
        left.n -= 1;
        await b.store.correct(id, undefined, { ticket: verdict.ticket, remaining: left.n });
      }
    }
    expect(refusal).toMatchObject({ allowed: false, waitMs: 250 });
    a.store.recalled(id);
    await expect.poll(async () => (await sharedState(id)).holders).toBe(0);
    // What A gave back serves B's reads, down to the reserve and not one call further.
    const after = await spend(b.store, id, 30, left);
    expect(left.n).toBe(10);
    expect(after.at(-1)).toMatchObject({ allowed: false, deniedBy: 'reserve' });
  });
});
