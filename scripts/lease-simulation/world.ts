/**
 * What the two designs of the lease simulation run in: the scenario, the upstream (one fixed
 * window per credential: calls past it are answered 429), Redis (a round trip, up or down, and a
 * count of script runs), and what is measured. No network, no real time: an event queue.
 */
import { createEventQueue, type EventQueue } from './event-queue.ts';

export interface Scenario {
  readonly name: string;
  readonly seed: number;
  readonly replicas: number;
  readonly credentials: number;
  /** The skew of the credentials' demand (Zipf exponent; 0: every credential alike). */
  readonly zipfExponent: number;
  /** Upstream calls wanted per second, all replicas and credentials together. */
  readonly callsPerSec: number;
  readonly durationMs: number;
  /** This many replicas receive `heavyWeight` times the calls of each other one (a sticky balancer). */
  readonly heavyReplicas: number;
  readonly heavyWeight: number;
  /** Each credential's upstream window: calls past it in the run are answered 429. */
  readonly windowCalls: number;
  /** `UPSTREAM_WRITE_RESERVE_SHARE`: every call here is a read, which leaves it. */
  readonly writeReserveShare: number;
  readonly redisRttMs: number;
  readonly upstreamRttMs: number;
  /** Redis unreachable for every replica from `atMs` for `forMs`. */
  readonly outage?: { readonly atMs: number; readonly forMs: number };
  /**
   * Credential affinity at the balancer: each credential's calls go to this many replicas (picked
   * by the credential) instead of all of them.
   */
  readonly replicasPerCredential?: number;
}

/** Script runs per upstream call over a band of credentials by rank (1 = the busiest). */
export interface Tier {
  readonly ranks: string;
  readonly callShare: number;
  readonly scriptRunsPerCall: number;
}

/** What one design did with one scenario. */
export interface Outcome {
  readonly design: string;
  readonly scenario: string;
  /** Calls that arrived at a replica, and what became of them. */
  readonly calls: number;
  readonly sent: number;
  readonly upstream429: number;
  /**
   * Reads that reached the upstream past the reads' room (the window less the write reserve): what
   * the replicas spent together beyond what the bucket had for them. Every call here is a read.
   */
  readonly pastReadRoom: number;
  /** Refused by the limiter: the budget (or the replica's share of it) is spent. */
  readonly refused: number;
  /** Refused because Redis was unreachable and the replica held nothing. */
  readonly refusedUnreachable: number;
  readonly scriptRuns: number;
  readonly scriptRunsPerSec: number;
  readonly scriptRunsPerCall: number;
  /** Time from a call's arrival to its upstream send, over the calls sent (ms). */
  readonly addedMeanMs: number;
  readonly addedP99Ms: number;
  /** Calls that had to wait for a Redis reply before they could go (leases: found none held). */
  readonly waitedShare: number;
  readonly waitedP50Ms: number;
  readonly waitedP99Ms: number;
  /** Calls served (sent and not answered 429) as a share of calls wanted, by kind of replica. */
  readonly heavyServed: number;
  readonly lightServed: number;
  /**
   * Of the credentials that refused a read for want of budget: the reads their window still
   * allowed (above the write reserve) and nobody sent — budget held where it was not needed.
   */
  readonly unspentWhileRefused: number;
  readonly tiers: readonly Tier[];
}

/** Everything a design touches. */
export interface World {
  readonly scenario: Scenario;
  readonly clock: EventQueue;
  readonly floor: number;
  redisUp(at: number): boolean;
  /** One script run on Redis for a credential (counted while the load runs: the steady state). */
  scriptRun(credential: number): void;
  /**
   * A call goes to the upstream now; `answered` gets what `RateLimit-Remaining` said (0 and
   * `limited` for a 429) when its answer comes back.
   */
  send(
    replica: number,
    credential: number,
    arrivedAt: number,
    waited: boolean,
    answered: (remaining: number, limited: boolean) => void,
  ): void;
  refuse(replica: number, credential: number, unreachable: boolean): void;
}

export interface Design {
  readonly name: string;
  /** A call of `credential` arrives at `replica` now. */
  call(replica: number, credential: number): void;
}

