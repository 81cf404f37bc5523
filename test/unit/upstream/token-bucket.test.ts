/**
 * The token bucket algorithm, run against both stores: memory and Redis (one Lua script, on Redis
 * TIME unless the caller gives the time). Same cases, on a clock each test moves itself.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/error-codes.ts';
import { GatewayError } from '../../../src/errors/gateway-errors.ts';
import { createMemoryBucketStore } from '../../../src/upstream/memory-bucket-store.ts';
import { createRedisBucketStore } from '../../../src/upstream/redis-bucket-store.ts';
import type { RouteClass } from '../../../src/upstream/upstream-routes.ts';
import {
  PROBE_POLL_MS,
  createTokenBucketLimiter,
  type BucketStore,
  type CredentialBudget,
} from '../../../src/upstream/token-bucket.ts';
import { manualClock, until, type ManualClock } from '../../support/clock.ts';
import {
  openTestConnection,
  testPrefix,
  testRedisAvailable,
  useTestRedis,
} from '../../support/redis.ts';

const CLASS: RouteClass = { name: 'test-class', limit: 3, windowMs: 60_000, perCredential: false };
const PER_CREDENTIAL: RouteClass = { ...CLASS, name: 'per-cred', perCredential: true };

let n = 0;
const fresh = () => `cred-${process.pid}-${Date.now()}-${(n += 1)}`;

type StoreFactory = (
  budget: CredentialBudget,
  share: number | undefined,
  now: () => number,
) => BucketStore;

/**
 * A credential the upstream has answered (an answer without RateLimit headers): its view is fresh,
 * so no slow-start probe holds its takes back.
 */
async function known(store: BucketStore): Promise<string> {
  const id = fresh();
  await store.correct(id, undefined, {});
  return id;
}

async function takeN(store: BucketStore, id: string, count: number, routeClass?: RouteClass) {
  const verdicts = [];
  for (let i = 0; i < count; i += 1) verdicts.push(await store.take(id, routeClass));
  return verdicts;
}

