/**
 * The lease design (docs/budget.md "Across replicas: leases"), on the policy's own functions
 * (`src/upstream/budget/lease-policy.ts`): a replica spends the tokens it holds without asking Redis,
 * renews its lease in the background a few Redis round trips before it runs dry (one script run,
 * which also carries its latest `RateLimit-Remaining`), asks at once only when a call finds nothing
 * held, and shortly before a lease's end renews it, gives back what it did not spend, or lets a
 * single token lapse (settled with its next run). While Redis is unreachable it spends what it
 * holds, within its lease, and refuses the rest by name; when Redis is back it gives back what
 * its ended leases did not spend.
 */
import {
  DEFAULT_LEASE_CONFIG,
  NO_DEMAND,
  atLeaseEnd,
  demandAt,
  heldAfterAnswer,
  leaseAskOf,
  maySpend,
  renewAheadMsOf,
  shouldRenew,
  withCall,
  type Demand,
  type LeaseConfig,
} from '../../src/upstream/budget/lease-policy.ts';
import {
  correctedShared,
  isLive,
  leaseOf,
  settledTokens,
  type Holder,
} from '../../src/upstream/budget/lease-grants.ts';
import type { Design, World } from './world.ts';

type Run = 'lease' | 'give-back' | 'report';

/** One replica's lease of one credential. */
interface Pair {
  readonly replica: number;
  readonly credential: number;
  /** Tokens held and not spent (after the lease's end: frozen until settled). */
  held: number;
  endsAt: number;
  sharedLeft: number;
  demand: Demand;
  asking: boolean;
  inFlight: number;
  /** The latest answer not reported yet: its Remaining, and the outstanding tokens then. */
  report: { remaining: number; outstanding: number } | undefined;
  /** Whether the last grant found the budget plentiful (a single token may lapse). */
  plentiful: boolean;
  /** Bumped by every lease reply: the end of an older lease does nothing. */
  generation: number;
  readonly waiting: number[];
}

/** The shared side's record of a replica's lease (live, or ended and not settled yet). */
interface Record extends Holder {
  held: number;
  demandPerSec: number;
  endsAt: number;
}

interface Shared {
  tokens: number;
  cap: number;
  drain: Demand;
  readonly records: Map<number, Record>;
}

