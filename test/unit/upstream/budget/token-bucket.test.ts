/**
 * The token bucket algorithm, run against both stores: memory, and the leased store of replicas
 * sharing Redis (a replica's own memory store under leases of the shared bucket, one Lua script, on
 * Redis TIME unless the caller gives the time). Same cases, on a clock each test moves itself.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../../src/errors/error-codes.ts';
import { GatewayError } from '../../../../src/errors/gateway-errors.ts';
import type { CallPriority } from '../../../../src/upstream/budget/call-priority.ts';
import { createMemoryBucketStore } from '../../../../src/upstream/budget/memory-bucket-store.ts';
import type { RedisConnection } from '../../../../src/redis/redis-connection.ts';
import { CLASS_LEASE_MS } from '../../../../src/upstream/budget/leased-route-classes.ts';
import { createSharedBuckets } from '../../../../src/upstream/budget/shared-buckets.ts';
import {
  CALL_LEASE_MS,
  CONFIRMED_WINDOW,
  INITIAL_SEND_WINDOW,
  WINDOW_IDLE_MS,
  WINDOW_POLL_MS,
} from '../../../../src/upstream/budget/send-window.ts';
import type { RouteClass } from '../../../../src/upstream/upstream-routes.ts';
import { STALE_AFTER_MS } from '../../../../src/upstream/budget/bucket-state.ts';
import {
  createTokenBucketLimiter,
  type Grant,
  type LimiterOptions,
} from '../../../../src/upstream/budget/token-bucket.ts';
import {
  type BucketStore,
  type BudgetCorrection,
  type CredentialBudget,
  type TakeVerdict,
} from '../../../../src/upstream/budget/bucket-store.ts';
import { manualClock, until, type ManualClock } from '../../../support/clock.ts';
import {
  flushScripts,
  keysUnder,
  openTestConnection,
  redisTimeSec,
  silentLogger,
  testPrefix,
  testRedisAvailable,
  useTestRedis,
} from '../../../support/redis.ts';

const CLASS: RouteClass = { name: 'test-class', limit: 3, windowMs: 60_000, perCredential: false };
const PER_CREDENTIAL: RouteClass = { ...CLASS, name: 'per-cred', perCredential: true };

let n = 0;
const fresh = () => `cred-${process.pid}-${Date.now()}-${(n += 1)}`;

type StoreFactory = (budget: CredentialBudget, now: () => number) => BucketStore;

/**
 * A credential the upstream has answered (an answer without RateLimit headers): its view is fresh,
 * so its send window is the initial one, not the single call of a stale view.
 */
async function known(store: BucketStore): Promise<string> {
  const id = fresh();
  await store.correct(id, undefined, {});
  return id;
}

/** One take, answered at once (with its ticket) when allowed: as the gateway does with each call. */
async function call(
  store: BucketStore,
  id: string,
  routeClass?: RouteClass,
  priority?: CallPriority,
  answer: BudgetCorrection = {},
): Promise<TakeVerdict> {
  const verdict = await store.take(id, routeClass, { priority });
  if (verdict.allowed) await store.correct(id, routeClass, { ...answer, ticket: verdict.ticket });
  return verdict;
}

/** `count` calls one after another, each answered before the next (the send window stays out). */
async function callN(
  store: BucketStore,
  id: string,
  count: number,
  routeClass?: RouteClass,
  priority?: CallPriority,
) {
  const verdicts = [];
  for (let i = 0; i < count; i += 1) verdicts.push(await call(store, id, routeClass, priority));
  return verdicts;
}

/** Takes without answers until one is refused: the calls let out, and the refusal. */
async function takeUntilDenied(store: BucketStore, id: string, max = 200) {
  const tickets: string[] = [];
  for (let i = 0; i < max; i += 1) {
    const verdict = await store.take(id, undefined);
    if (!verdict.allowed) return { tickets, denied: verdict };
    tickets.push(verdict.ticket!);
  }
  throw new Error(`${max} takes without a refusal`);
}

/**
 * Widens a fresh credential's send window by answering one call at a time while the window is
 * kept full: returns the calls left in flight (as many as the window now holds).
 */
async function widen(store: BucketStore, id: string, answers: number): Promise<string[]> {
  const inFlight = (await takeUntilDenied(store, id)).tickets;
  for (let i = 0; i < answers; i += 1) {
    await store.correct(id, undefined, { ticket: inFlight.shift() });
    inFlight.push(...(await takeUntilDenied(store, id)).tickets);
  }
  return inFlight;
}

/**
 * `stampMs`: how much later than the call a class's log counts it from. A replica that leases
 * places stamps each at its lease's end (`CLASS_LEASE_MS`), the latest its call may go out: the log
 * keeps every call at least as long as the upstream's window does.
 */