function bucketCases(name: string, factory: () => StoreFactory) {
  describe(`${name} bucket store`, () => {
    let clock: ManualClock;
    beforeEach(() => {
      clock = manualClock();
    });
    const make = (budget: CredentialBudget, share?: number) =>
      factory()(budget, share, () => clock.now());

    it('gives the capacity, then refuses with the wait for the next token', async () => {
      const store = make({ capacity: 5, windowMs: 60_000 });
      const id = await known(store);
      const verdicts = await takeN(store, id, 6);
      expect(verdicts.slice(0, 5).every((v) => v.allowed)).toBe(true);
      expect(verdicts[4]?.budget).toMatchObject({ limit: 5, remaining: 0 });
      expect(verdicts[5]).toMatchObject({ allowed: false, deniedBy: 'credential' });
      // An unknown window refills continuously: one token per windowMs / capacity.
      expect(verdicts[5]?.waitMs).toBeGreaterThan(11_000);
      expect(verdicts[5]?.waitMs).toBeLessThanOrEqual(12_000);
    });

    it('is lowered by RateLimit-Remaining, never raised by it', async () => {
      const store = make({ capacity: 10, windowMs: 60_000 });
      const id = fresh();
      await store.take(id, undefined);
      expect(await store.correct(id, undefined, { remaining: 3, resetMs: 30_000 })).toMatchObject({
        remaining: 3,
        resetSec: 30,
      });
      expect(await store.correct(id, undefined, { remaining: 8 })).toMatchObject({ remaining: 3 });
      const verdicts = await takeN(store, id, 4);
      expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
      // Inside a known window nothing refills: the wait is the window's end.
      expect(verdicts[3]?.waitMs).toBeGreaterThan(29_000);
    });

    it('takes the lower RateLimit-Limit as its capacity', async () => {
      const store = make({ capacity: 10, windowMs: 60_000 });
      const id = fresh();
      expect(await store.correct(id, undefined, { limit: 4 })).toMatchObject({
        limit: 4,
        remaining: 4,
      });
      expect(await store.correct(id, undefined, { limit: 50 })).toMatchObject({ limit: 10 });
    });

    it('is full again when the known window ends', async () => {
      const store = make({ capacity: 3, windowMs: 60_000 });
      const id = await known(store);
      await takeN(store, id, 3);
      await store.correct(id, undefined, { remaining: 0, resetMs: 30_000 });
      expect((await store.take(id, undefined)).allowed).toBe(false);
      await clock.advance(29_999);
      expect((await store.take(id, undefined)).allowed).toBe(false);
      await clock.advance(1);
      const verdict = await store.take(id, undefined);
      expect(verdict).toMatchObject({ allowed: true, budget: { limit: 3, remaining: 2 } });
    });

    it('is emptied by a 429 until the reset it names', async () => {
      const store = make({ capacity: 10, windowMs: 60_000 });
      const id = fresh();
      const after = await store.correct(id, undefined, { blockMs: 20_000 });
      expect(after).toMatchObject({ remaining: 0, resetSec: 20 });
      const denied = await store.take(id, undefined);
      expect(denied).toMatchObject({ allowed: false, waitMs: 20_000 });
      await clock.advance(19_999);
      expect((await store.take(id, undefined)).allowed).toBe(false);
      await clock.advance(1);
      expect((await store.take(id, undefined)).allowed).toBe(true);
    });

    it('peeks without spending', async () => {
      const store = make({ capacity: 7, windowMs: 60_000 });
      const id = fresh();
      expect(await store.peek(id)).toEqual({ limit: 7, remaining: 7, resetSec: 0 });
      await store.take(id, undefined);
      expect(await store.peek(id)).toMatchObject({ remaining: 6 });
      expect(await store.peek(id)).toMatchObject({ remaining: 6 });
    });

    it('keeps a route class to its limit in any window, across credentials', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, name: `class-${fresh()}` };
      const [a, b] = [await known(store), await known(store)];
      const first = [
        ...(await takeN(store, a, 2, routeClass)),
        ...(await takeN(store, b, 2, routeClass)),
      ];
      expect(first.map((v) => v.allowed)).toEqual([true, true, true, false]);
      expect(first[3]).toMatchObject({ deniedBy: 'route-class' });
      // The oldest call leaves the window a whole window after it was made.
      expect(first[3]?.waitMs).toBe(routeClass.windowMs);
      // A refused call spends nothing from the credential's bucket.
      expect(first[3]?.budget.remaining).toBe(99); // b: one allowed, one refused
      await clock.advance(routeClass.windowMs - 1);
      expect((await store.take(b, routeClass)).allowed).toBe(false);
      await clock.advance(1);
      expect((await store.take(b, routeClass)).allowed).toBe(true);
    });

    it('keeps per-credential classes apart', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...PER_CREDENTIAL, name: `pc-${fresh()}` };
      const [a, b] = [await known(store), await known(store)];
      expect((await takeN(store, a, 4, routeClass)).map((v) => v.allowed)).toEqual([
        true,
        true,
        true,
        false,
      ]);
      expect((await store.take(b, routeClass)).allowed).toBe(true);
    });

    it("blocks only the route class on the class's own 429", async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, name: `blk-${fresh()}` };
      const id = fresh();
      await store.correct(id, routeClass, {
        remaining: 50,
        blockMs: 60_000,
        blockRouteClass: true,
      });
      expect(await store.take(id, routeClass)).toMatchObject({
        allowed: false,
        deniedBy: 'route-class',
      });
      expect((await store.take(id, undefined)).allowed).toBe(true);
    });

    it('lets one probe out for a credential it has not heard of, then what the answer leaves', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = fresh();
      expect(await store.take(id, undefined)).toMatchObject({ allowed: true });
      const waiting = await store.take(id, undefined);
      expect(waiting).toMatchObject({ allowed: false, deniedBy: 'probe' });
      expect(waiting.waitMs).toBeLessThanOrEqual(10);
      // The probe's answer: another client spent the window down to 3.
      await store.correct(id, undefined, { limit: 100, remaining: 3, resetMs: 30_000 });
      const verdicts = await takeN(store, id, 4);
      expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
      expect(verdicts[3]?.deniedBy).toBe('credential');
    });

    it('ends the probe lease when an attempt gets no answer: the next call is the probe', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = fresh();
      expect(await store.take(id, undefined)).toMatchObject({ allowed: true });
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'probe' });
      // The probe's connection was refused or cut: nothing learnt, and nobody waits for it.
      await store.release(id);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: true });
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'probe' });
      // Spent all the same: the attempts count against the window (98 of 100 left).
      expect(await store.peek(id)).toMatchObject({ remaining: 98 });
    });

    it('keeps a token the upstream refused (401) unproven: its next call is a probe again', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = fresh();
      expect((await store.take(id, undefined)).allowed).toBe(true);
      await store.correct(id, undefined, {
        limit: 100,
        remaining: 90,
        resetMs: 30_000,
        unauthenticated: true,
      });
      expect((await store.take(id, undefined)).allowed).toBe(true);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'probe' });
    });

    it("gives a 401'd call its route-class slot back, but not its place in the unproven pool", async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, limit: 4, name: `refund-${fresh()}` };
      const [tenant, other] = [await known(store), await known(store)];
      expect((await takeN(store, tenant, 3, routeClass)).every((v) => v.allowed)).toBe(true);
      const junk = fresh();
      expect((await store.take(junk, routeClass)).allowed).toBe(true);
      expect((await store.take(other, routeClass)).allowed).toBe(false); // the class is full
      // The junk token's 401: the upstream never counted it, so the class has room again…
      await store.correct(junk, routeClass, { unauthenticated: true });
      expect((await store.take(other, routeClass)).allowed).toBe(true);
      // …while unknown tokens' quarter of the class (1 of 4) stays used for the window.
      expect(await store.take(fresh(), routeClass)).toMatchObject({ allowed: false });
    });

    it('probes again once the known window has ended', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = await known(store);
      await store.correct(id, undefined, { remaining: 50, resetMs: 30_000 });
      expect((await takeN(store, id, 2)).every((v) => v.allowed)).toBe(true);
      await clock.advance(30_000);
      expect((await store.take(id, undefined)).allowed).toBe(true);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'probe' });
    });

    it('honours a Retry-After longer than the window for one window, then probes', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = await known(store);
      await store.correct(id, undefined, { blockMs: 86_400_000 });
      const blocked = await store.take(id, undefined);
      expect(blocked).toMatchObject({ allowed: false, deniedBy: 'credential', waitMs: 60_000 });
      await clock.advance(60_000);
      expect((await store.take(id, undefined)).allowed).toBe(true);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'probe' });
    });

    it("keeps a fifth of a class every credential shares out of any one credential's reach", async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, limit: 10, name: `fair-${fresh()}` };
      const [a, b] = [await known(store), await known(store)];
      const burst = await takeN(store, a, 9, routeClass);
      expect(burst.filter((v) => v.allowed)).toHaveLength(8);
      expect(burst[8]).toMatchObject({ allowed: false, deniedBy: 'route-class' });
      expect((await takeN(store, b, 2, routeClass)).every((v) => v.allowed)).toBe(true);
    });

    it('lets credentials the upstream never answered take at most a quarter of a shared class', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, limit: 8, name: `unproven-${fresh()}` };
      // Three new tokens (junk, or not yet answered): one probe each, two fit in the quarter.
      const strangers = [fresh(), fresh(), fresh()];
      const verdicts = [];
      for (const id of strangers) verdicts.push(await store.take(id, routeClass));
      expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false]);
      // A credential the upstream has answered still finds room.
      expect((await store.take(await known(store), routeClass)).allowed).toBe(true);
    });

    it('hands out only its share of every limit', async () => {
      const store = make({ capacity: 40, windowMs: 60_000 }, 0.25);
      const id = await known(store);
      const verdicts = await takeN(store, id, 11);
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
      expect(verdicts[0]?.budget.limit).toBe(10);
    });
  });
}

