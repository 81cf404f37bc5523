/**
 * `npm run simulate:leases [-- --replicas 50 --credentials 1000 --redis-rtt-ms 1 --upstream-rtt-ms
 * 100 --outage-ms 5000 --seed 46]`: today's budget design against token leases
 * (docs/budget.md "Across replicas: leases"), simulated — no network, no Redis, seeded and deterministic — for a
 * fleet of replicas sharing credentials' budgets. Prints two markdown tables: the cost at steady
 * load (Redis script runs, calls that wait for Redis), and a nearly spent window with and without a
 * Redis outage (upstream 429s, refusals, fairness between replicas of unequal demand).
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_FLEET,
  designsFor,
  scarceScenario,
  steadyScenario,
  type Fleet,
} from './lease-simulation/scenarios.ts';
import { simulate } from './lease-simulation/simulate.ts';
import { costTable, scarcityTable } from './lease-simulation/tables.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    replicas: { type: 'string' },
    credentials: { type: 'string' },
    'redis-rtt-ms': { type: 'string' },
    'upstream-rtt-ms': { type: 'string' },
    'outage-ms': { type: 'string' },
  },
});

/** A positive number from the command line, or a clear refusal naming the option. */
function numberOption(name: keyof typeof values, fallback: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`--${name} must be a number ≥ 0 (got ${JSON.stringify(raw)})`);
    process.exit(2);
  }
  return value;
}

const fleet: Fleet = {
  seed: numberOption('seed', DEFAULT_FLEET.seed),
  replicas: Math.max(1, Math.round(numberOption('replicas', DEFAULT_FLEET.replicas))),
  credentials: Math.max(1, Math.round(numberOption('credentials', DEFAULT_FLEET.credentials))),
  redisRttMs: numberOption('redis-rtt-ms', DEFAULT_FLEET.redisRttMs),
  upstreamRttMs: numberOption('upstream-rtt-ms', DEFAULT_FLEET.upstreamRttMs),
  outageMs: numberOption('outage-ms', DEFAULT_FLEET.outageMs),
};

const started = performance.now();
const designs = designsFor(fleet);
const [todayDocumented, , leases] = designs;
const crossRegion: Fleet = { ...fleet, redisRttMs: Math.max(20, fleet.redisRttMs) };
const cost = [
  ...[todayDocumented, leases].map((design) => ({
    fleet,
    scenario: steadyScenario(fleet),
    design,
  })),
  ...[todayDocumented, leases].map((design) => ({
    fleet: crossRegion,
    scenario: steadyScenario(crossRegion),
    design,
  })),
  { fleet, scenario: steadyScenario(fleet, true), design: leases },
].map(({ fleet: at, scenario, design }) => ({
  ...simulate(scenario, design ?? { kind: 'leases' }),
  redisRttMs: at.redisRttMs,
}));
const scarcity = [
  scarceScenario(fleet, false),
  scarceScenario(fleet, true),
  steadyScenario(fleet, false, true),
].flatMap((scenario) => designs.map((design) => simulate(scenario, design)));

console.log(
  `${fleet.replicas} replicas × ${fleet.credentials} credentials, upstream RTT ${fleet.upstreamRttMs} ms, seed ${fleet.seed}\n`,
);
console.log(costTable(cost));
console.log('');
console.log(scarcityTable(scarcity));
console.log(`\n(${((performance.now() - started) / 1_000).toFixed(1)} s)`);
