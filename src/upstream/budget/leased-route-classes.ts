/**
 * The route classes the replicas keep together — the hosting API's per-IP limits, and a
 * credential's own (the catalog's burst) — leased like the credential's budget
 * (`leased-bucket-store.ts`): a replica takes places in a class's log for its next calls of a
 * credential in one script run (`redis-route-classes.ts`), and spends them without Redis. A place is
 * stamped at its lease's end — the latest its call may go out — so the shared log never forgets a
 * call before the upstream's own sliding window does. A lease is short (a class's limits are per
 * minute and small); what it did not use leaves the log at its end, with the replica's next run, at
 * once when the class answers 429, when another call finds the class full of it, or when the
 * replica stops.
 *
 * Calls for a token the upstream has never answered go through the class one by one, as before
 * leases: a flood of junk tokens must not hold places, and their 401s give their place back.
 */
import { LRUCache } from 'lru-cache';
import { classRoomOf, type CallPriority } from './call-priority.ts';
import { withCall, demandAt, NO_DEMAND, type Demand } from './lease-policy.ts';
import type { ClassPlaces, RedisRouteClasses } from './redis-route-classes.ts';
import { fairShareOf } from './bucket-state.ts';
import type { RouteClass } from '../upstream-routes.ts';

/** How long a lease of places lasts, at most: short against a class's minute. */
export const CLASS_LEASE_MS = 2_000;