export function createLeaseDesign(
  world: World,
  config: LeaseConfig = DEFAULT_LEASE_CONFIG,
): Design {
  const { scenario, clock } = world;
  const halfRtt = scenario.redisRttMs / 2;
  const aheadMs = renewAheadMsOf(scenario.redisRttMs, config);
  const pairs = new Map<number, Pair>();
  const shared: Shared[] = Array.from({ length: scenario.credentials }, () => ({
    tokens: scenario.windowCalls,
    cap: scenario.windowCalls,
    drain: NO_DEMAND,
    records: new Map(),
  }));

  const pairOf = (replica: number, credential: number): Pair => {
    const key = replica * scenario.credentials + credential;
    let pair = pairs.get(key);
    if (!pair) {
      pair = {
        replica,
        credential,
        held: 0,
        endsAt: 0,
        sharedLeft: scenario.windowCalls,
        demand: NO_DEMAND,
        asking: false,
        inFlight: 0,
        report: undefined,
        plentiful: true,
        generation: 0,
        waiting: [],
      };
      pairs.set(key, pair);
    }
    return pair;
  };

  const viewOf = (pair: Pair) => ({
    demandPerSec: demandAt(pair.demand, clock.now, config),
    redisRttMs: scenario.redisRttMs,
    held: clock.now < pair.endsAt ? pair.held : 0,
    waiting: pair.waiting.length,
  });

  const spend = (pair: Pair, arrivedAt: number, waited: boolean) => {
    pair.held -= 1;
    pair.inFlight += 1;
    world.send(pair.replica, pair.credential, arrivedAt, waited, (remaining, limited) => {
      pair.inFlight -= 1;
      pair.held = limited ? 0 : heldAfterAnswer(pair.held, remaining, pair.inFlight);
      pair.report = { remaining: limited ? 0 : remaining, outstanding: pair.held + pair.inFlight };
      // A 429 is reported at once; any other answer rides on the next run.
      if (limited) ask(pair, 'report');
    });
  };

  /** The script, on Redis: apply the report, settle or carry the asker's lease, grant. */
  const script = (
    pair: Pair,
    run: Run,
    unspent: number,
    request: { ask: number; durationMs: number; demandPerSec: number; waiting: number },
    report: Pair['report'],
  ): { grant: number; carried: number; durationMs: number; plentiful: boolean } => {
    const bucket = shared[pair.credential] as Shared;
    const now = clock.now;
    if (report) {
      const corrected = correctedShared(
        { tokens: bucket.tokens, cap: bucket.cap },
        { remaining: report.remaining, reporterOutstanding: report.outstanding },
      );
      bucket.tokens = corrected.tokens;
      bucket.cap = corrected.cap;
    }
    const own = bucket.records.get(pair.replica);
    const none = { grant: 0, carried: 0, durationMs: 0, plentiful: true };
    if (run === 'report') return none;
    // A live lease is carried over; an ended one (or a give-back) is settled: its unspent tokens
    // come back (one window here: the run never reaches the window's end).
    let held = 0;
    if (own && run === 'lease' && isLive(own.endsAt, now, config)) {
      held = Math.min(own.held, unspent);
    } else if (own) {
      bucket.tokens += settledTokens(own.held, unspent, true);
    }
    bucket.records.delete(pair.replica);
    if (run === 'give-back') return none;
    const others: Holder[] = [];
    for (const record of bucket.records.values()) {
      if (isLive(record.endsAt, now, config)) others.push(record);
    }
    const lease = leaseOf(
      {
        tokens: bucket.tokens,
        writeReserve: world.floor,
        fresh: true,
        others,
        drainPerSec: demandAt(bucket.drain, now, config),
      },
      { ...request, held, floor: world.floor },
      config,
    );
    bucket.tokens += lease.returned - lease.grant;
    if (lease.grant > 0) bucket.drain = withCall(bucket.drain, now, config, lease.grant);
    if (lease.carried + lease.grant > 0) {
      bucket.records.set(pair.replica, {
        held: lease.carried + lease.grant,
        demandPerSec: request.demandPerSec,
        endsAt: now + lease.durationMs,
      });
    }
    return lease;
  };

  /** One script run: a lease (urgent or a renewal), a give-back, or a 429's report. */
  const ask = (pair: Pair, run: Run) => {
    const sentAt = clock.now;
    if (!world.redisUp(sentAt)) {
      // Spend what is held, within the lease; what waits for a token is refused by name.
      for (const _ of pair.waiting.splice(0)) world.refuse(pair.replica, pair.credential, true);
      return;
    }
    if (run !== 'report') pair.asking = true;
    const view = viewOf(pair);
    const { ask: asked, durationMs } = leaseAskOf(view, config);
    // After its end a lease's tokens are frozen: reported unspent, never spent.
    const unspent = pair.held;
    const report = pair.report;
    pair.report = undefined;
    if (run === 'give-back') pair.held = 0;
    world.scriptRun(pair.credential);
    clock.at(sentAt + halfRtt, () => {
      const reply = script(
        pair,
        run,
        unspent,
        { ask: asked, durationMs, demandPerSec: view.demandPerSec, waiting: view.waiting },
        report,
      );
      const left = (shared[pair.credential] as Shared).tokens;
      clock.at(clock.now + halfRtt, () => {
        if (run === 'report') return;
        pair.asking = false;
        if (run === 'lease') {
          // What it spent since it asked is gone from what was carried over.
          const spentSince = Math.max(0, unspent - pair.held);
          pair.held = Math.max(0, reply.carried - spentSince) + reply.grant;
          pair.sharedLeft = left;
          pair.generation += 1;
          pair.endsAt = sentAt + reply.durationMs;
          pair.plentiful = reply.plentiful;
          if (pair.held > 0) {
            const generation = pair.generation;
            // Decided while the lease still runs: what is held is carried over or given back.
            clock.at(Math.max(clock.now, pair.endsAt - aheadMs), () =>
              leaseEnding(pair, generation),
            );
          }
        }
        serveWaiting(pair, run === 'lease' ? reply.grant : undefined);
      });
    });
  };

  const serveWaiting = (pair: Pair, granted: number | undefined) => {
    while (pair.waiting.length > 0 && maySpend(pair, clock.now, world.floor)) {
      spend(pair, pair.waiting.shift() as number, true);
    }
    if (pair.waiting.length === 0) return;
    // Nothing granted: nothing is free above the reserve (a replica holding none always gets one
    // while one is). Within a fixed window nothing comes back in time: refused, as today.
    if (granted !== undefined && granted < 1) {
      for (const _ of pair.waiting.splice(0)) world.refuse(pair.replica, pair.credential, false);
      return;
    }
    ask(pair, 'lease');
  };

  const leaseEnding = (pair: Pair, generation: number) => {
    if (generation !== pair.generation || pair.asking || pair.held < 1) return;
    const demandPerSec = demandAt(pair.demand, clock.now, config);
    const decision = atLeaseEnd(demandPerSec, pair.held, pair.plentiful, config);
    if (decision === 'renew') ask(pair, 'lease');
    else if (decision === 'give-back') ask(pair, 'give-back');
  };

  // Back on Redis: every ended lease that still holds more than a token is settled.
  const { outage } = scenario;
  if (outage) {
    clock.at(outage.atMs + outage.forMs, () => {
      for (const pair of pairs.values()) {
        if (pair.held > 1 && clock.now >= pair.endsAt && !pair.asking) ask(pair, 'give-back');
      }
    });
  }

  return {
    name: 'leases',
    call(replica, credential) {
      const pair = pairOf(replica, credential);
      pair.demand = withCall(pair.demand, clock.now, config);
      if (pair.waiting.length === 0 && maySpend(pair, clock.now, world.floor)) {
        spend(pair, clock.now, false);
        if (!pair.asking && shouldRenew(viewOf(pair), pair.endsAt, clock.now, config)) {
          ask(pair, 'lease');
        }
        return;
      }
      pair.waiting.push(clock.now);
      if (!pair.asking) ask(pair, 'lease');
    },
  };
}
