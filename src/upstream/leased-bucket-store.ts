/**
 * The token buckets of replicas sharing Redis, with leases (docs/efficiency.md "Leases"): a replica
 * takes a slice of a credential's bucket in one script run (`redis-leases.ts`), spends it locally —
 * the send window, the priorities and the route classes of its own memory store decide each call as
 * on a single replica — and settles it when it renews, gives it back or stops. A busy credential
 * renews ahead of need, in the background, so its calls do not wait for Redis.
 *
 * Whatever fails — Redis, a cluster master, the network between this replica and Redis — the replica
 * spends only what it holds, within its lease (its end counted on this replica's clock from before
 * the grant): the replicas together never spend more than the bucket had. A call that finds nothing
 * held while Redis cannot be reached waits for Redis like any wait for room, then is refused
 * RATE_LIMITED with `limiter: "SHARED_BUDGET"`.
 *
 * A route class the whole gateway shares (the upstream's per-IP limits) is leased too, on the
 * class's own keys (`leased-route-classes.ts`); while Redis cannot be reached a call with no place
 * held is refused the same way.
 */
import { randomBytes } from 'node:crypto';
import type { BudgetSnapshot } from './budget-tracker.ts';
import { reserveShareOf, reservedCalls } from './call-priority.ts';
import { WINDOW_POLL_MS } from './send-window.ts';
import {
  DEFAULT_LEASE_CONFIG,
  NO_DEMAND,
  demandAt,
  heldAfterAnswer,
  leaseAskOf,
  maySpend,
  shouldRenew,
  withCall,
  type Demand,
} from './lease-policy.ts';
import type { LocalBucketStore } from './memory-bucket-store.ts';
import type { LeaseReply, RedisLeases, ReportedAnswer } from './redis-leases.ts';
import type { LeasedRouteClasses } from './leased-route-classes.ts';
import type { BucketStore, CredentialBudget, TakeVerdict } from './token-bucket.ts';
import type { RouteClass } from './upstream-routes.ts';

/** How soon a call with nothing held asks again while Redis cannot be reached. */
export const LEASE_POLL_MS = 250;

/** A call asks this many runs at most (each granted tokens the other calls waiting took first). */
const MAX_RUNS_PER_CALL = 8;

/** A name for this process in the leases hash: unique, and nothing about the host. */
export const newReplicaName = (): string => randomBytes(8).toString('hex');

/** A run's reply, and whether it asked for calls waiting (a renewal ahead of need does not). */
interface RunOutcome {
  readonly reply: LeaseReply;
  readonly forWaiting: boolean;
}

interface Held {
  /** Tokens held and not spent, of the lease that ends at `endsAt` (this replica's clock). */
  held: number;
  endsAt: number;
  /** Tokens of an ended lease not settled yet (given back with the next run). */
  unsettled: number;
  /** Tokens spent out of what a run took back while it was on its way (reported with the next). */
  debt: number;
  /** What the shared bucket had left after the last run, its capacity, and when its window ends. */
  sharedLeft: number;
  /** When a token above the last asker's floor is free in the shared bucket. */
  freeAt: number;
  cap: number;
  resetAt: number;
  othersHeld: number;
  plentiful: boolean;
  /** What Redis records this replica holds (its grant at the last run; spent calls are in it). */
  recorded: number;
  /** Its last grant was the stale view's probe: the probe's answer is reported at once. */
  probe: boolean;
  /** Its probe ended without confirming the view (a 401, no answer): reported with the next run. */
  probeEnded: boolean;
  demand: Demand;
  /** Calls waiting for this credential's run now. */
  waiting: number;
  inFlight: number;
  /** The latest upstream answer not reported yet. */
  answer: ReportedAnswer | undefined;
  /** When this replica last asked the others to give back what they hold. */
  recalledAt: number;
  /** When the answer's reset and block end, on this replica's clock. */
  answerResetAt: number | undefined;
  answerBlockUntil: number | undefined;
  /**
   * Of the latest answer's outstanding tokens, those held (not in flight) when it came: a run on
   * its way then may give them back to the shared bucket, which then counts them itself.
   */
  answerHeld: number;
  running: Promise<RunOutcome> | undefined;
}

