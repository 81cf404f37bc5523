/**
 * One replica's leases of the credentials' shared buckets
 * (docs/budget.md "Across replicas: leases"): per credential, what it holds and until when, what it
 * has to tell the shared bucket (the latest upstream answer, an ended lease's unspent tokens, a
 * probe's end), and the one script run on its way (`redis-leases.ts`), which every call needing a
 * token joins. `leased-bucket-store.ts` spends them.
 */
import type { BudgetCorrection } from './bucket-store.ts';
import { DEFAULT_LEASE_CONFIG, demandAt, heldAfterAnswer, leaseAskOf } from './lease-policy.ts';
import {
  applyReply,
  endIfOver,
  isIdle,
  newCredentialLease,
  unspend,
  type CredentialLease,
  type RunOutcome,
} from './credential-lease.ts';
import type { LeaseReply, RedisLeases, ReportedAnswer } from './redis-leases.ts';

export interface CredentialLeasesOptions {
  readonly leases: RedisLeases;
  /** The configured capacity: a credential never leased yet is assumed full. */
  readonly capacity: number;
  /** Whether Redis can take commands now. */
  readonly usable: () => Promise<boolean>;
  readonly now?: () => number;
  /** Told when a run fails (logged once per outage by the caller). */
  readonly onRedisError?: (error: unknown) => void;
  readonly onRedisBack?: () => void;
}

export interface CredentialLeases {
  /** The credential's lease on this replica (made when first asked). */
  of(credentialId: string): CredentialLease;
  /** The credential's lease, if this replica has one. */
  known(credentialId: string): CredentialLease | undefined;
  /** A lease that ended keeps its tokens aside, to be settled, never spent. */
  endIfOver(entry: CredentialLease, at: number): void;
  /** A token taken for a call that did not go out: it pays a debt first, else it is held again. */
  unspend(entry: CredentialLease): void;
  /** Drops a credential's lease that holds nothing and has nothing to tell. */
  forget(credentialId: string, entry: CredentialLease): void;
  /**
   * The credential's run (joined while one is on its way): settles, reports, renews or gives back
   * (`giveBack`: everything held goes back); asks for the calls waiting with `floor`.
   */
  run(
    credentialId: string,
    entry: CredentialLease,
    floor: number,
    giveBack?: boolean,
  ): Promise<RunOutcome>;
  /** An upstream answer (or a refused token's 401) to tell the shared bucket. */
  noteAnswer(credentialId: string, entry: CredentialLease, correction: BudgetCorrection): void;
  /** The probe ended without an answer that confirms the view: the others may send theirs. */
  endProbe(credentialId: string, entry: CredentialLease): void;
  /** Another replica's call is refused for the tokens this one holds: they go back. */
  recalled(credentialId: string): void;
  /** Gives back every lease (at shutdown). */
  giveBackAll(): Promise<void>;
  /** The Redis round trip as the runs see it, ms (smoothed). */
  rttMs(): number;
}

export function createCredentialLeases(options: CredentialLeasesOptions): CredentialLeases {
  const { leases } = options;
  const now = options.now ?? Date.now;
  const config = DEFAULT_LEASE_CONFIG;
  const credentials = new Map<string, CredentialLease>();
  let redisRttMs = 1;
  let redisDown = false;

  const heldOf = (credentialId: string): CredentialLease => {
    let entry = credentials.get(credentialId);
    if (!entry) {
      entry = newCredentialLease(options.capacity);
      credentials.set(credentialId, entry);
    }
    return entry;
  };

  const forget = (credentialId: string, entry: CredentialLease) => {
    if (isIdle(entry, now(), config)) credentials.delete(credentialId);
  };

  /** One run for the credential (joined by every call that needs one while it is on its way). */
  const runLease = (
    credentialId: string,
    entry: CredentialLease,
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
      const addedDebt = applyReply(entry, reply, sentAt, reportedLive, now());
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

  /**
   * Tells the shared bucket now what the other replicas' calls wait for (a probe's end, a block):
   * with a run of its own, or right after the run on its way, which was sent before it came. No
   * call of this replica may come to carry it, and the others would wait until the probe's lease
   * ended.
   */
  const reportNow = (credentialId: string, entry: CredentialLease, giveBack = false): void => {
    const running = entry.running;
    if (!running) {
      runLease(credentialId, entry, 0, giveBack).catch(() => undefined);
      return;
    }
    const after = () => {
      // Unless another run carried it meanwhile.
      if (entry.answer !== undefined || entry.probeEnded) reportNow(credentialId, entry, giveBack);
    };
    running.then(after, after);
  };

  /** The probe ended without an answer that confirms the view: the others may send theirs. */
  const endProbe = (credentialId: string, entry: CredentialLease) => {
    entry.probe = false;
    entry.probeEnded = true;
    reportNow(credentialId, entry);
  };

  const noteAnswer = (
    credentialId: string,
    entry: CredentialLease,
    correction: BudgetCorrection,
  ): void => {
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
        reportNow(credentialId, entry);
      }
      if (credentialBlock) {
        entry.sharedLeft = 0;
        // Told at once: the other replicas must stop too.
        reportNow(credentialId, entry, true);
      }
    }
  };

  const recalled = (credentialId: string): void => {
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
  };

  const giveBackAll = async (): Promise<void> => {
    await Promise.allSettled(
      [...credentials].map(async ([credentialId, entry]) => {
        await entry.running?.catch(() => undefined);
        if (entry.held > 0 || entry.unsettled > 0 || entry.debt > 0 || entry.answer) {
          await runLease(credentialId, entry, 0, true);
        }
      }),
    );
  };

  return {
    of: heldOf,
    known: (credentialId) => credentials.get(credentialId),
    endIfOver,
    unspend,
    forget,
    run: runLease,
    noteAnswer,
    endProbe,
    recalled,
    giveBackAll,
    rttMs: () => redisRttMs,
  };
}
