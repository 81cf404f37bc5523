/**
 * Runs one design through one scenario: seeded Poisson arrivals over the credentials (Zipf) and
 * the replicas (a few heavy ones), the same arrivals for every design.
 */
import type { LeaseConfig } from '../../src/upstream/budget/lease-policy.ts';
import { createLeaseDesign } from './lease-design.ts';
import { exponential, seededRandom, weightedPicker, zipfWeights } from './random.ts';
import { createTodayDesign } from './today-design.ts';
import { createWorld, type Design, type Outcome, type Scenario, type World } from './world.ts';

export type DesignChoice =
  | { readonly kind: 'today'; readonly share: number }
  | { readonly kind: 'leases'; readonly config?: LeaseConfig; readonly name?: string };

export function simulate(scenario: Scenario, choice: DesignChoice): Outcome {
  const world = createWorld(scenario);
  const design: Design =
    choice.kind === 'today'
      ? createTodayDesign(world, choice.share)
      : createLeaseDesign(world as World, choice.config);
  const random = seededRandom(scenario.seed);
  const pickCredential = weightedPicker(zipfWeights(scenario.credentials, scenario.zipfExponent));
  const weightOf = (replica: number) =>
    replica < scenario.heavyReplicas ? scenario.heavyWeight : 1;
  const anyReplica = weightedPicker(
    Array.from({ length: scenario.replicas }, (_, r) => weightOf(r)),
  );
  const affinity = scenario.replicasPerCredential;
  // With affinity, credential c is served by the replicas c, c + 1, … (mod replicas).
  const pickReplica = (credential: number): number => {
    if (affinity === undefined) return anyReplica(random);
    return (credential + Math.floor(random() * affinity)) % scenario.replicas;
  };
  const perMs = scenario.callsPerSec / 1_000;
  const arrive = () => {
    const credential = pickCredential(random);
    design.call(pickReplica(credential), credential);
    const next = world.clock.now + exponential(random, perMs);
    if (next < scenario.durationMs) world.clock.at(next, arrive);
  };
  world.clock.at(exponential(random, perMs), arrive);
  // The answers of the last calls, and the leases they end.
  world.clock.runUntil(scenario.durationMs + 60_000);
  const name = choice.kind === 'leases' ? (choice.name ?? design.name) : design.name;
  return world.outcome(name);
}
