/**
 * The replica side of token leases (`leased-bucket-store.ts`) against a lease script the test
 * answers by hand, so that runs and answers cross exactly as the test says: what the replica
 * reports to the shared bucket with each run, and when a call asks for itself.
 */
import { describe, expect, it } from 'vitest';
import { deferred, manualClock, type Deferred } from '../../../support/clock.ts';
import { createLeasedBucketStore } from '../../../../src/upstream/budget/leased-bucket-store.ts';
import { createMemoryBucketStore } from '../../../../src/upstream/budget/memory-bucket-store.ts';
import type {
  LeaseReply,
  LeaseRun,
  RedisLeases,
} from '../../../../src/upstream/budget/redis-leases.ts';
import type { LeasedRouteClasses } from '../../../../src/upstream/budget/leased-route-classes.ts';

const budget = { capacity: 100, windowMs: 86_400_000, writeReserveShare: 0 };

const reply = (fields: Partial<LeaseReply>): LeaseReply => ({
  grant: 0,
  carried: 0,
  sharedLeft: 10,
  cap: 100,
  resetMs: 86_400_000,
  durationMs: 30_000,
  fresh: true,
  othersHeld: 0,
  waitMs: 0,
  probing: false,
  ...fields,
});

/** A lease script whose every run waits for the test to answer it. */
function scriptByHand() {
  const runs: { run: LeaseRun; answer: Deferred<LeaseReply> }[] = [];
  const leases: RedisLeases = {
    lease: (_credentialId, run) => {
      const answer = deferred<LeaseReply>();
      runs.push({ run, answer });
      return answer.promise;
    },
    peek: async () => reply({}),
  };
  return { leases, runs };
}

/** No call here has a route class. */
const noClasses = { giveBackAll: async () => undefined } as unknown as LeasedRouteClasses;

/** A replica whose every lease run waits for the test's answer, on a clock only the test moves. */
function replicaOnScriptByHand() {
  const clock = manualClock();
  const { leases, runs } = scriptByHand();
  const store = createLeasedBucketStore({
    leases,
    classes: noClasses,
    local: createMemoryBucketStore({ budget, now: clock.now }),
    budget,
    usable: async () => true,
    now: clock.now,
    recall: () => undefined,
  });
  return { store, runs };
}

