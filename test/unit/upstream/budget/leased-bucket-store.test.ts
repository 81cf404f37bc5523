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
import type { RedisConnection } from '../../../../src/redis/redis-connection.ts';
import { createLeasedBucketStore } from '../../../../src/upstream/budget/leased-bucket-store.ts';
import { createLeasedRouteClasses } from '../../../../src/upstream/budget/leased-route-classes.ts';
import { createMemoryBucketStore } from '../../../../src/upstream/budget/memory-bucket-store.ts';
import { createRedisLeases } from '../../../../src/upstream/budget/redis-leases.ts';
import { createRedisRouteClasses } from '../../../../src/upstream/budget/redis-route-classes.ts';
import { createSharedBuckets } from '../../../../src/upstream/budget/shared-buckets.ts';
import type { RouteClass } from '../../../../src/upstream/upstream-routes.ts';
import { STALE_AFTER_MS } from '../../../../src/upstream/budget/bucket-state.ts';
import {
  type BucketStore,
  type CredentialBudget,
} from '../../../../src/upstream/budget/bucket-store.ts';
import { CALL_LEASE_MS } from '../../../../src/upstream/budget/send-window.ts';
import { manualClock, type ManualClock } from '../../../support/clock.ts';
import {
  REDIS_MODE,
  openTestConnection,
  silentLogger,
  testPrefix,
  testRedisAvailable,
  useTestRedis,
} from '../../../support/redis.ts';

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
    let classRuns = 0;
    let reachable = true;
    const client = new Proxy(connection.client, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'evalSha' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          runs += 1;
          const [key] = (args[1] as { keys: string[] }).keys;
          if (key?.startsWith(`${prefix}:class:`)) classRuns += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const classes = createLeasedRouteClasses({
      classes: createRedisRouteClasses({ client, prefix, now }),
      replica: `r${(n += 1)}`,
      recall: () => undefined,
      now,
    });
    const store = createLeasedBucketStore({
      leases: createRedisLeases({
        client,
        prefix,
        capacity: BUDGET.capacity,
        windowMs: BUDGET.windowMs,
        writeReserveShare: BUDGET.writeReserveShare ?? 0,
        staleAfterMs: STALE_AFTER_MS,
        probeMs: CALL_LEASE_MS,
        replica: `r${n}`,
        now,
      }),
      classes,
      local: createMemoryBucketStore({ budget: BUDGET, now }),
      budget: BUDGET,
      usable: async () => reachable,
      recall: () => undefined,
      now,
    });
    opened.push({ close: () => classes.giveBackAll() });
    return {
      store,
      classes,
      runs: () => runs,
      classRuns: () => classRuns,
      cutOff: () => void (reachable = false),
      reconnect: () => void (reachable = true),
    };
  };

  /**
   * 20 calls, one every 50 ms (20 a second), each answered: demand enough for the replica to hold
   * a lease of several tokens after them.
   */
  const steadily = async (
    store: BucketStore,
    id: string,
    left: { n: number },
    clock: ManualClock,
  ) => {
    for (let i = 0; i < 20; i += 1) {
      await spend(store, id, 1, left);
      await clock.advance(50);
    }
  };

  /** Two replicas on two connections to the same Redis. */
  const twoReplicas = async (clock: ManualClock) => {
    const other = await openTestConnection();
    opened.push(other);
    return [replica(clock.now), replica(clock.now, other)] as const;
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
    await steadily(store, id, left, clock);
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
    await steadily(store, id, left, clock);
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

  it('waits, on a Redis Cluster, until a replica has each grant before it is spent', async () => {
    const connection = redis.connection();
    const acknowledged: number[] = [];
    const waitForReplica = connection.waitForReplica;
    const counted: RedisConnection = waitForReplica
      ? {
          ...connection,
          waitForReplica: async (key) => {
            const replicas = await waitForReplica(key);
            acknowledged.push(replicas);
            return replicas;
          },
        }
      : connection;
    const shared = createSharedBuckets({
      redis: counted,
      budget: BUDGET,
      prefix,
      logger: silentLogger,
    });
    opened.push(shared);
    const id = fresh();
    const left = { n: BUDGET.capacity };
    for (let i = 0; i < 20; i += 1) await spend(shared.store, id, 1, left);
    if (REDIS_MODE === 'cluster') {
      // The test cluster gives each master a replica: every granting run waited for it.
      expect(acknowledged.length).toBeGreaterThanOrEqual(1);
      expect(acknowledged.every((replicas) => replicas >= 1)).toBe(true);
    } else {
      // One Redis has no replica to fail over to: nothing to wait for.
      expect(waitForReplica).toBeUndefined();
    }
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

  it('takes nothing twice when an answer comes while a give-back is on its way', async () => {
    const clock = manualClock();
    const { store } = replica(clock.now);
    const id = fresh();
    const left = { n: BUDGET.capacity };
    await steadily(store, id, left, clock);
    // A call goes out; while it is in flight another replica's refusal recalls what this one holds.
    const call = await store.take(id, undefined, { priority: 'read' });
    expect(call.allowed).toBe(true);
    left.n -= 1;
    store.recalled(id);
    // The call's answer comes before the give-back's reply: it counts what was held as outstanding.
    await store.correct(id, undefined, {
      ticket: call.ticket,
      limit: BUDGET.capacity,
      remaining: left.n,
      resetMs: 300_000,
    });
    await expect.poll(async () => (await sharedState(id)).holders).toBe(0);
    // The next run reports that answer: the tokens given back are the bucket's, not taken off again.
    const leftBefore = left.n;
    expect((await spend(store, id, 1, left))[0]?.allowed).toBe(true);
    const after = await sharedState(id);
    expect(after.tokens + after.held).toBe(leftBefore);
  });

  it('lets one call out between replicas after Redis came back empty, then what its answer leaves', async () => {
    const clock = manualClock();
    const [a, b] = await twoReplicas(clock);
    const id = fresh();
    const left = { n: BUDGET.capacity };
    // Both replicas have heard from the upstream lately: their own views are fresh.
    for (let i = 0; i < 4; i += 1) await spend(i % 2 === 0 ? a.store : b.store, id, 1, left);
    await a.store.giveBackAll();
    await b.store.giveBackAll();
    // Redis restarts empty; meanwhile another client spent the window down to 3.
    await redis.admin().del([`${prefix}:bucket:{${id}}`, `${prefix}:leases:{${id}}`]);
    left.n = 3;
    // Four calls on each replica at once: the shared bucket has never been answered, so one goes
    // out (the probe), the others wait for its answer.
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? a : b).store.take(id, undefined, { priority: 'read' }),
      ),
    );
    const probes = burst.filter((v) => v.allowed);
    expect(probes).toHaveLength(1);
    expect(burst.filter((v) => !v.allowed).every((v) => v.deniedBy === 'window')).toBe(true);
    // The probe's answer (2 left after it) goes to the shared bucket at once: no more than that
    // goes out now, whichever replica asks.
    const prober = burst.findIndex((v) => v.allowed) % 2 === 0 ? a : b;
    left.n -= 1;
    await prober.store.correct(id, undefined, {
      ticket: probes[0]!.ticket,
      limit: BUDGET.capacity,
      remaining: left.n,
      resetMs: 300_000,
    });
    await expect.poll(async () => (await sharedState(id)).tokens).toBeLessThanOrEqual(left.n);
    let sent = 0;
    for (let i = 0; i < 8; i += 1) {
      if ((await spend(i % 2 === 0 ? a.store : b.store, id, 1, left))[0]?.allowed) sent += 1;
    }
    // Reads stop at the write reserve (10 of 100): none of the 2 left is theirs.
    expect(sent).toBe(0);
  });

  it('gets the tokens another replica holds when a call is refused for them (recall)', async () => {
    const clock = manualClock();
    const [a, b] = await twoReplicas(clock);
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

  describe('places in a route class every replica shares', () => {
    /** A class of the hosting API's kind: 10 a minute, one credential's fair share 8 of them. */
    const classNamed = () => ({
      name: `leased-${fresh()}`,
      limit: 10,
      windowMs: 60_000,
      perCredential: false,
    });
    const classCall = async (store: BucketStore, id: string, routeClass: RouteClass) => {
      const verdict = await store.take(id, routeClass, { priority: 'read' });
      if (verdict.allowed) {
        await store.correct(id, routeClass, {
          ticket: verdict.ticket,
          limit: BUDGET.capacity,
          remaining: 90,
          resetMs: 300_000,
        });
      }
      return verdict;
    };
    /** The class's log in Redis: its entries, and how many are stamped ahead of `at` (leased). */
    const classLog = async (routeClass: RouteClass, at: number) => {
      const entries = await redis
        .admin()
        .zRangeWithScores(`${prefix}:class:{${routeClass.name}}`, 0, -1);
      return { size: entries.length, ahead: entries.filter((e) => e.score > at).length };
    };

    /** Each replica has heard from the upstream for `id`: its view is fresh, its window open. */
    const answered = async (replicas: readonly { store: BucketStore }[], id: string) => {
      for (const { store } of replicas) {
        await store.correct(id, undefined, { limit: 100, remaining: 100, resetMs: 300_000 });
      }
    };
    /**
     * `calls` class calls at once, alternating replicas; each asks again while its replica's own
     * send window holds it back (as the limiter does), once the calls before it were answered.
     */
    const race = (
      replicas: readonly { store: BucketStore }[],
      id: string,
      routeClass: RouteClass,
      calls: number,
    ) =>
      Promise.all(
        Array.from({ length: calls }, async (_, i) => {
          for (;;) {
            const verdict = await classCall(replicas[i % 2]!.store, id, routeClass);
            if (verdict.deniedBy !== 'window') return verdict;
            await new Promise((resolve) => setImmediate(resolve));
          }
        }),
      );

    it('costs one script run per lease of places, not one per call', async () => {
      const clock = manualClock();
      const { store, classRuns } = replica(clock.now);
      const routeClass = { ...classNamed(), limit: 120 };
      const id = fresh();
      await store.correct(id, undefined, { limit: 100, remaining: 100, resetMs: 300_000 });
      // Steady demand, a call every 100 ms: 2 s to settle, then 6 s counted.
      for (let i = 0; i < 20; i += 1) {
        expect((await classCall(store, id, routeClass)).allowed).toBe(true);
        await clock.advance(100);
      }
      const before = classRuns();
      for (let i = 0; i < 60; i += 1) {
        expect((await classCall(store, id, routeClass)).allowed).toBe(true);
        await clock.advance(100);
      }
      // Before leases each call ran the class's script: now a quarter of a run per call at most
      // (the credential's leases are counted above).
      expect(classRuns() - before).toBeLessThanOrEqual(15);
    });

    it('never lets two replicas together take more than a credential may, however they race', async () => {
      const clock = manualClock();
      const replicas = await twoReplicas(clock);
      const routeClass = classNamed();
      const id = fresh();
      await answered(replicas, id);
      const outcomes = await race(replicas, id, routeClass, 30);
      // A credential's fair share of a class of 10 is 8: not one more, whichever replica asks.
      expect(outcomes.filter((v) => v.allowed)).toHaveLength(8);
      expect(outcomes.filter((v) => !v.allowed).every((v) => v.deniedBy === 'route-class')).toBe(
        true,
      );
      // Every place is stamped at its lease's end or later: counted until the upstream forgets it.
      expect((await classLog(routeClass, clock.now())).ahead).toBe(8);
    });

    it("keeps a credential's own class across replicas too (the catalog's burst)", async () => {
      const clock = manualClock();
      const replicas = await twoReplicas(clock);
      const routeClass = { ...classNamed(), limit: 5, perCredential: true };
      const id = fresh();
      await answered(replicas, id);
      const outcomes = await race(replicas, id, routeClass, 20);
      // The class's 5 a minute for the credential, whichever replica calls: not 5 each.
      expect(outcomes.filter((v) => v.allowed)).toHaveLength(5);
    });

    it('gives a replica the places another holds unused when its call is refused for them', async () => {
      const clock = manualClock();
      const [a, b] = await twoReplicas(clock);
      const routeClass = classNamed();
      const id = fresh();
      await answered([a, b], id);
      // A's demand makes its leases several places long: it holds some unused after its calls.
      for (let i = 0; i < 4; i += 1) {
        expect((await classCall(a.store, id, routeClass)).allowed).toBe(true);
        await clock.advance(10);
      }
      const { size } = await classLog(routeClass, clock.now());
      expect(size).toBeGreaterThan(4);
      // B fills the credential's share with what A has not leased, then is refused for a short
      // wait (A holds places), and asks A to give back (here by hand: the channel is the gateway's).
      const refusedAfter = [];
      for (let i = 0; i < 8; i += 1) {
        const verdict = await classCall(b.store, id, routeClass);
        refusedAfter.push(verdict);
        if (!verdict.allowed) break;
      }
      const refusal = refusedAfter.at(-1)!;
      expect(refusal).toMatchObject({ allowed: false, deniedBy: 'route-class', waitMs: 250 });
      a.classes.recalled(routeClass.name);
      // At once — well before A's lease would end (2 s), which gives unused places back too.
      await expect
        .poll(async () => (await classLog(routeClass, clock.now())).size, { timeout: 1_000 })
        .toBe(4 + refusedAfter.length - 1);
      // What A gave back serves B, to the share's end and not one call further.
      let served = 0;
      while ((await classCall(b.store, id, routeClass)).allowed) served += 1;
      expect(4 + refusedAfter.length - 1 + served).toBe(8);
    });

    it('gives back the places it did not use when its lease ends, without a call to carry them', async () => {
      const clock = manualClock();
      const { store } = replica(clock.now);
      const routeClass = classNamed();
      const id = fresh();
      await store.correct(id, undefined, { limit: 100, remaining: 100, resetMs: 300_000 });
      for (let i = 0; i < 4; i += 1) {
        expect((await classCall(store, id, routeClass)).allowed).toBe(true);
        await clock.advance(10);
      }
      expect((await classLog(routeClass, clock.now())).size).toBeGreaterThan(4);
      // Nothing calls any more: the lease's end (2 s, on the process's timers) takes them back.
      await expect
        .poll(async () => (await classLog(routeClass, clock.now())).size, { timeout: 5_000 })
        .toBe(4);
    });
  });
});