bucketCases(
  'memory',
  () => (budget, share, now) => createMemoryBucketStore({ budget, share, now }),
);

describe('a fallback share', () => {
  it('applies to what the upstream says is left, not only to the capacity', async () => {
    // Redis died late in a window: 8 calls left for everyone, this replica's share is a quarter.
    const store = createMemoryBucketStore({
      budget: { capacity: 600, windowMs: 60_000 },
      share: 0.25,
    });
    const id = fresh();
    await store.correct(id, undefined, { limit: 600, remaining: 8, resetMs: 30_000 });
    const verdicts = await takeN(store, id, 3);
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false]);
  });
});

describe.skipIf(!testRedisAvailable)('redis bucket store', () => {
  const prefix = testPrefix('bucket');
  const redis = useTestRedis(prefix);

  bucketCases('redis', () => (budget, share, now) => {
    // The Redis store holds the whole budget; a share only exists for the local fallback.
    const scaled = share ? { ...budget, capacity: Math.floor(budget.capacity * share) } : budget;
    return createRedisBucketStore({
      client: redis.connection().client,
      budget: scaled,
      prefix,
      now,
    });
  });

  it("runs on Redis's clock when the caller gives none", async () => {
    const store = createRedisBucketStore({
      client: redis.connection().client,
      budget: { capacity: 5, windowMs: 60_000 },
      prefix,
    });
    const id = fresh();
    const [before] = (await redis.admin().sendCommand(['TIME'])) as [string, string];
    await store.correct(id, undefined, { resetMs: 30_000 });
    const [after] = (await redis.admin().sendCommand(['TIME'])) as [string, string];
    const resetAt = Number(await redis.admin().hGet(`${prefix}:bucket:${id}`, 'resetAt'));
    // Whole seconds of Redis TIME around the call bracket the script's own reading of it.
    expect(resetAt - 30_000).toBeGreaterThanOrEqual(Number(before) * 1000);
    expect(resetAt - 30_000).toBeLessThan((Number(after) + 1) * 1000);
  });

  it('never lets two replicas together take more than the window, however they race', async () => {
    const other = await openTestConnection();
    try {
      const budget = { capacity: 20, windowMs: 60_000 };
      const replicas = [redis.connection(), other].map((c) =>
        createRedisBucketStore({ client: c.client, budget, prefix }),
      );
      const id = await known(replicas[0]!);
      const verdicts = await Promise.all(
        Array.from({ length: 60 }, (_, i) => replicas[i % 2]!.take(id, undefined)),
      );
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(20);
    } finally {
      await other.close();
    }
  });

  it('keeps no token, only the HMAC id, in its keys', async () => {
    const store = createRedisBucketStore({
      client: redis.connection().client,
      budget: { capacity: 5, windowMs: 60_000 },
      prefix,
    });
    await store.take('0123abcd', CLASS);
    const keys = await redis.admin().keys(`${prefix}:*`);
    expect(keys).toContain(`${prefix}:bucket:0123abcd`);
    expect(keys).toContain(`${prefix}:class:test-class`);
  });
});

