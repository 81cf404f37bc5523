/**
 * One upstream fetch across replicas, counted at the simulator: three replicas sharing
 * one Redis and one upstream each receive 25 identical cold dashboards at once. With the feature,
 * the upstream sees the calls of one replica's cold dashboard; without it (the "without" figure),
 * each replica fetches for itself. The simulator answers after 100 ms, so the replicas' misses
 * overlap as they do when a dashboard is opened by many people at once.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { SCREENS } from '../../bench/journey.ts';
import { until } from '../../support/clock.ts';
import { startReplicas, type Replica } from '../../support/replica-set.ts';
import {
  DEAD_REDIS_URL,
  REDIS_URL,
  connectTestRedis,
  deleteUnder,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const DASHBOARD = SCREENS[1]!; // the apps dashboard: the app list, then each app's status and deployments
const SECRET = 'cross-replica-test-secret-0123456789';
const LATENCY_MS = 100;

interface Run {
  readonly sim: RunningSimulator;
  readonly replicas: Replica[];
  readonly prefix: string;
}
const runs: Run[] = [];

afterEach(async () => {
  const admin = await connectTestRedis();
  for (const run of runs.splice(0)) {
    await Promise.all(run.replicas.map((replica) => replica.gateway.close()));
    await run.sim.close();
    await deleteUnder(admin, run.prefix);
  }
  await admin.close();
});

/** Replicas on a fresh prefix (a cold cache), each listening on the flight channel when it is on. */
async function coldReplicas(count: number, coalescing: 'on' | 'off'): Promise<Run> {
  const sim = await startSimulator({ ipLimits: false, latencyMs: LATENCY_MS });
  const prefix = testPrefix('xreplica');
  const replicas = await startReplicas(count, sim.url, {
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    CREDENTIAL_HMAC_SECRET: SECRET,
    UPSTREAM_CROSS_REPLICA_COALESCING: coalescing,
  });
  const run = { sim, replicas, prefix };
  runs.push(run);
  if (coalescing === 'on') {
    const admin = await connectTestRedis();
    const channel = `${prefix}:flight:done`;
    await until(
      async () => (await admin.pubSubNumSub(channel))[channel] === count,
      'every replica listening on the flight channel',
    );
    await admin.close();
  }
  return run;
}

/** `perReplica` identical dashboards sent to every replica at once; the upstream calls they made. */
async function dashboards(run: Run, perReplica: number): Promise<number> {
  const bodies = await Promise.all(
    run.replicas.flatMap((replica) =>
      Array.from({ length: perReplica }, () => replica.gql(DASHBOARD.query)),
    ),
  );
  for (const body of bodies) expect(body.errors).toBeUndefined();
  expect(new Set(bodies.map((body) => JSON.stringify(body.data))).size).toBe(1);
  return (await run.sim.stats()).total;
}

/** `weft_cross_replica_flights_total` summed over the replicas, by role. */
async function flightCounts(replicas: Replica[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = { led: 0, joined: 0, alone: 0 };
  for (const replica of replicas) {
    const text = await (await request(`${replica.url}/metrics`)).body.text();
    for (const [, role = '', value = '0'] of text.matchAll(
      /^weft_cross_replica_flights_total\{role="(\w+)"\} (\d+)$/gm,
    )) {
      counts[role] = (counts[role] ?? 0) + Number(value);
    }
  }
  return counts;
}

describe.skipIf(!testRedisAvailable)('one upstream fetch across replicas', () => {
  it('three replicas × 25 cold dashboards cost the calls of one cold dashboard; without it, about three times them', async () => {
    const one = await dashboards(await coldReplicas(1, 'on'), 1);
    expect(one).toBe(7); // the app list, then each of the 3 apps' status and deployments

    const together = await coldReplicas(3, 'on');
    const coalesced = await dashboards(together, 25);
    const alone = await dashboards(await coldReplicas(3, 'off'), 25);
    console.info(
      `cold dashboard: one replica ${one} calls; 3 replicas × 25 at once: ${coalesced} with cross-replica coalescing, ${alone} without`,
    );
    expect(coalesced).toBe(one);
    // Each upstream call was one replica's fetch for the others, and the others were answered by it.
    const flights = await flightCounts(together.replicas);
    expect(flights.led).toBe(one);
    expect(flights.joined).toBeGreaterThan(0);
    // Without it each replica fetches what it misses itself, at most once per read (whatever it
    // finds cached is free, and a read whose lookup outlasted its replica's call reads the cache
    // again): how many of the three copies of each call overlap depends on how the machine
    // schedules the replicas (9–21), but never only one of them.
    expect(alone).toBeGreaterThan(one);
    expect(alone).toBeLessThanOrEqual(3 * one);
  }, 60_000);

  it('answers a cold dashboard without waiting for a lease or a message when Redis is down', async () => {
    const sim = await startSimulator({ ipLimits: false });
    const prefix = testPrefix('xreplica-dead');
    const replicas = await startReplicas(2, sim.url, {
      REDIS_URL: DEAD_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      CREDENTIAL_HMAC_SECRET: SECRET,
      REDIS_CONNECT_TIMEOUT_MS: '200',
      REDIS_COMMAND_TIMEOUT_MS: '100',
      // What a call with no token held waits for Redis before it is refused (docs/budget.md).
      UPSTREAM_BUCKET_WAIT_MS: '300',
    });
    runs.push({ sim, replicas, prefix });
    const started = performance.now();
    const bodies = await Promise.all(replicas.map((replica) => replica.gql(DASHBOARD.query)));
    // Each replica fetches for itself, as without Redis — and holds no token of the budget the
    // replicas share, so every call is refused by name, none sent.
    for (const body of bodies) {
      expect(body.errors?.length).toBeGreaterThan(0);
      expect(
        new Set(body.errors.map((e: { extensions: { limiter?: string } }) => e.extensions.limiter)),
      ).toEqual(new Set(['SHARED_BUDGET']));
    }
    expect((await sim.stats()).total).toBe(0);
    // The bucket's wait, not a flight's lease (2 s) nor a message that cannot come.
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