function bucketCases(name: string, factory: () => StoreFactory, stampMs = 0) {
  describe(`${name} bucket store`, () => {
    let clock: ManualClock;
    beforeEach(() => {
      clock = manualClock();
    });
    const make = (budget: CredentialBudget) => factory()(budget, () => clock.now());

    it('gives the capacity, then refuses with the wait for the next token', async () => {
      const store = make({ capacity: 5, windowMs: 60_000 });
      const id = await known(store);
      const verdicts = await callN(store, id, 6);
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
      const first = await store.take(id, undefined);
      expect(
        await store.correct(id, undefined, { remaining: 3, resetMs: 30_000, ticket: first.ticket }),
      ).toMatchObject({ remaining: 3, resetSec: 30 });
      expect(await store.correct(id, undefined, { remaining: 8 })).toMatchObject({ remaining: 3 });
      const verdicts = await callN(store, id, 4);
      expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
      expect(verdicts[3]?.deniedBy).toBe('credential');
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
      await callN(store, id, 3);
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
      expect(denied).toMatchObject({ allowed: false, waitMs: 20_000, deniedBy: 'credential' });
      await clock.advance(19_999);
      expect((await store.take(id, undefined)).allowed).toBe(false);
      await clock.advance(1);
      expect((await store.take(id, undefined)).allowed).toBe(true);
    });

    it('peeks without spending; a credential never seen shows a whole window to its reset', async () => {
      const store = make({ capacity: 7, windowMs: 60_000 });
      const id = fresh();
      // No window is running: the next call starts one, which resets 60 s later (not "0 s").
      expect(await store.peek(id)).toEqual({
        limit: 7,
        remaining: 7,
        resetSec: 60,
        writeReserve: 0,
      });
      await store.take(id, undefined);
      expect(await store.peek(id)).toMatchObject({ remaining: 6 });
      expect(await store.peek(id)).toMatchObject({ remaining: 6 });
    });

    it('keeps a route class to its limit in any window, across credentials', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, name: `class-${fresh()}` };
      const [a, b] = [await known(store), await known(store)];
      const first = [
        ...(await callN(store, a, 2, routeClass)),
        ...(await callN(store, b, 2, routeClass)),
      ];
      expect(first.map((v) => v.allowed)).toEqual([true, true, true, false]);
      expect(first[3]).toMatchObject({ deniedBy: 'route-class' });
      // The oldest call leaves the window a whole window after it was made.
      expect(first[3]?.waitMs).toBe(routeClass.windowMs + stampMs);
      // A refused call spends nothing from the credential's bucket.
      expect(first[3]?.budget.remaining).toBe(99); // b: one allowed, one refused
      await clock.advance(routeClass.windowMs + stampMs - 1);
      expect((await store.take(b, routeClass)).allowed).toBe(false);
      await clock.advance(1);
      expect((await store.take(b, routeClass)).allowed).toBe(true);
    });

    it('keeps per-credential classes apart', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...PER_CREDENTIAL, name: `pc-${fresh()}` };
      const [a, b] = [await known(store), await known(store)];
      const verdicts = await callN(store, a, 4, routeClass);
      expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
      expect(verdicts[3]?.deniedBy).toBe('route-class');
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

    it('lets a fresh credential have INITIAL_SEND_WINDOW calls out unanswered, then denies by the window', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = await known(store);
      const { tickets, denied } = await takeUntilDenied(store, id);
      expect(tickets).toHaveLength(INITIAL_SEND_WINDOW);
      expect(new Set(tickets).size).toBe(INITIAL_SEND_WINDOW);
      expect(denied).toMatchObject({ allowed: false, deniedBy: 'window', ticket: undefined });
      // Ask again in a moment: an answer may come any time.
      expect(denied.waitMs).toBeGreaterThanOrEqual(1);
      expect(denied.waitMs).toBeLessThanOrEqual(WINDOW_POLL_MS);
      // The refusal spent nothing.
      expect(denied.budget.remaining).toBe(100 - INITIAL_SEND_WINDOW);
      expect(await store.peek(id)).toMatchObject({ remaining: 100 - INITIAL_SEND_WINDOW });
    });

    it('widens the window by one per answer while it is kept full', async () => {
      const store = make({ capacity: 1_000, windowMs: 60_000 });
      const id = await known(store);
      const inFlight = (await takeUntilDenied(store, id)).tickets;
      for (let k = 1; k <= 6; k += 1) {
        await store.correct(id, undefined, { ticket: inFlight.shift() });
        const more = await takeUntilDenied(store, id);
        // One answer left one place, and the window grew by one: two more go.
        expect(more.tickets).toHaveLength(2);
        expect(more.denied.deniedBy).toBe('window');
        inFlight.push(...more.tickets);
        expect(inFlight).toHaveLength(INITIAL_SEND_WINDOW + k);
      }
    });

    it('lets a whole round out within a quarter of a round trip of an answer, then only the window', async () => {
      const store = make({ capacity: 1_000, windowMs: 60_000 });
      const id = await known(store);
      // A call answered 200 ms after it was sent: the credential's round trip is 200 ms.
      const probe = await store.take(id, undefined);
      await clock.advance(200);
      await store.correct(id, undefined, { remaining: 900, ticket: probe.ticket });
      // 20 ms later (a tenth of the round trip), a screen's next round: all of it goes at once.
      await clock.advance(20);
      const round = await takeUntilDenied(store, id);
      expect(round.tickets).toHaveLength(CONFIRMED_WINDOW);
      expect(round.denied.deniedBy).toBe('window');
      for (const ticket of round.tickets) await store.release(id, undefined, ticket);
      // A quarter of a round trip after that answer, the window is the aged one again.
      await clock.advance(30);
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(INITIAL_SEND_WINDOW);
    });

    it('never widens the window beyond twice the calls that were in flight', async () => {
      const store = make({ capacity: 1_000, windowMs: 60_000 });
      const id = await known(store);
      // Twenty calls answered one at a time: a window nobody filled proves nothing.
      expect((await callN(store, id, 20)).every((v) => v.allowed)).toBe(true);
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(INITIAL_SEND_WINDOW);

      // A window widened to 8, then an answer while only 3 were in flight: 2 × 3, not 9.
      const other = await known(store);
      const inFlight = await widen(store, other, 4);
      expect(inFlight).toHaveLength(8);
      for (const ticket of inFlight.splice(0, 5)) await store.release(other, undefined, ticket);
      await store.correct(other, undefined, { ticket: inFlight.shift() });
      expect(inFlight).toHaveLength(2);
      expect((await takeUntilDenied(store, other)).tickets).toHaveLength(6 - 2);
    });

    it("halves the window on a 429 of the credential's window", async () => {
      const store = make({ capacity: 1_000, windowMs: 60_000 });
      const id = await known(store);
      const inFlight = await widen(store, id, 4);
      expect(inFlight).toHaveLength(8);
      // A surprise: another client spent the window. The window halves to 4.
      await store.correct(id, undefined, { blockMs: 1, ticket: inFlight.shift() });
      await clock.advance(1);
      // Another call's answer: the window is open again, 600 left; the window widens by one, to 5.
      await store.correct(id, undefined, {
        limit: 1_000,
        remaining: 600,
        resetMs: 30_000,
        ticket: inFlight.shift(),
      });
      expect(inFlight).toHaveLength(6);
      // Past a quarter of the round trip (1 ms here) the answer no longer confirms a whole round:
      // 6 in flight and a window of 5 (without the halving it would be 9 + 1).
      await clock.advance(1);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'window' });
      await store.release(id, undefined, inFlight.shift()!);
      await store.release(id, undefined, inFlight.shift()!);
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(1);
    });

    it('shrinks a wide window back to the initial one by halvings in silence', async () => {
      const store = make({ capacity: 1_000, windowMs: 60_000 });
      const id = await known(store);
      const inFlight = await widen(store, id, 12);
      expect(inFlight).toHaveLength(16);
      for (const ticket of inFlight) await store.release(id, undefined, ticket);
      const windowNow = async () => {
        const { tickets } = await takeUntilDenied(store, id);
        for (const ticket of tickets) await store.release(id, undefined, ticket);
        return tickets.length;
      };
      expect(await windowNow()).toBe(16);
      await clock.advance(WINDOW_IDLE_MS - 1);
      expect(await windowNow()).toBe(16);
      await clock.advance(1);
      expect(await windowNow()).toBe(8);
      await clock.advance(WINDOW_IDLE_MS);
      expect(await windowNow()).toBe(INITIAL_SEND_WINDOW);
      await clock.advance(10 * WINDOW_IDLE_MS);
      expect(await windowNow()).toBe(INITIAL_SEND_WINDOW);
    });

    it('lets one call out for a credential it has not heard of, then what the answer leaves', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = fresh();
      const probe = await store.take(id, undefined);
      expect(probe).toMatchObject({ allowed: true });
      const waiting = await store.take(id, undefined);
      expect(waiting).toMatchObject({ allowed: false, deniedBy: 'window' });
      expect(waiting.waitMs).toBeLessThanOrEqual(WINDOW_POLL_MS);
      // The probe's answer: another client spent the window down to 3.
      await store.correct(id, undefined, {
        limit: 100,
        remaining: 3,
        resetMs: 30_000,
        ticket: probe.ticket,
      });
      const verdicts = await callN(store, id, 4);
      expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
      expect(verdicts[3]?.deniedBy).toBe('credential');
    });

    it('lets one call out at a time for a view gone stale without answers', async () => {
      const store = make({ capacity: 100, windowMs: 600_000 });
      const id = await known(store);
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(INITIAL_SEND_WINDOW);
      await clock.advance(STALE_AFTER_MS);
      // The leases of those calls ended long ago; the view is a minute old: one call.
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(1);
    });

    it('frees a place in the window when a call is released by its ticket, and only then', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = await known(store);
      const { tickets } = await takeUntilDenied(store, id);
      // Another ticket (not one of this credential's calls) frees nothing.
      await store.release(id, undefined, 'not-a-ticket-of-this-credential');
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'window' });
      await store.release(id, undefined, tickets[2]!);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: true });
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'window' });
      // Released, not refunded: every attempt counts against the window.
      expect(await store.peek(id)).toMatchObject({ remaining: 100 - INITIAL_SEND_WINDOW - 1 });
    });

    it('ends the lease of an unanswered call after CALL_LEASE_MS', async () => {
      const store = make({ capacity: 100, windowMs: 600_000 });
      const id = await known(store);
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(INITIAL_SEND_WINDOW);
      await clock.advance(CALL_LEASE_MS - 1);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'window' });
      await clock.advance(1);
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(INITIAL_SEND_WINDOW);
    });

    it("ends each unanswered call's lease CALL_LEASE_MS after its own take, earliest first", async () => {
      const store = make({ capacity: 100, windowMs: 600_000 });
      const id = await known(store);
      const first = [
        (await store.take(id, undefined)).ticket,
        (await store.take(id, undefined)).ticket,
      ];
      await clock.advance(2_000);
      const later = (await takeUntilDenied(store, id)).tickets;
      expect(later).toHaveLength(INITIAL_SEND_WINDOW - 2);
      // The first call is answered: the second one's lease is now the earliest. Its place is taken
      // again at once (a lease from +2 s).
      await store.release(id, undefined, first[0]!);
      expect((await store.take(id, undefined)).allowed).toBe(true);
      await clock.advance(CALL_LEASE_MS - 2_000 - 3);
      // The refusal names the end of the earliest lease left (3 ms away), not the poll interval.
      expect(await store.take(id, undefined)).toMatchObject({ deniedBy: 'window', waitMs: 3 });
      await clock.advance(3);
      // Only the second call's lease ended: one place.
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(1);
      await clock.advance(2_000);
      // Then the three taken at +2 s.
      expect((await takeUntilDenied(store, id)).tickets).toHaveLength(INITIAL_SEND_WINDOW - 1);
    });

    it('keeps a token the upstream refused (401) unproven: one call at a time', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = fresh();
      const first = await store.take(id, undefined);
      expect(first.allowed).toBe(true);
      await store.correct(id, undefined, {
        limit: 100,
        remaining: 90,
        resetMs: 30_000,
        unauthenticated: true,
        ticket: first.ticket,
      });
      expect((await store.take(id, undefined)).allowed).toBe(true);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'window' });
    });

    it("gives a 401'd call's own route-class entry back, not another call's", async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, limit: 4, name: `refund-${fresh()}` };
      const [tenant, other, third] = [await known(store), await known(store), await known(store)];
      // The class's log: tenant at 0 s, junk at 1 s, tenant at 2 s and 3 s.
      expect((await call(store, tenant, routeClass)).allowed).toBe(true);
      await clock.advance(1_000);
      const junk = fresh();
      const junkCall = await store.take(junk, routeClass);
      expect(junkCall.allowed).toBe(true);
      await clock.advance(1_000);
      expect((await call(store, tenant, routeClass)).allowed).toBe(true);
      await clock.advance(1_000);
      expect((await call(store, tenant, routeClass)).allowed).toBe(true);
      expect((await store.take(other, routeClass)).allowed).toBe(false); // the class is full
      // The junk token's 401: the upstream never counted it, so the class has room again…
      await store.correct(junk, routeClass, { unauthenticated: true, ticket: junkCall.ticket });
      expect((await call(store, other, routeClass)).allowed).toBe(true);
      // …and the entry that left is the junk call's (1 s): when the 0 s call leaves the window,
      // the one after it to leave is the 2 s call.
      await clock.advance(60_000 - 3_000 + stampMs);
      expect((await call(store, third, routeClass)).allowed).toBe(true);
      const next = await store.take(third, routeClass);
      expect(next).toMatchObject({ allowed: false, deniedBy: 'route-class', waitMs: 2_000 });
    });

    it('answers a short wait while a full shared class holds unproven calls in flight, the full wait once they are answered', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, limit: 4, name: `unproven-${fresh()}` };
      const [tenant, other] = [await known(store), await known(store)];
      expect((await callN(store, tenant, 2, routeClass)).every((v) => v.allowed)).toBe(true);
      await clock.advance(1_000);
      // Two tokens the upstream has never answered: their calls are in flight.
      const [a, b] = [fresh(), fresh()];
      const calls = [await store.take(a, routeClass), await store.take(b, routeClass)];
      expect(calls.every((v) => v.allowed)).toBe(true);
      // Full only because of them: a 401 may give room back any moment.
      const soon = await store.take(other, routeClass);
      expect(soon).toMatchObject({ allowed: false, deniedBy: 'route-class' });
      expect(soon.waitMs).toBeLessThanOrEqual(WINDOW_POLL_MS);
      // One is answered (proven, counted): the other is still in flight.
      await store.correct(a, routeClass, { ticket: calls[0]!.ticket });
      expect((await store.take(other, routeClass)).waitMs).toBeLessThanOrEqual(WINDOW_POLL_MS);
      // The other ends without an answer: nothing unproven in flight, the wait is the window's —
      // until the oldest entry leaves: the tenant's first call (0 s, or the end of its lease of
      // places), or else the unproven calls (1 s, counted from when they went out, one by one).
      await store.release(b, routeClass, calls[1]!.ticket!);
      expect(await store.take(other, routeClass)).toMatchObject({
        allowed: false,
        deniedBy: 'route-class',
        waitMs: 60_000 - 1_000 + Math.min(stampMs, 1_000),
      });
    });

    it('keeps the write reserve: reads stop at a tenth left, background and explorer earlier', async () => {
      const store = make({ capacity: 100, windowMs: 600_000, writeReserveShare: 0.1 });
      const id = fresh();
      await store.correct(id, undefined, { limit: 100, remaining: 21, resetMs: 300_000 });
      expect(await store.peek(id)).toMatchObject({ remaining: 21, writeReserve: 10 });
      const leftAfter = async (priority: CallPriority) => {
        const verdicts = await callN(store, id, 30, undefined, priority);
        const refusal = verdicts.find((v) => !v.allowed);
        return {
          sent: verdicts.filter((v) => v.allowed).length,
          refusal,
          left: (await store.peek(id)).remaining,
        };
      };
      const explorer = await leftAfter('explorer');
      expect(explorer).toMatchObject({ sent: 1, left: 20 });
      // The wait: until the window's end, when it is known.
      expect(explorer.refusal).toMatchObject({ deniedBy: 'reserve', waitMs: 300_000 });
      expect(await leftAfter('background')).toMatchObject({
        sent: 5,
        left: 15,
        refusal: { deniedBy: 'reserve' },
      });
      expect(await leftAfter('read')).toMatchObject({
        sent: 5,
        left: 10,
        refusal: { deniedBy: 'reserve', waitMs: 300_000, budget: { writeReserve: 10 } },
      });
      // Writes spend the window to its last call.
      expect(await leftAfter('write')).toMatchObject({
        sent: 10,
        left: 0,
        refusal: { deniedBy: 'credential' },
      });
    });

    it("keeps the end of a route class for reads and writes: the explorer stops first, then background, in a tenant's share and in the class", async () => {
      const store = make({ capacity: 1_000, windowMs: 600_000, writeReserveShare: 0.1 });
      // A class every credential shares, of 100 a minute: one credential's fair share is 80.
      const routeClass = { ...CLASS, limit: 100, name: `priorities-${fresh()}` };
      const [tenant, other] = [await known(store), await known(store)];
      const sendUntilRefused = async (id: string, priority: CallPriority, stepMs = 0) => {
        for (let sent = 0; sent <= 100; sent += 1) {
          const verdict = await call(store, id, routeClass, priority);
          if (!verdict.allowed) return { sent, refusal: verdict };
          await clock.advance(stepMs);
        }
        throw new Error(`${priority}: 100 calls without a refusal`);
      };
      // The tenant's share: the explorer stops at 72 (a tenth of 80 kept), one call every 100 ms…
      const explorer = await sendUntilRefused(tenant, 'explorer', 100);
      expect(explorer).toMatchObject({ sent: 72, refusal: { deniedBy: 'route-class' } });
      // …background at 76 (a twentieth kept), reads (and writes) use the share to its end.
      expect(await sendUntilRefused(tenant, 'background')).toMatchObject({ sent: 4 });
      expect(await sendUntilRefused(tenant, 'read')).toMatchObject({ sent: 4 });
      expect(await store.take(tenant, routeClass, { priority: 'write' })).toMatchObject({
        allowed: false,
        deniedBy: 'route-class',
      });
      // The wait of a refused explorer call: until its room is back, when the 9th call (800 ms)
      // leaves the window (80 in it, room for 72), not the first one — counted from the call, or
      // from the end of the lease of places it came from (at most `stampMs` later).
      const refused = await store.take(tenant, routeClass, { priority: 'explorer' });
      expect(refused).toMatchObject({ allowed: false, deniedBy: 'route-class' });
      expect(refused.waitMs).toBeGreaterThanOrEqual(60_000 + 800 - 7_200);
      expect(refused.waitMs).toBeLessThanOrEqual(60_000 + 800 - 7_200 + stampMs);
      // The class as a whole: the explorer stops at 90 of 100, background at 95, reads at 100.
      expect(await sendUntilRefused(other, 'explorer')).toMatchObject({ sent: 10 });
      expect(await sendUntilRefused(other, 'background')).toMatchObject({ sent: 5 });
      expect(await sendUntilRefused(other, 'read')).toMatchObject({ sent: 5 });
      // A class of one credential keeps the same room for reads.
      const own = { ...PER_CREDENTIAL, limit: 100, name: `own-${fresh()}` };
      const counts: number[] = [];
      for (const priority of ['explorer', 'background', 'read'] as const) {
        let sent = 0;
        while ((await call(store, tenant, own, priority)).allowed) sent += 1;
        counts.push(sent);
      }
      expect(counts).toEqual([90, 5, 5]);
    });

    it('lets a stale view out again once the known window has ended, one call at a time', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = await known(store);
      await store.correct(id, undefined, { remaining: 50, resetMs: 30_000 });
      expect((await callN(store, id, 2)).every((v) => v.allowed)).toBe(true);
      await clock.advance(30_000);
      expect((await store.take(id, undefined)).allowed).toBe(true);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'window' });
    });

    it('honours a Retry-After longer than the window for one window, then lets one call out', async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const id = await known(store);
      await store.correct(id, undefined, { blockMs: 86_400_000 });
      const blocked = await store.take(id, undefined);
      expect(blocked).toMatchObject({ allowed: false, deniedBy: 'credential', waitMs: 60_000 });
      await clock.advance(60_000);
      expect((await store.take(id, undefined)).allowed).toBe(true);
      expect(await store.take(id, undefined)).toMatchObject({ allowed: false, deniedBy: 'window' });
    });

    it("keeps a fifth of a class every credential shares out of any one credential's reach", async () => {
      const store = make({ capacity: 100, windowMs: 60_000 });
      const routeClass = { ...CLASS, limit: 10, name: `fair-${fresh()}` };
      const [a, b] = [await known(store), await known(store)];
      const burst = await callN(store, a, 9, routeClass);
      expect(burst.filter((v) => v.allowed)).toHaveLength(8);
      expect(burst[8]).toMatchObject({ allowed: false, deniedBy: 'route-class' });
      expect((await callN(store, b, 2, routeClass)).every((v) => v.allowed)).toBe(true);
    });
  });
}

