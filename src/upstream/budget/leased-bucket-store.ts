/**
 * The token buckets of replicas sharing Redis, with leases
 * (docs/budget.md "Across replicas: leases"): a replica takes a slice of a credential's bucket in
 * one script run (`credential-leases.ts`, `redis-leases.ts`) and spends it locally — the send
 * window and the priorities of its own memory store decide each call as on a single replica — then
 * settles it when it renews, gives it back or stops. A busy credential renews ahead of need, in the
 * background, so its calls do not wait for Redis. Route classes are leased as places in their logs
 * (`leased-route-classes.ts`).
 *
 * Whatever fails — Redis, a cluster master, the network between this replica and Redis — the replica
 * spends only what it holds, within its lease (its end counted on this replica's clock from before
 * the grant): the replicas together never spend more than the bucket had. A call that finds nothing
 * held while Redis cannot be reached waits for Redis like any wait for room, then is refused
 * RATE_LIMITED with `limiter: "SHARED_BUDGET"`; so is a call of a class with no place held.
 */
import { randomBytes } from 'node:crypto';
import type { BudgetSnapshot } from '../budget-tracker.ts';
import { reserveShareOf, reservedCalls } from './call-priority.ts';
import { WINDOW_POLL_MS } from './send-window.ts';
import { DEFAULT_LEASE_CONFIG, demandAt, maySpend, shouldRenew, withCall } from './lease-policy.ts';
import { createCredentialLeases } from './credential-leases.ts';
import { type CredentialLease, type RunOutcome } from './credential-lease.ts';
import type { LocalBucketStore } from './memory-bucket-store.ts';
import type { RedisLeases } from './redis-leases.ts';
import type { LeasedRouteClasses } from './leased-route-classes.ts';
import type { BucketStore, CredentialBudget, TakeVerdict } from './bucket-store.ts';
import type { RouteClass } from '../upstream-routes.ts';

/** How soon a call with nothing held asks again while Redis cannot be reached. */
export const LEASE_POLL_MS = 250;

/** A call asks this many runs at most (each granted tokens the other calls waiting took first). */
const MAX_RUNS_PER_CALL = 8;

/** A name for this process in the leases hash: unique, and nothing about the host. */
export const newReplicaName = (): string => randomBytes(8).toString('hex');

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
  const credentialLeases = createCredentialLeases({
    leases,
    capacity: budget.capacity,
    usable: options.usable,
    now,
    ...(options.onRedisError ? { onRedisError: options.onRedisError } : {}),
    ...(options.onRedisBack ? { onRedisBack: options.onRedisBack } : {}),
  });
  const { endIfOver, unspend, forget } = credentialLeases;
  const runLease = credentialLeases.run;
  const heldOf = credentialLeases.of;

  const snapshotOf = (entry: CredentialLease): BudgetSnapshot => ({
    limit: entry.cap,
    remaining: Math.max(0, Math.floor(entry.sharedLeft + entry.held)),
    resetSec: Math.max(0, Math.ceil((entry.resetAt - now()) / 1000)),
    writeReserve: reservedCalls(entry.cap, reserveShareOf('read', writeReserveShare)),
  });

  const denied = (
    entry: CredentialLease,
    deniedBy: TakeVerdict['deniedBy'],
    waitMs: number,
  ): TakeVerdict => ({
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
  const refusal = (entry: CredentialLease, floor: number): TakeVerdict => {
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
        redisRttMs: credentialLeases.rttMs(),
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
      const entry = credentialLeases.of(credentialId);
      credentialLeases.noteAnswer(credentialId, entry, correction);
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
      const entry = credentialLeases.known(credentialId);
      if (entry) {
        entry.inFlight = Math.max(0, entry.inFlight - 1);
        // The probe got no answer (the upstream unreachable, the call cut): another may go.
        if (entry.probe) credentialLeases.endProbe(credentialId, entry);
        forget(credentialId, entry);
      }
      if (leasedClass(routeClass)) {
        await classes.release(routeClass, credentialId, ticket).catch(() => undefined);
      }
    },

    recalled: (credentialId) => credentialLeases.recalled(credentialId),

    async giveBackAll() {
      await classes.giveBackAll();
      await credentialLeases.giveBackAll();
    },
  };
}
