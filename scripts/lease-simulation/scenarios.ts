/**
 * The scenarios of `npm run simulate:leases` (docs/budget.md "Across replicas: leases" prints their table), and
 * the designs compared in each.
 */
import type { DesignChoice } from './simulate.ts';
import type { Scenario } from './world.ts';

export interface Fleet {
  readonly seed: number;
  readonly replicas: number;
  readonly credentials: number;
  readonly redisRttMs: number;
  readonly upstreamRttMs: number;
  /** How long Redis is unreachable in the failure scenario, ms. */
  readonly outageMs: number;
}

export const DEFAULT_FLEET: Fleet = {
  seed: 46,
  replicas: 50,
  credentials: 1_000,
  redisRttMs: 1,
  upstreamRttMs: 100,
  outageMs: 5_000,
};

/**
 * Steady load: Zipf(1) over the credentials (the busiest has a seventh of the calls), 40 calls a
 * second per replica, ten replicas receiving four times the others' share, budgets that do not run
 * out. `affinity`: the balancer sends each credential to 3 replicas; `outage`: Redis is
 * unreachable from 10 s on for `fleet.outageMs`.
 */
export function steadyScenario(fleet: Fleet, affinity = false, outage = false): Scenario {
  const name = affinity ? 'steady, credential affinity (3 replicas each)' : 'steady';
  return {
    name: outage ? `${name}, Redis down ${fleet.outageMs / 1_000} s` : name,
    seed: fleet.seed,
    replicas: fleet.replicas,
    credentials: fleet.credentials,
    zipfExponent: 1,
    callsPerSec: 40 * fleet.replicas,
    durationMs: 30_000,
    heavyReplicas: Math.floor(fleet.replicas / 5),
    heavyWeight: 4,
    windowCalls: 1_000_000_000,
    writeReserveShare: 0.1,
    redisRttMs: fleet.redisRttMs,
    upstreamRttMs: fleet.upstreamRttMs,
    ...(affinity ? { replicasPerCredential: 3 } : {}),
    ...(outage ? { outage: { atMs: 10_000, forMs: fleet.outageMs } } : {}),
  };
}

/**
 * The window nearly spent: every credential has a 100-call window and a load that would spend 150
 * in 20 s, spread over the replicas unequally (ten of fifty receive four times the others' share).
 * With `outage`, Redis is unreachable from 10 s on — three quarters of the reads' room is spent by
 * then — for `fleet.outageMs`.
 */
export function scarceScenario(fleet: Fleet, outage: boolean): Scenario {
  return {
    name: outage
      ? `window nearly spent, Redis down ${fleet.outageMs / 1_000} s`
      : 'window nearly spent',
    seed: fleet.seed,
    replicas: fleet.replicas,
    credentials: fleet.credentials,
    zipfExponent: 0,
    callsPerSec: (fleet.credentials * 150) / 20,
    durationMs: 20_000,
    heavyReplicas: Math.floor(fleet.replicas / 5),
    heavyWeight: 4,
    windowCalls: 100,
    writeReserveShare: 0.1,
    redisRttMs: fleet.redisRttMs,
    upstreamRttMs: fleet.upstreamRttMs,
    ...(outage ? { outage: { atMs: 10_000, forMs: fleet.outageMs } } : {}),
  };
}

/**
 * Today's design with `REDIS_DOWN_BUDGET_SHARE` as documented (1 / replicas) and as defaulted
 * (0.25), and leases.
 */
export const designsFor = (fleet: Fleet): DesignChoice[] => [
  { kind: 'today', share: 1 / fleet.replicas },
  { kind: 'today', share: 0.25 },
  { kind: 'leases' },
];