/** A replica's places in one class for one credential. */
interface Places {
  readonly routeClass: RouteClass;
  readonly credentialId: string;
  unused: string[];
  endsAt: number;
  /** The class's count and the credential's, with the grant, less the places unused since. */
  classCount: number;
  fairCount: number;
  demand: Demand;
  waiting: number;
  /** The last lease's size, and whether its calls used it up before its end. */
  lastGrant: number;
  usedUp: boolean;
  /** Places of an ended lease, to leave the log with the next run. */
  expired: string[];
  running: Promise<LeaseOutcome> | undefined;
  /** Gives the unused places back at the lease's end (a replica that stops calling holds none). */
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** A run's answer when it granted nothing: the wait, and the places other replicas hold. */
interface LeaseOutcome {
  readonly waitMs: number;
  readonly leasedElsewhere: number;
}

/** How soon a call refused while other replicas hold places asks again (once). */
export const CLASS_RECALL_POLL_MS = 250;

/** A call's place in its class (`take` is 0 when it has one), from a lease or one by one. */
export interface LeasedRouteClasses extends ClassPlaces {
  /** Another replica's call found the class full of places leased here: the unused ones go back. */
  recalled(className: string): void;
  giveBackAll(): Promise<void>;
}

export function createLeasedRouteClasses(options: {
  readonly classes: RedisRouteClasses;
  readonly replica: string;
  /** Asks every replica to give back the unused places it holds in a class (pub/sub). */
  readonly recall: (className: string) => void;
  readonly now?: () => number;
}): LeasedRouteClasses {
  const { classes } = options;
  const now = options.now ?? Date.now;
  const held = new Map<string, Places>();
  /** Calls that went through the class one by one (never-answered tokens). */
  const oneByOne = new Set<string>();
  /** The place each leased call took, until its answer. */
  const placeOf = new Map<string, string>();
  /**
   * Calls that asked the other replicas once to give back their places: a call asks once, then
   * waits for the class like any call (places in use are not given back).
   */
  const recalledFor = new LRUCache<string, true>({ max: 10_000 });
  let runs = 0;

  const keyOf = (routeClass: RouteClass, credentialId: string) =>
    `${routeClass.name}\n${credentialId}`;
  const placesOf = (routeClass: RouteClass, credentialId: string): Places => {
    const key = keyOf(routeClass, credentialId);
    let places = held.get(key);
    if (!places) {
      places = {
        routeClass,
        credentialId,
        unused: [],
        endsAt: 0,
        classCount: 0,
        fairCount: 0,
        demand: NO_DEMAND,
        waiting: 0,
        lastGrant: 0,
        usedUp: false,
        expired: [],
        running: undefined,
        timer: undefined,
      };
      held.set(key, places);
    }
    return places;
  };

  /** Whether a call of `priority` may use a held place: its room, less what others took then. */
  const mayUse = (routeClass: RouteClass, places: Places, priority: CallPriority, at: number) => {
    if (places.unused.length === 0 || at >= places.endsAt) return false;
    const fair = fairShareOf(routeClass, routeClass.limit);
    // The log's calls but the places still unused, and this one.
    const withThis = (count: number) => count - places.unused.length + 1;
    return (
      withThis(places.classCount) <= classRoomOf(routeClass.limit, priority) &&
      (fair === 0 || withThis(places.fairCount) <= classRoomOf(fair, priority))
    );
  };

  const endIfOver = (places: Places, at: number) => {
    if (places.unused.length > 0 && at >= places.endsAt) {
      places.expired.push(...places.unused.splice(0));
    }
  };

  /** What `places` holds unused (or of an ended lease) leaves the log now, unless a run is on. */
  const giveBackUnused = (places: Places): void => {
    if (places.running) {
      // After the run on its way, whose grant is then among what goes back.
      void places.running.then(
        () => giveBackUnused(places),
        () => undefined,
      );
      return;
    }
    const unused = [...places.expired.splice(0), ...places.unused.splice(0)];
    if (unused.length === 0) return;
    classes.giveBack(places.routeClass, places.credentialId, unused).catch(() => {
      // Redis cannot take them now: the next run gives them back.
      places.expired.push(...unused);
    });
  };

  /** One run: the places asked for, for the calls waiting and the demand of a lease. */
  const lease = (
    routeClass: RouteClass,
    credentialId: string,
    places: Places,
    priority: CallPriority,
  ): Promise<LeaseOutcome> => {
    if (places.running) return places.running;
    const running = (async () => {
      const sentAt = now();
      endIfOver(places, sentAt);
      const giveBack = places.expired.splice(0);
      const demand = demandAt(places.demand, sentAt);
      // What the calls of a lease's length will want, and — as TCP's slow start — twice the last
      // lease when its calls used it up before its end (a burst outruns the averaged demand).
      const ask = Math.max(
        1,
        places.waiting + Math.floor((demand * CLASS_LEASE_MS) / 1_000),
        places.usedUp && sentAt < places.endsAt ? 2 * places.lastGrant : 0,
      );
      try {
        const reply = await classes.lease(routeClass, credentialId, {
          ask,
          priority,
          leaseMs: CLASS_LEASE_MS,
          replica: options.replica,
          run: (runs += 1).toString(36),
          giveBack: [...giveBack, ...places.unused],
        });
        // What it held unused went back with this run; the grant replaces it.
        places.unused = [...reply.places];
        places.lastGrant = reply.places.length;
        places.usedUp = false;
        places.endsAt = sentAt + CLASS_LEASE_MS;
        places.classCount = reply.classCount;
        places.fairCount = reply.fairCount;
        clearTimeout(places.timer);
        if (reply.places.length > 0) {
          places.timer = setTimeout(() => giveBackUnused(places), CLASS_LEASE_MS);
          places.timer.unref();
        }
        return { waitMs: reply.waitMs, leasedElsewhere: reply.leasedElsewhere };
      } catch (error) {
        places.expired.push(...giveBack);
        throw error;
      }
    })();
    places.running = running;
    const done = () => {
      if (places.running === running) places.running = undefined;
    };
    running.then(done, done);
    return running;
  };

  /**
   * Gives back at once the places this replica holds unused in `routeClass` for the other
   * credentials; whether there were any.
   */
  const giveBackOwn = async (routeClass: RouteClass, credentialId: string): Promise<boolean> => {
    let any = false;
    for (const places of held.values()) {
      if (places.routeClass.name !== routeClass.name || places.credentialId === credentialId) {
        continue;
      }
      await places.running?.catch(() => undefined);
      const unused = [...places.expired.splice(0), ...places.unused.splice(0)];
      if (unused.length === 0) continue;
      any = true;
      await classes.giveBack(places.routeClass, places.credentialId, unused).catch(() => {
        places.expired.push(...unused);
      });
    }
    return any;
  };

  return {
    recalled(className) {
      for (const places of held.values()) {
        if (places.routeClass.name === className) giveBackUnused(places);
      }
    },

    async take(routeClass, credentialId, ticket, flags) {
      if (flags.neverAnswered) {
        let waitMs = await classes.take(routeClass, credentialId, ticket, flags);
        // Full, and this replica holds places of the class it does not use: they go back first.
        if (waitMs > 0 && (await giveBackOwn(routeClass, credentialId))) {
          waitMs = await classes.take(routeClass, credentialId, ticket, flags);
        }
        if (waitMs === 0) oneByOne.add(ticket);
        return waitMs;
      }
      const places = placesOf(routeClass, credentialId);
      for (let runsForCall = 0; !mayUse(routeClass, places, flags.priority, now());) {
        if (runsForCall === 4) return 1;
        runsForCall += 1;
        places.waiting += 1;
        let outcome: LeaseOutcome;
        try {
          outcome = await lease(routeClass, credentialId, places, flags.priority);
        } finally {
          places.waiting -= 1;
        }
        if (outcome.waitMs > 0 && places.unused.length === 0) {
          // Full, and this replica holds places of the class for other credentials it does not
          // use: they go back, and the call asks again.
          if (await giveBackOwn(routeClass, credentialId)) continue;
          if (outcome.leasedElsewhere < 1 || recalledFor.has(ticket)) return outcome.waitMs;
          // Full of places other replicas leased: they give back what they do not use, and this
          // call asks once more soon.
          recalledFor.set(ticket, true);
          options.recall(routeClass.name);
          return Math.min(outcome.waitMs, CLASS_RECALL_POLL_MS);
        }
      }
      recalledFor.delete(ticket);
      const place = places.unused.pop()!;
      if (places.unused.length === 0) places.usedUp = true;
      placeOf.set(ticket, place);
      places.demand = withCall(places.demand, now());
      return 0;
    },

    async correct(routeClass, credentialId, ticket, correction) {
      if (oneByOne.delete(ticket)) {
        await classes.correct(routeClass, credentialId, ticket, correction);
        return;
      }
      const place = placeOf.get(ticket);
      placeOf.delete(ticket);
      if (correction.blockRouteClass && correction.blockMs !== undefined) {
        // The class answered 429: nothing more goes out of it from here until the block ends.
        const places = placesOf(routeClass, credentialId);
        const unused = places.unused.splice(0);
        await classes.correct(routeClass, credentialId, ticket, correction);
        await classes.giveBack(routeClass, credentialId, unused);
      } else if (correction.unauthenticated && place !== undefined) {
        // The upstream refused the token before counting the call: its place goes back.
        await classes.giveBack(routeClass, credentialId, [place]);
      }
    },

    async release(routeClass, credentialId, ticket) {
      // A call that ended without an answer may have been counted: its place stays taken.
      placeOf.delete(ticket);
      if (oneByOne.delete(ticket)) await classes.release(routeClass, credentialId, ticket);
    },

    async giveBackAll() {
      await Promise.allSettled(
        [...held.values()].map(async (places) => {
          await places.running?.catch(() => undefined);
          clearTimeout(places.timer);
          const unused = [...places.expired.splice(0), ...places.unused.splice(0)];
          await classes.giveBack(places.routeClass, places.credentialId, unused);
        }),
      );
    },
  };
}