bucketCases('memory', () => (budget, now) => createMemoryBucketStore({ budget, now }));

describe.skipIf(!testRedisAvailable)('replicas sharing Redis (leased buckets)', () => {
  const prefix = testPrefix('bucket');
  const redis = useTestRedis(prefix);
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const one of opened.splice(0)) await one.close();
  });

  /** A replica's buckets on `connection` (default the shared test connection). */
  const replica = (
    budget: CredentialBudget,
    options: { now?: () => number; connection?: RedisConnection } = {},
  ) => {
    const shared = createSharedBuckets({
      redis: options.connection ?? redis.connection(),
      budget,
      prefix,
      logger: silentLogger,
      ...(options.now ? { now: options.now } : {}),
    });
    opened.push(shared);
    return shared.store;
  };

  bucketCases('leased', () => (budget, now) => replica(budget, { now }), CLASS_LEASE_MS);

  it("runs on Redis's clock when the caller gives none", async () => {
    const store = replica({ capacity: 5, windowMs: 60_000 });
    const id = fresh();
    const first = await store.take(id, undefined);
    expect(first.allowed).toBe(true);
    const before = await redisTimeSec(redis.admin());
    await store.correct(id, undefined, { resetMs: 30_000, ticket: first.ticket });
    // The answer rides to the shared bucket with the replica's next run (a give-back here).
    await store.giveBackAll();
    const after = await redisTimeSec(redis.admin());
    const bucket = await redis.admin().hGetAll(`${prefix}:bucket:{${id}}`);
    expect(bucket).toHaveProperty('resetAt');
    const resetAt = Number(bucket.resetAt);
    // Whole seconds of Redis TIME around the call bracket the script's own reading of it.
    expect(resetAt - 30_000).toBeGreaterThanOrEqual(Number(before) * 1000 - 1000);
    expect(resetAt - 30_000).toBeLessThan((Number(after) + 1) * 1000);
  });

  /** The same Redis bucket through two replicas' connections. */
  async function twoReplicas(budget: CredentialBudget) {
    const other = await openTestConnection();
    opened.push(other);
    return [replica(budget), replica(budget, { connection: other })] as const;
  }

  it('never lets two replicas together take more than the window, however they race', async () => {
    const replicas = await twoReplicas({ capacity: 20, windowMs: 60_000 });
    const id = fresh();
    // 60 calls at once, half on each replica; each is answered when sent (with what the upstream
    // would say is left), and asks again while the send window holds it back or while the other
    // replica holds tokens it is asked to give back (a short wait), as the limiter does.
    let sent = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const replica = replicas[i % 2]!;
        for (;;) {
          const verdict = await replica.take(id, undefined);
          if (verdict.allowed) {
            sent += 1;
            await replica.correct(id, undefined, {
              ticket: verdict.ticket,
              limit: 20,
              remaining: 20 - sent,
              resetMs: 600_000,
            });
            return 'sent';
          }
          if (verdict.deniedBy !== 'window' && verdict.waitMs > 1_000) return verdict.deniedBy;
          // Asks again as soon as the other calls had their turn (their answers, a give-back).
          await new Promise((resolve) => setImmediate(resolve));
        }
      }),
    );
    expect(outcomes.filter((o) => o === 'sent')).toHaveLength(20);
    expect(outcomes.filter((o) => o === 'credential')).toHaveLength(40);
  });

  it('lets one call out between two replicas for a view never answered: the probe', async () => {
    const replicas = await twoReplicas({ capacity: 600, windowMs: 1_399_000 });
    const race = (id: string) =>
      Promise.all(Array.from({ length: 40 }, (_, i) => replicas[i % 2]!.take(id, undefined)));
    const unknown = await race(fresh());
    expect(unknown.filter((v) => v.allowed)).toHaveLength(1);
    expect(unknown.filter((v) => v.deniedBy === 'window')).toHaveLength(39);
  });

  it('loads its scripts again on a node that lost them (SCRIPT FLUSH on every node)', async () => {
    const store = replica({ capacity: 5, windowMs: 60_000 });
    const id = fresh();
    const first = await store.take(id, CLASS);
    expect(first.allowed).toBe(true);
    await flushScripts(redis.admin());
    // The answer, then a give-back and the next take: each runs where no script is loaded any more.
    await store.correct(id, CLASS, { ticket: first.ticket, remaining: 4, unauthenticated: true });
    await store.giveBackAll();
    const second = await store.take(id, CLASS);
    expect(second).toMatchObject({ allowed: true });
    expect(await store.peek(id)).toMatchObject({ remaining: 3 });
  });

  it('keeps no token, only the HMAC id, in its keys', async () => {
    const store = replica({ capacity: 5, windowMs: 60_000 });
    await store.correct('0123abcd', undefined, { limit: 5, remaining: 5, resetMs: 60_000 });
    await store.take('0123abcd', CLASS);
    const keys = await keysUnder(redis.admin(), prefix);
    expect(keys).toContain(`${prefix}:bucket:{0123abcd}`);
    expect(keys).toContain(`${prefix}:class:{test-class}`);
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

/** A memory store and a limiter on one clock, waiting at most 250 ms for a token (by default). */
function limiterOn(
  budget: CredentialBudget,
  clock: { now: () => number; sleep: (ms: number) => Promise<void> },
  options: Partial<LimiterOptions> = {},
) {
  const store = createMemoryBucketStore({ budget, now: clock.now });
  const limiter = createTokenBucketLimiter({
    store,
    maxWaitMs: 250,
    now: clock.now,
    sleep: clock.sleep,
    ...options,
  });
  return { store, limiter };
}

const READ = { priority: 'read' } as const;

describe('token bucket limiter', () => {
  /** One call through the limiter, answered (with its ticket) as the gateway answers it. */
  const sendOne = async (
    limiter: ReturnType<typeof limiterOn>['limiter'],
    id: string,
    answer: BudgetCorrection = {},
  ) => {
    const grant = await limiter.acquire(id, undefined, READ);
    await limiter.observe(id, undefined, { ...answer, ticket: grant.ticket });
    return grant;
  };

  it('waits for a token that comes within the allowed wait', async () => {
    const time = sleepRecorder();
    const { limiter } = limiterOn({ capacity: 10, windowMs: 1_000 }, time);
    const id = fresh();
    await limiter.observe(id, undefined, {});
    for (let i = 0; i < 10; i += 1) await sendOne(limiter, id);
    expect(time.slept).toEqual([]);
    await sendOne(limiter, id);
    // One token per windowMs / capacity: the next one comes 100 ms later, and one wait gets it.
    expect(time.slept).toEqual([100]);
  });

  it('fails with RATE_LIMITED and retryAfterSec when waiting would not help', async () => {
    const time = sleepRecorder();
    const { limiter } = limiterOn({ capacity: 2, windowMs: 60_000 }, time);
    const id = fresh();
    await limiter.observe(id, undefined, { remaining: 0, resetMs: 42_000 });
    const error = await limiter.acquire(id, undefined, READ).catch((e: unknown) => e);
    expect(time.slept).toEqual([]); // no pointless wait
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { retryAfterSec: 42, limiter: 'CREDENTIAL' },
    });
  });

  it('waits for room that comes before the deadline, and gets it', async () => {
    const time = sleepRecorder();
    const { limiter } = limiterOn({ capacity: 10, windowMs: 600_000 }, time, {
      maxWaitMs: 5_000,
    });
    const id = fresh();
    await limiter.observe(id, undefined, { limit: 10, remaining: 0, resetMs: 2_500 });
    const grant = await limiter.acquire(id, undefined, {
      priority: 'read',
      deadlineAt: time.now() + 3_000,
    });
    expect(time.slept).toEqual([2_500]);
    expect(grant.budget).toMatchObject({ limit: 10, remaining: 9 });
    expect(typeof grant.ticket).toBe('string');
  });

  it('refuses at once, with retryAfterSec, a call whose room comes after its deadline', async () => {
    const time = sleepRecorder();
    const { limiter } = limiterOn({ capacity: 10, windowMs: 600_000 }, time, {
      maxWaitMs: 5_000,
    });
    const id = fresh();
    await limiter.observe(id, undefined, { limit: 10, remaining: 0, resetMs: 2_500 });
    // Within UPSTREAM_BUCKET_WAIT_MS, but after the call's own deadline: no use waiting.
    const error = await limiter
      .acquire(id, undefined, { priority: 'read', deadlineAt: time.now() + 2_000 })
      .catch((e: unknown) => e);
    expect(time.slept).toEqual([]);
    expect(error).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { retryAfterSec: 3, limiter: 'CREDENTIAL' },
    });
  });

  it('tells onWait and onRefuse which bucket held the call, and its priority', async () => {
    const time = sleepRecorder();
    const waits: string[] = [];
    const refusals: string[] = [];
    const routeClass = { ...CLASS, limit: 1, name: `told-${fresh()}` };
    const budget = { capacity: 100, windowMs: 1_000, writeReserveShare: 0.1 };
    const { limiter } = limiterOn(budget, time, {
      onWait: (bucket, priority) => waits.push(`${bucket}/${priority}`),
      onRefuse: (bucket, priority) => refusals.push(`${bucket}/${priority}`),
    });
    // A window of unknown end (one token per 10 ms), 11 left: a read reaches the write reserve
    // after one call, and waits 10 ms for the next token.
    const reader = fresh();
    await limiter.observe(reader, undefined, { limit: 100, remaining: 11 });
    await sendOne(limiter, reader);
    await sendOne(limiter, reader);
    // Nothing left: a write waits for the credential's next token.
    const writer = fresh();
    await limiter.observe(writer, undefined, { limit: 100, remaining: 0 });
    await limiter.acquire(writer, undefined, { priority: 'write' });
    expect(waits).toEqual(['reserve/read', 'credential/write']);
    // 15 left until the window's end in a minute: the explorer's reserve (20) refuses at once.
    const explorer = fresh();
    await limiter.observe(explorer, undefined, { limit: 100, remaining: 15, resetMs: 60_000 });
    const reserved = await limiter
      .acquire(explorer, undefined, { priority: 'explorer' })
      .catch((e: unknown) => e);
    expect(reserved).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { retryAfterSec: 60, limiter: 'RESERVE' },
    });
    // A route class of one call a minute: a background call after a write is refused by it.
    const poller = fresh();
    await limiter.observe(poller, undefined, {});
    const grant = await limiter.acquire(poller, routeClass, { priority: 'write' });
    await limiter.observe(poller, routeClass, { ticket: grant.ticket });
    const full = await limiter
      .acquire(poller, routeClass, { priority: 'background' })
      .catch((e: unknown) => e);
    expect(full).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { limiter: 'ROUTE_CLASS' },
    });
    expect(refusals).toEqual(['reserve/explorer', `${routeClass.name}/background`]);
    expect(waits).toHaveLength(2);
  });

  it("holds a stale credential's calls for its first answer, then lets out only the window and what is left", async () => {
    const clock = manualClock();
    const { limiter } = limiterOn({ capacity: 600, windowMs: 1_399_000 }, clock);
    const id = fresh();
    // One query with 20 root fields: 20 calls at once, for a credential another client has used.
    const grants: Grant[] = [];
    let settled = 0;
    // Calls sent and not answered yet, at most (the upstream answers each round's calls in turn).
    let maxInFlight = 0;
    let answered = 0;
    const outcomes = Array.from({ length: 20 }, () =>
      limiter.acquire(id, undefined, READ).then(
        (grant) => {
          grants.push(grant);
          maxInFlight = Math.max(maxInFlight, grants.length - answered);
          settled += 1;
          return 'sent';
        },
        (error: unknown) => {
          settled += 1;
          return error;
        },
      ),
    );
    // Each round: every call is either settled or waiting; the upstream then answers the calls
    // sent, saying what is left (5 after the first), and time moves to the next poll.
    const sentPerRound: number[] = [];
    let left = 5;
    for (let round = 0; round < 10 && settled < 20; round += 1) {
      await until(() => settled + clock.sleeping === 20, 'every call sent, refused or waiting');
      sentPerRound.push(grants.length - answered);
      for (const grant of grants.slice(answered)) {
        if (answered > 0) left -= 1;
        await limiter.observe(id, undefined, {
          limit: 600,
          remaining: left,
          resetMs: 600_000,
          ticket: grant.ticket,
        });
        answered += 1;
      }
      await clock.advance(WINDOW_POLL_MS);
    }
    const results = await Promise.all(outcomes);
    // One call first, alone; after its answer (5 left) never more than the initial window at once.
    expect(sentPerRound[0]).toBe(1);
    expect(maxInFlight).toBe(INITIAL_SEND_WINDOW);
    expect(results.filter((o) => o === 'sent')).toHaveLength(1 + 5);
    const refused = results.filter((o) => o !== 'sent');
    expect(refused).toHaveLength(14);
    for (const error of refused) {
      expect(error).toMatchObject({
        code: ErrorCode.RATE_LIMITED,
        details: { retryAfterSec: 600, limiter: 'CREDENTIAL' },
      });
    }
  });

  it('lets a call waiting for the window go as soon as the call in flight is released', async () => {
    const clock = manualClock();
    const { limiter } = limiterOn({ capacity: 600, windowMs: 1_399_000 }, clock);
    const id = fresh();
    const first = await limiter.acquire(id, undefined, READ); // never answered: a window of one
    const waiting = limiter.acquire(id, undefined, READ);
    await until(() => clock.sleeping === 1, 'a call waiting for the window');
    await limiter.release(id, undefined, first.ticket); // its connection was refused
    await clock.advance(WINDOW_POLL_MS);
    // Sent, not refused as if the budget were spent.
    await expect(waiting).resolves.toMatchObject({ budget: { remaining: 598 } });
  });

  it('wakes a call waiting for the window on the answer, without waiting for the next poll', async () => {
    const clock = manualClock();
    const { limiter } = limiterOn({ capacity: 600, windowMs: 1_399_000 }, clock);
    const id = fresh();
    const first = await limiter.acquire(id, undefined, READ);
    const waiting = limiter.acquire(id, undefined, READ);
    await until(() => clock.sleeping === 1, 'a call waiting for the window');
    // The clock does not move: only the answer can let it go.
    await limiter.observe(id, undefined, { ticket: first.ticket });
    await expect(waiting).resolves.toMatchObject({ budget: { remaining: 598 } });
  });

  it('ends a wait for the window at the signal, as the upstream not answering', async () => {
    const clock = manualClock();
    const { store, limiter } = limiterOn({ capacity: 600, windowMs: 1_399_000 }, clock);
    const id = fresh();
    await limiter.acquire(id, undefined, READ); // the first call, which hangs
    const deadline = new AbortController();
    const waiting = limiter
      .acquire(id, undefined, { priority: 'read', signal: deadline.signal })
      .catch((e: unknown) => e);
    await until(() => clock.sleeping === 1, 'a call waiting for the window');
    deadline.abort();
    const error = await waiting;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: ErrorCode.UPSTREAM_TIMEOUT });
    expect(await store.peek(id)).toMatchObject({ remaining: 599 }); // it took nothing
  });

  it('ends a wait for a token at the signal with RATE_LIMITED', async () => {
    const clock = manualClock();
    const { limiter } = limiterOn({ capacity: 10, windowMs: 1_000 }, clock);
    const id = fresh();
    await limiter.observe(id, undefined, {});
    for (let i = 0; i < 10; i += 1) {
      const grant = await limiter.acquire(id, undefined, READ);
      await limiter.observe(id, undefined, { ticket: grant.ticket });
    }
    const deadline = new AbortController();
    const waiting = limiter
      .acquire(id, undefined, { priority: 'read', signal: deadline.signal })
      .catch((e: unknown) => e);
    await until(() => clock.sleeping === 1, 'a call waiting for a token');
    deadline.abort();
    expect(await waiting).toMatchObject({ code: ErrorCode.RATE_LIMITED });
  });

  it('answers the budget without spending it', async () => {
    const limiter = createTokenBucketLimiter({
      store: createMemoryBucketStore({
        budget: { capacity: 600, windowMs: 1_399_000, writeReserveShare: 0.1 },
      }),
      maxWaitMs: 0,
    });
    const credential = { id: fresh() } as Parameters<typeof limiter.snapshot>[0];
    expect(await limiter.snapshot(credential)).toEqual({
      limit: 600,
      remaining: 600,
      resetSec: 1399, // the configured window: none is running yet
      writeReserve: 60,
    });
    await limiter.acquire(credential.id, undefined, READ);
    expect(await limiter.snapshot(credential)).toMatchObject({ remaining: 599 });
  });
});