/** A clock that moves only when the limiter sleeps: each wait is recorded, none is real. */
function sleepRecorder() {
  const clock = manualClock();
  const slept: number[] = [];
  return {
    slept,
    now: clock.now,
    sleep: async (ms: number) => {
      slept.push(ms);
      await clock.advance(ms);
    },
  };
}

/** A memory store and a limiter on one clock, waiting at most 250 ms for a token. */
function limiterOn(
  budget: { capacity: number; windowMs: number },
  clock: { now: () => number; sleep: (ms: number) => Promise<void> },
) {
  const store = createMemoryBucketStore({ budget, now: clock.now });
  const limiter = createTokenBucketLimiter({
    store,
    maxWaitMs: 250,
    now: clock.now,
    sleep: clock.sleep,
  });
  return { store, limiter };
}

describe('token bucket limiter', () => {
  it('waits for a token that comes within the allowed wait', async () => {
    const time = sleepRecorder();
    const { limiter } = limiterOn({ capacity: 10, windowMs: 1_000 }, time);
    const id = fresh();
    await limiter.observe(id, undefined, {});
    for (let i = 0; i < 10; i += 1) await limiter.acquire(id, undefined);
    expect(time.slept).toEqual([]);
    await limiter.acquire(id, undefined);
    // One token per windowMs / capacity: the next one comes 100 ms later, and one wait gets it.
    expect(time.slept).toEqual([100]);
  });

  it('fails with RATE_LIMITED and retryAfterSec when waiting would not help', async () => {
    const time = sleepRecorder();
    const { limiter } = limiterOn({ capacity: 2, windowMs: 60_000 }, time);
    const id = fresh();
    await limiter.observe(id, undefined, { remaining: 0, resetMs: 42_000 });
    const error = await limiter.acquire(id, undefined).catch((e: unknown) => e);
    expect(time.slept).toEqual([]); // no pointless wait
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { retryAfterSec: 42, limiter: 'CREDENTIAL' },
    });
  });

  it("holds a stale credential's calls for its probe's answer, then lets out only what is left", async () => {
    const clock = manualClock();
    const { limiter } = limiterOn({ capacity: 600, windowMs: 1_399_000 }, clock);
    const id = fresh();
    // One query with 20 root fields: 20 calls at once, for a credential another client has used.
    const outcomes = Array.from({ length: 20 }, () =>
      limiter.acquire(id, undefined).then(
        () => 'sent',
        () => 'refused',
      ),
    );
    // One call is the probe; the other 19 wait for its answer.
    await until(() => clock.sleeping === 19, "19 calls waiting for the probe's answer");
    // The probe's answer: 5 left in the window.
    await limiter.observe(id, undefined, { limit: 600, remaining: 5, resetMs: 600_000 });
    await clock.advance(PROBE_POLL_MS);
    const settled = await Promise.all(outcomes);
    expect(settled.filter((o) => o === 'sent')).toHaveLength(1 + 5);
    expect(settled.filter((o) => o === 'refused')).toHaveLength(14);
  });

  it("lets a stale credential's waiting calls go as soon as its probe fails without an answer", async () => {
    const clock = manualClock();
    const { limiter } = limiterOn({ capacity: 600, windowMs: 1_399_000 }, clock);
    const id = fresh();
    await limiter.acquire(id, undefined); // the probe
    const waiting = limiter.acquire(id, undefined);
    await until(() => clock.sleeping === 1, "a call waiting for the probe's answer");
    await limiter.release(id); // the probe's connection was refused
    await clock.advance(PROBE_POLL_MS);
    // Sent (as the next probe), not refused as if the budget were spent.
    await expect(waiting).resolves.toMatchObject({ remaining: 598 });
  });

  it("ends a wait for a probe's answer at the attempt's deadline, as the upstream not answering", async () => {
    const clock = manualClock();
    const { store, limiter } = limiterOn({ capacity: 600, windowMs: 1_399_000 }, clock);
    const id = fresh();
    await limiter.acquire(id, undefined); // the probe, which hangs
    const deadline = new AbortController();
    const waiting = limiter.acquire(id, undefined, deadline.signal).catch((e: unknown) => e);
    await until(() => clock.sleeping === 1, "a call waiting for the probe's answer");
    deadline.abort();
    const error = await waiting;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: ErrorCode.UPSTREAM_TIMEOUT });
    expect(await store.peek(id)).toMatchObject({ remaining: 599 }); // it took nothing
  });

  it('ends a wait for a token at the deadline with RATE_LIMITED', async () => {
    const clock = manualClock();
    const { limiter } = limiterOn({ capacity: 10, windowMs: 1_000 }, clock);
    const id = fresh();
    await limiter.observe(id, undefined, {});
    for (let i = 0; i < 10; i += 1) await limiter.acquire(id, undefined);
    const deadline = new AbortController();
    const waiting = limiter.acquire(id, undefined, deadline.signal).catch((e: unknown) => e);
    await until(() => clock.sleeping === 1, 'a call waiting for a token');
    deadline.abort();
    expect(await waiting).toMatchObject({ code: ErrorCode.RATE_LIMITED });
  });

  it('answers the budget without spending it', async () => {
    const limiter = createTokenBucketLimiter({
      store: createMemoryBucketStore({ budget: { capacity: 600, windowMs: 1_399_000 } }),
      maxWaitMs: 0,
    });
    const credential = { id: fresh() } as Parameters<typeof limiter.snapshot>[0];
    expect(await limiter.snapshot(credential)).toEqual({ limit: 600, remaining: 600, resetSec: 0 });
    await limiter.acquire(credential.id, undefined);
    expect(await limiter.snapshot(credential)).toMatchObject({ remaining: 599 });
  });
});