export function createWorld(scenario: Scenario): World & { outcome(design: string): Outcome } {
  const clock = createEventQueue();
  const counted = new Int32Array(scenario.credentials);
  const runsOf = new Float64Array(scenario.credentials);
  const refusedOf = new Uint8Array(scenario.credentials);
  const sentOf = new Float64Array(scenario.credentials);
  const served = new Float64Array(scenario.replicas);
  const wanted = new Float64Array(scenario.replicas);
  const added: number[] = [];
  const waitedFor: number[] = [];
  let sent = 0;
  let limited = 0;
  let refused = 0;
  let refusedUnreachable = 0;
  let scriptRuns = 0;
  const { outage } = scenario;
  const floor = Math.floor(scenario.windowCalls * scenario.writeReserveShare);
  return {
    scenario,
    clock,
    floor,
    redisUp: (at) => !outage || at < outage.atMs || at >= outage.atMs + outage.forMs,
    scriptRun(credential) {
      if (clock.now > scenario.durationMs) return;
      scriptRuns += 1;
      runsOf[credential] = (runsOf[credential] ?? 0) + 1;
    },
    send(replica, credential, arrivedAt, waited, answered) {
      const now = clock.now;
      sent += 1;
      sentOf[credential] = (sentOf[credential] ?? 0) + 1;
      wanted[replica] = (wanted[replica] ?? 0) + 1;
      added.push(now - arrivedAt);
      if (waited) waitedFor.push(now - arrivedAt);
      clock.at(now + scenario.upstreamRttMs / 2, () => {
        const count = (counted[credential] = (counted[credential] ?? 0) + 1);
        const over = count > scenario.windowCalls;
        if (over) limited += 1;
        else served[replica] = (served[replica] ?? 0) + 1;
        const remaining = Math.max(0, scenario.windowCalls - count);
        clock.at(clock.now + scenario.upstreamRttMs / 2, () => answered(remaining, over));
      });
    },
    refuse(replica, credential, unreachable) {
      wanted[replica] = (wanted[replica] ?? 0) + 1;
      if (!unreachable) refusedOf[credential] = 1;
      if (unreachable) refusedUnreachable += 1;
      else refused += 1;
    },
    outcome(design) {
      const sorted = (values: number[]) => Float64Array.from(values).sort();
      const at = (values: Float64Array, share: number) =>
        values.length === 0
          ? 0
          : (values[Math.min(values.length - 1, Math.floor(values.length * share))] ?? 0);
      const addedSorted = sorted(added);
      const waitedSorted = sorted(waitedFor);
      const calls = sent + refused + refusedUnreachable;
      const servedShare = (from: number, to: number) => {
        let yes = 0;
        let all = 0;
        for (let replica = from; replica < to; replica += 1) {
          yes += served[replica] ?? 0;
          all += wanted[replica] ?? 0;
        }
        return all === 0 ? 0 : yes / all;
      };
      const tier = (from: number, to: number): Tier => {
        let runs = 0;
        let calls = 0;
        for (
          let credential = from;
          credential < Math.min(to, scenario.credentials);
          credential += 1
        ) {
          runs += runsOf[credential] ?? 0;
          calls += sentOf[credential] ?? 0;
        }
        return {
          ranks: `${from + 1}–${Math.min(to, scenario.credentials)}`,
          callShare: sent === 0 ? 0 : calls / sent,
          scriptRunsPerCall: calls === 0 ? 0 : runs / calls,
        };
      };
      return {
        tiers: [tier(0, 10), tier(10, 100), tier(100, scenario.credentials)],
        design,
        scenario: scenario.name,
        calls,
        sent,
        upstream429: limited,
        pastReadRoom: counted.reduce(
          (sum, count) => sum + Math.max(0, count - (scenario.windowCalls - floor)),
          0,
        ),
        refused,
        refusedUnreachable,
        scriptRuns,
        scriptRunsPerSec: scriptRuns / (scenario.durationMs / 1_000),
        scriptRunsPerCall: sent === 0 ? 0 : scriptRuns / sent,
        addedMeanMs: added.reduce((sum, one) => sum + one, 0) / Math.max(1, added.length),
        addedP99Ms: at(addedSorted, 0.99),
        waitedShare: sent === 0 ? 0 : waitedFor.length / sent,
        waitedP50Ms: at(waitedSorted, 0.5),
        waitedP99Ms: at(waitedSorted, 0.99),
        heavyServed: servedShare(0, scenario.heavyReplicas),
        lightServed: servedShare(scenario.heavyReplicas, scenario.replicas),
        unspentWhileRefused: counted.reduce(
          (sum, count, credential) =>
            refusedOf[credential] ? sum + Math.max(0, scenario.windowCalls - floor - count) : sum,
          0,
        ),
      };
    },
  };
}