export interface LeasedBucketStoreOptions {
  readonly leases: RedisLeases;
  readonly classes: LeasedRouteClasses;
  /** This replica's own buckets (send window, priorities, its view of the window). */
  readonly local: LocalBucketStore;
  readonly budget: CredentialBudget;
  /** Whether Redis can take commands now. */
  readonly usable: () => Promise<boolean>;
  readonly now?: () => number;
  /**
   * Asks every replica to give back what it holds of a credential (pub/sub): a call found no token
   * left but the ones other replicas hold.
   */
  readonly recall: (credentialId: string) => void;
  /** Told when a run fails (logged once per outage by the caller). */
  readonly onRedisError?: (error: unknown) => void;
  readonly onRedisBack?: () => void;
}

export interface LeasedBucketStore extends BucketStore {
  /** Another replica's call is refused for the tokens this one holds: they go back. */
  recalled(credentialId: string): void;
  /** Gives back every lease (at shutdown). */
  giveBackAll(): Promise<void>;
}

export function createLeasedBucketStore(options: LeasedBucketStoreOptions): LeasedBucketStore {
  const { leases, classes, local, budget } = options;
  const now = options.now ?? Date.now;
  const config = DEFAULT_LEASE_CONFIG;
  const writeReserveShare = budget.writeReserveShare ?? 0;
  const credentials = new Map<string, Held>();
  let redisRttMs = 1;
  let redisDown = false;

  const heldOf = (credentialId: string): Held => {
    let entry = credentials.get(credentialId);
    if (!entry) {
      entry = {
        held: 0,
        endsAt: 0,
        unsettled: 0,
        debt: 0,
        sharedLeft: budget.capacity,
        freeAt: 0,
        cap: budget.capacity,
        resetAt: 0,
        othersHeld: 0,
        plentiful: true,
        recorded: 0,
        probe: false,
        probeEnded: false,
        demand: NO_DEMAND,
        waiting: 0,
        inFlight: 0,
        answer: undefined,
        recalledAt: 0,
        answerResetAt: undefined,
        answerBlockUntil: undefined,
        answerHeld: 0,
        running: undefined,
      };
      credentials.set(credentialId, entry);
    }
    return entry;
  };

  /** A lease that ended keeps its tokens aside, to be settled, never spent. */
  const endIfOver = (entry: Held, at: number) => {
    if (entry.held > 0 && at >= entry.endsAt) {
      entry.unsettled += entry.held;
      entry.held = 0;
    }
  };

  /** A token taken for a call that did not go out: it pays a debt first, else it is held again. */
  const unspend = (entry: Held) => {
    if (entry.debt > 0) entry.debt -= 1;
    else entry.held += 1;
  };

  const forget = (credentialId: string, entry: Held) => {
    const idle =
      entry.held === 0 &&
      entry.unsettled === 0 &&
      entry.debt === 0 &&
      entry.inFlight === 0 &&
      entry.waiting === 0 &&
      entry.answer === undefined &&
      entry.running === undefined &&
      // A record Redis still counts as held is this entry's to clear when recalled.
      (entry.recorded === 0 || now() > entry.endsAt + config.graceMs) &&
      demandAt(entry.demand, now(), config) < 0.01;
    if (idle) credentials.delete(credentialId);
  };

  /** Applies a run's reply; returns the debt it added (tokens spent out of what went back). */
  const apply = (entry: Held, reply: LeaseReply, sentAt: number, reportedLive: number): number => {
    // Calls spent out of the reported tokens while the run was on its way.
    const spentMeanwhile = Math.max(0, reportedLive - entry.held);
    const kept = reply.carried + reply.grant - spentMeanwhile;
    entry.held = Math.max(0, kept);
    const debt = Math.max(0, -kept);
    entry.debt += debt;
    entry.endsAt = sentAt + reply.durationMs;
    entry.sharedLeft = reply.sharedLeft;
    entry.cap = reply.cap;
    entry.resetAt = now() + reply.resetMs;
    entry.freeAt = now() + reply.waitMs;
    entry.othersHeld = reply.othersHeld;
    entry.plentiful = reply.plentiful;
    entry.recorded = reply.carried + reply.grant;
    if (reply.grant > 0) entry.probe = !reply.fresh;
    return debt;
  };

  /** One run for the credential (joined by every call that needs one while it is on its way). */
  const runLease = (
    credentialId: string,
    entry: Held,
    floor: number,
    giveBack = false,
  ): Promise<RunOutcome> => {
    if (entry.running) return entry.running;
    const running = (async () => {
      if (!(await options.usable())) throw new Error('Redis cannot be reached');
      const sentAt = now();
      endIfOver(entry, sentAt);
      const live = entry.held > 0;
      const reportedLive = entry.held;
      const demandPerSec = giveBack ? 0 : demandAt(entry.demand, sentAt, config);
      const { ask, durationMs } = leaseAskOf(
        { demandPerSec, redisRttMs, held: entry.held, waiting: entry.waiting },
        config,
      );
      // The answer not reported yet goes with this run; one that comes meanwhile waits for the next.
      const answer = entry.answer;
      const answerResetAt = entry.answerResetAt;
      const answerBlockUntil = entry.answerBlockUntil;
      entry.answer = undefined;
      entry.answerResetAt = undefined;
      entry.answerBlockUntil = undefined;
      const probeEnded = entry.probeEnded;
      entry.probeEnded = false;
      const waiting = giveBack ? 0 : entry.waiting;
      const unsettled = entry.unsettled;
      const debt = entry.debt;
      let reply: LeaseReply;
      try {
        reply = await leases.lease(credentialId, {
          ask: giveBack ? 0 : ask,
          demandPerSec,
          held: live ? entry.held : unsettled,
          live,
          floor,
          waiting,
          durationMs: giveBack ? 0 : durationMs,
          debt,
          probeEnded,
          ...(answer
            ? {
                answer: {
                  ...answer,
                  ...(answerResetAt === undefined ? {} : { resetMs: answerResetAt - sentAt }),
                  ...(answerBlockUntil === undefined ? {} : { blockMs: answerBlockUntil - sentAt }),
                },
              }
            : {}),
        });
      } catch (error) {
        entry.probeEnded ||= probeEnded;
        // Not reported: it goes with the next run, unless a newer answer came meanwhile.
        if (entry.answer === undefined && answer !== undefined) {
          entry.answer = answer;
          entry.answerResetAt = answerResetAt;
          entry.answerBlockUntil = answerBlockUntil;
        }
        throw error;
      }
      redisRttMs = Math.max(0.1, redisRttMs + (now() - sentAt - redisRttMs) * 0.2);
      if (redisDown) {
        redisDown = false;
        options.onRedisBack?.();
      }
      if (!live) entry.unsettled -= unsettled;
      entry.debt -= debt;
      const addedDebt = apply(entry, reply, sentAt, reportedLive);
      // (Set by `correct` while this run was on its way.)
      const newer = entry.answer as ReportedAnswer | undefined;
      if (newer !== undefined) {
        // An answer came while this run was on its way, counting as outstanding the tokens held
        // then; those this run gave back (and were not spent since) are the shared bucket's now.
        // Reported as outstanding still, the next run would take them from the bucket again.
        const returned = live ? Math.max(0, reportedLive - reply.carried) : unsettled;
        const gaveBack = Math.min(entry.answerHeld, Math.max(0, returned - addedDebt));
        entry.answer = { ...newer, outstanding: Math.max(0, newer.outstanding - gaveBack) };
        entry.answerHeld -= gaveBack;
      }
      return { reply, forWaiting: waiting > 0 };
    })();
    entry.running = running;
    const done = () => {
      if (entry.running === running) entry.running = undefined;
    };
    running.then(done, (error: unknown) => {
      done();
      if (!redisDown) {
        redisDown = true;
        options.onRedisError?.(error);
      }
    });
    return running;
  };

  /** The probe ended without an answer that confirms the view: the others may send theirs. */
  const endProbe = (credentialId: string, entry: Held) => {
    entry.probe = false;
    entry.probeEnded = true;
    runLease(credentialId, entry, 0).catch(() => undefined);
  };

  const snapshotOf = (entry: Held): BudgetSnapshot => ({
    limit: entry.cap,
    remaining: Math.max(0, Math.floor(entry.sharedLeft + entry.held)),
    resetSec: Math.max(0, Math.ceil((entry.resetAt - now()) / 1000)),
    writeReserve: reservedCalls(entry.cap, reserveShareOf('read', writeReserveShare)),
  });

  const denied = (entry: Held, deniedBy: TakeVerdict['deniedBy'], waitMs: number): TakeVerdict => ({
    allowed: false,
    waitMs,
    deniedBy,
    budget: snapshotOf(entry),
    ticket: undefined,
  });

  /**
   * Why nothing could be leased, and when to ask again: at the window's end. Tokens the other
   * replicas hold are theirs to spend (their own calls wait for them); what they give back unspent
   * is found by the next call that asks.
   */
  const refusal = (entry: Held, floor: number): TakeVerdict => {
    const reserve = floor > 0 && entry.sharedLeft >= 1;
    return denied(entry, reserve ? 'reserve' : 'credential', Math.max(1, entry.freeAt - now()));
  };

  /** A route class the replicas keep together, leased (every class with a limit). */
  const leasedClass = (routeClass: RouteClass | undefined): routeClass is RouteClass =>
    routeClass !== undefined && routeClass.limit > 0;
  /** The class this replica keeps itself: none (a class is leased). */
  const ownClass = (routeClass: RouteClass | undefined) =>
    leasedClass(routeClass) ? undefined : routeClass;

  return {
    async take(credentialId, routeClass, request = {}) {
      const entry = heldOf(credentialId);
      const priority = request.priority ?? 'write';
      const floor = reservedCalls(entry.cap, reserveShareOf(priority, writeReserveShare));
      endIfOver(entry, now());
      // Every call waiting joins the credential's one run; a grant is shared by those that ask at
      // once, so a call finding the grant spent by the others asks again while room was granted.
      for (let runs = 0; !maySpend(entry, now(), floor); runs += 1) {
        if (runs === MAX_RUNS_PER_CALL) return refusal(entry, floor);
        entry.waiting += 1;
        let outcome: RunOutcome;
        try {
          outcome = await runLease(credentialId, entry, floor);
        } catch {
          return denied(entry, 'shared-budget', LEASE_POLL_MS);
        } finally {
          entry.waiting -= 1;
        }
        endIfOver(entry, now());
        const { reply } = outcome;
        // The view is stale and another call is out as its probe: wait for its answer — unless
        // this replica has an answer the run did not report (it joined a run sent before).
        const unreported = entry.answer !== undefined || entry.probeEnded;
        if (reply.probing && !maySpend(entry, now(), floor) && !unreported) {
          return denied(entry, 'window', WINDOW_POLL_MS);
        }
        // A renewal ahead of need asks for no call waiting: the call joined it, and asks again.
        if (outcome.forWaiting && reply.grant === 0 && !maySpend(entry, now(), floor)) {
          // Nothing granted: no room above this call's floor but what other replicas hold. What
          // they do not spend comes back when they are asked; until then the call asks again.
          if (reply.othersHeld < 1) return refusal(entry, floor);
          const at = now();
          if (at - entry.recalledAt >= LEASE_POLL_MS) {
            entry.recalledAt = at;
            options.recall(credentialId);
          }
          return denied(
            entry,
            floor > 0 && entry.sharedLeft >= 1 ? 'reserve' : 'credential',
            LEASE_POLL_MS,
          );
        }
      }
      // Taken before anything else is awaited: two calls must not both spend the last token held.
      entry.held -= 1;
      // A class every replica shares is kept by its leased places, not by this replica's own log.
      const verdict = await local.take(credentialId, ownClass(routeClass), request);
      if (!verdict.allowed || verdict.ticket === undefined) {
        unspend(entry);
        return verdict;
      }
      if (leasedClass(routeClass)) {
        const neverAnswered = !local.answered(credentialId);
        let waitMs: number;
        try {
          waitMs = await classes.take(routeClass, credentialId, verdict.ticket, {
            priority,
            neverAnswered,
          });
        } catch {
          waitMs = -1;
        }
        if (waitMs !== 0) {
          unspend(entry);
          await local.refund(credentialId, undefined, verdict.ticket);
          return waitMs > 0
            ? denied(entry, 'route-class', waitMs)
            : denied(entry, 'shared-budget', LEASE_POLL_MS);
        }
      }
      const at = now();
      entry.inFlight += 1;
      entry.demand = withCall(entry.demand, at, config);
      const view = {
        demandPerSec: demandAt(entry.demand, at, config),
        redisRttMs,
        held: entry.held,
        waiting: entry.waiting,
      };
      if (!entry.running && shouldRenew(view, entry.endsAt, at, config)) {
        // Ahead of need: no call waits for it. A failure shows on the next call that needs it.
        runLease(credentialId, entry, floor).catch(() => undefined);
      }
      return { ...verdict, budget: snapshotOf(entry) };
    },

    async correct(credentialId, routeClass, correction) {
      const snapshot = await local.correct(credentialId, ownClass(routeClass), correction);
      const entry = heldOf(credentialId);
      const at = now();
      if (correction.ticket !== undefined) entry.inFlight = Math.max(0, entry.inFlight - 1);
      if (correction.remaining !== undefined) {
        entry.held = heldAfterAnswer(entry.held, correction.remaining, entry.inFlight);
      }
      if (entry.probe && correction.unauthenticated) {
        // A refused token's 401 says nothing of the budget: the next call of it probes again.
        endProbe(credentialId, entry);
      }
      const credentialBlock = correction.blockMs !== undefined && !correction.blockRouteClass;
      if (credentialBlock) entry.held = 0;
      // Every answer but a refused token's confirms the view (what it says of the budget aside),
      // as it does this replica's own (memory-bucket-store.ts).
      const answered = !correction.unauthenticated || credentialBlock;
      if (answered) {
        const earlier = entry.answer;
        // Of the answers not reported yet, the one that says least is left is the one to report
        // (an answer to an earlier call may come later, and says more is left).
        const keepsEarlier =
          earlier?.remaining !== undefined &&
          (correction.remaining === undefined || earlier.remaining <= correction.remaining);
        const limit = correction.limit ?? earlier?.limit;
        entry.answer = keepsEarlier
          ? { ...earlier, ...(limit === undefined ? {} : { limit }) }
          : {
              ...(limit === undefined ? {} : { limit }),
              ...(correction.remaining === undefined || credentialBlock
                ? {}
                : { remaining: correction.remaining }),
              // Not counted by the upstream yet: held, of an ended lease not settled, in flight.
              outstanding: entry.held + entry.unsettled + entry.inFlight,
            };
        if (correction.resetMs !== undefined) entry.answerResetAt = at + correction.resetMs;
        if (credentialBlock) entry.answerBlockUntil = at + (correction.blockMs ?? 0);
        if (!keepsEarlier) entry.answerHeld = entry.held + entry.unsettled;
        if (correction.remaining !== undefined) {
          entry.sharedLeft = Math.min(
            entry.sharedLeft,
            Math.max(0, correction.remaining - entry.held - entry.inFlight),
          );
        }
        if (entry.probe && !credentialBlock) {
          // The probe's answer: the calls of every replica waiting for it go on now.
          entry.probe = false;
          runLease(credentialId, entry, 0).catch(() => undefined);
        }
        if (credentialBlock) {
          entry.sharedLeft = 0;
          // Told at once: the other replicas must stop too.
          runLease(credentialId, entry, 0, true).catch(() => undefined);
        }
      }
      if (leasedClass(routeClass)) {
        await classes
          .correct(routeClass, credentialId, correction.ticket ?? '', correction)
          .catch(() => undefined);
      }
      forget(credentialId, entry);
      return { ...snapshot, remaining: Math.min(snapshot.remaining, snapshotOf(entry).remaining) };
    },

    async peek(credentialId) {
      const entry = heldOf(credentialId);
      // This replica's own view knows the answers it has not reported yet.
      const own = await local.peek(credentialId);
      try {
        if (!(await options.usable())) return own;
        const reply = await leases.peek(credentialId);
        const remaining = reply.sharedLeft + reply.othersHeld + entry.held;
        if (own.remaining < remaining) return own;
        return {
          limit: reply.cap,
          remaining,
          resetSec: Math.ceil(reply.resetMs / 1000),
          writeReserve: reservedCalls(reply.cap, reserveShareOf('read', writeReserveShare)),
        };
      } catch {
        return own;
      } finally {
        forget(credentialId, entry);
      }
    },

    async release(credentialId, routeClass, ticket) {
      await local.release(credentialId, ownClass(routeClass), ticket);
      const entry = credentials.get(credentialId);
      if (entry) {
        entry.inFlight = Math.max(0, entry.inFlight - 1);
        // The probe got no answer (the upstream unreachable, the call cut): another may go.
        if (entry.probe) endProbe(credentialId, entry);
        forget(credentialId, entry);
      }
      if (leasedClass(routeClass)) {
        await classes.release(routeClass, credentialId, ticket).catch(() => undefined);
      }
    },

    recalled(credentialId) {
      const entry = credentials.get(credentialId);
      if (!entry) return;
      const giveBack = (): void => {
        // A run on its way is not a give-back: give back after it, with what it granted.
        if (entry.running) {
          void entry.running.then(giveBack, () => undefined);
          return;
        }
        // Even with nothing left to give, a record of tokens since spent must go: the others
        // count it as held.
        if (entry.held > 0 || entry.unsettled > 0 || entry.recorded > 0) {
          runLease(credentialId, entry, 0, true).catch(() => undefined);
        }
      };
      giveBack();
    },

    async giveBackAll() {
      await classes.giveBackAll();
      await Promise.allSettled(
        [...credentials].map(async ([credentialId, entry]) => {
          await entry.running?.catch(() => undefined);
          if (entry.held > 0 || entry.unsettled > 0 || entry.debt > 0 || entry.answer) {
            await runLease(credentialId, entry, 0, true);
          }
        }),
      );
    },
  };
}