/** Lets every promise chain waiting on a settled run go on. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a replica reporting upstream answers with its lease runs', () => {
  it('does not count again a held token that the run on its way when the answer came gave back', async () => {
    const { store, runs } = replicaOnScriptByHand();

    // A call finds nothing held: its run is granted two tokens; it spends one, holds one.
    const first = store.take('cred', undefined, { priority: 'read' });
    await settle();
    runs[0]!.answer.resolve(reply({ grant: 2, sharedLeft: 10 }));
    const verdict = await first;
    expect(verdict.allowed).toBe(true);
    // Its call spent a token: the replica renews ahead of need, in the background, reporting the
    // token it still holds.
    await settle();
    expect(runs).toHaveLength(2);
    expect(runs[1]!.run).toMatchObject({ held: 1, live: true });

    // The call's answer comes while that renewal is on its way: the upstream has 5 left, of which
    // the replica holds one (not counted by the upstream yet).
    await store.correct('cred', undefined, { remaining: 5, ticket: verdict.ticket });
    // The renewal's reply: nothing carried, nothing granted — the held token went back to the
    // shared bucket.
    runs[1]!.answer.resolve(reply({ grant: 0, carried: 0, sharedLeft: 5 }));
    await settle();

    // The next run reports the answer: the replica holds nothing and has nothing in flight, so
    // the shared bucket may keep all 5; reporting the token it gave back as still outstanding
    // would take it from the bucket a second time.
    const second = store.take('cred', undefined, { priority: 'read' });
    await settle();
    expect(runs).toHaveLength(3);
    expect(runs[2]!.run.answer).toMatchObject({ remaining: 5, outstanding: 0 });
    runs[2]!.answer.resolve(reply({ grant: 1, sharedLeft: 4 }));
    expect((await second).allowed).toBe(true);
  });

  it('asks again when the run it joined was a renewal that did not count it, rather than refusing', async () => {
    const { store, runs } = replicaOnScriptByHand();

    // A call is granted the one token it waits for and spends it; the replica renews ahead of
    // need, asking for no call (none waits).
    const first = store.take('cred', undefined, { priority: 'read' });
    await settle();
    runs[0]!.answer.resolve(reply({ grant: 1, sharedLeft: 5 }));
    const verdict = await first;
    expect(verdict.allowed).toBe(true);
    await settle();
    expect(runs).toHaveLength(2);
    expect(runs[1]!.run.waiting).toBe(0);
    // The upstream answers the call: 5 left.
    await store.correct('cred', undefined, { remaining: 5, ticket: verdict.ticket });

    // A second call comes while that renewal is on its way: it holds nothing and joins it. The
    // renewal grants nothing (nobody waited when it was sent), with 5 left: room for the call.
    const second = store.take('cred', undefined, { priority: 'read' });
    await settle();
    runs[1]!.answer.resolve(reply({ grant: 0, sharedLeft: 5 }));
    await settle();
    // The call asks for itself, and is served.
    expect(runs).toHaveLength(3);
    expect(runs[2]!.run.waiting).toBe(1);
    runs[2]!.answer.resolve(reply({ grant: 1, sharedLeft: 4 }));
    expect((await second).allowed).toBe(true);
  });

  // The other replicas' calls wait for the probe's answer (or a block) to reach the shared bucket:
  // left with no run of its own, it waited for this replica's next call, or for the probe's lease
  // to end (5 s; a new tenant's first read on another replica waited that long).
  it.each([
    { answer: 'an answer', correction: { remaining: 5 }, reported: { answer: { remaining: 5 } } },
    {
      answer: "a refused token's 401",
      correction: { unauthenticated: true },
      reported: { probeEnded: true },
    },
    {
      answer: "the credential's block (a 429 to the probe)",
      correction: { blockMs: 60_000, blockRouteClass: false },
      reported: { ask: 0, answer: { blockMs: 60_000 } },
    },
  ])(
    'reports what the other replicas wait for — $answer — when it came while a run was on its way, with a run of its own once that one is back',
    async ({ correction, reported }) => {
      const { store, runs } = replicaOnScriptByHand();

      // The shared view is stale: the run grants one call, the probe, and the call goes out.
      const probe = store.take('cred', undefined, { priority: 'read' });
      await settle();
      runs[0]!.answer.resolve(reply({ grant: 1, fresh: false }));
      const verdict = await probe;
      expect(verdict.allowed).toBe(true);
      // It spent what it held: a renewal ahead of need is on its way when the answer comes.
      await settle();
      expect(runs).toHaveLength(2);
      await store.correct('cred', undefined, { ...correction, ticket: verdict.ticket });
      // The renewal was sent before the answer came, so it cannot carry it.
      expect(runs).toHaveLength(2);
      expect(runs[1]!.run).not.toMatchObject(reported);

      runs[1]!.answer.resolve(reply({ grant: 0, fresh: false, probing: true }));
      await settle();
      // No call of this replica asks for it: the probe's end goes out at once.
      expect(runs).toHaveLength(3);
      expect(runs[2]!.run).toMatchObject(reported);
    },
  );

  it("sends no run of its own for a probe's answer that a waiting call's run carried", async () => {
    const { store, runs } = replicaOnScriptByHand();

    const probe = store.take('cred', undefined, { priority: 'read' });
    await settle();
    runs[0]!.answer.resolve(reply({ grant: 1, fresh: false }));
    const verdict = await probe;
    await settle();
    expect(runs).toHaveLength(2);
    // A second call finds nothing held and joins the renewal on its way; then the probe's answer.
    const second = store.take('cred', undefined, { priority: 'read' });
    await settle();
    await store.correct('cred', undefined, { remaining: 5, ticket: verdict.ticket });

    // The renewal grants nothing: the waiting call asks again, and its run carries the answer.
    runs[1]!.answer.resolve(reply({ grant: 0, fresh: false, probing: true }));
    await settle();
    expect(runs).toHaveLength(3);
    expect(runs[2]!.run).toMatchObject({ waiting: 1, answer: { remaining: 5 } });
    // Five granted: the call spends one and holds four, so it needs no renewal either.
    runs[2]!.answer.resolve(reply({ grant: 5 }));
    expect((await second).allowed).toBe(true);
    await settle();
    // Nothing was left to report: no run after it.
    expect(runs).toHaveLength(3);
  });
});
