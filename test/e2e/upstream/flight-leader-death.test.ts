/**
 * One fetch across replicas when the replica fetching for the others dies mid-call: replica A (a
 * process) takes the lease for the apps dashboard's first call and is killed (SIGKILL) while the
 * simulator holds that call; replica B, asking for the same dashboard just after, finds the lease
 * held, waits, and fetches for itself once the lease — no longer renewed — lapses: answered within
 * its deadline, never waiting for a message that will not come.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENS } from '../../bench/journey.ts';
import { deferred, until } from '../../support/clock.ts';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import {
  REDIS_URL,
  connectTestRedis,
  deleteUnder,
  keysUnder,
  testPrefix,
  testRedisAvailable,
  type TestRedis,
} from '../../support/redis.ts';
import { startReplicas, type Replica } from '../../support/replica-set.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const DASHBOARD = SCREENS[1]!;
const WARM_UP = `{ certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "cert-0001") { certificateId } } }`;
const LEASE_MS = 1_500;
const DEADLINE_MS = 8_000;

describe.skipIf(!testRedisAvailable)('a replica fetching for the others dies mid-call', () => {
  const prefix = testPrefix('flight-death');
  const held = deferred();
  let arrivals = 0;
  let appListArrivals = 0;
  let admin: TestRedis;
  let sim: RunningSimulator;
  let a: GatewayProcess;
  let b: Replica;

  beforeAll(async () => {
    admin = await connectTestRedis();
    // Replica A's app list (the call after the warm-up) is held until the test ends.
    sim = await startSimulator({
      ipLimits: false,
      onArrival: ({ method, url }) => {
        arrivals += 1;
        if (method === 'GET' && new URL(url, 'http://sim').pathname === '/v1/hosting/nodejs/apps') {
          appListArrivals += 1;
        }
        return appListArrivals === 1 && arrivals === 2 ? held.promise : undefined;
      },
    });
    const env = {
      UPSTREAM_URL: sim.url,
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      CREDENTIAL_HMAC_SECRET: 'flight-death-secret-0123456789',
      UPSTREAM_COALESCING_LEASE_MS: String(LEASE_MS),
      UPSTREAM_DEADLINE_MS: String(DEADLINE_MS),
    };
    const [process, inProcess] = await Promise.all([
      startGatewayProcess(env),
      startReplicas(1, sim.url, env),
    ]);
    a = process;
    b = inProcess[0]!;
    const channel = `${prefix}:flight:done`;
    await until(
      async () => (await admin.pubSubNumSub(channel))[channel] === 2,
      'both replicas listening on the flight channel',
    );
  }, 90_000);

  afterAll(async () => {
    held.resolve();
    await a?.stop();
    await b?.gateway.close();
    await sim?.close();
    await deleteUnder(admin, prefix);
    await admin.close();
  });

  it('lets the waiting replica fetch once the dead one stops renewing its lease, within the deadline', async () => {
    // One answered call first, so the credential's view is fresh: a never-answered credential sends
    // one call at a time (docs/budget.md "The send window"), and B's would wait for A's held one.
    expect((await a.gql(WARM_UP)).body.errors).toBeUndefined();
    const abandoned = a.gql(DASHBOARD.query).catch(() => undefined);
    await until(() => appListArrivals === 1, "replica A's app list held at the simulator");
    // A holds the lease of its app list (the warm-up's flight, finished, says `done:stored`).
    const flights = await keysUnder(admin, `${prefix}:flight`);
    const values = await Promise.all(flights.map((key) => admin.get(key)));
    expect(values.filter((value) => !value?.startsWith('done:'))).toHaveLength(1);

    a.child.kill('SIGKILL');
    const started = performance.now();
    const body = await b.gql(DASHBOARD.query);
    const took = performance.now() - started;
    await abandoned;

    expect(body.errors).toBeUndefined();
    expect(body.data.apps.length).toBeGreaterThan(0);
    // B waited for the lease A renewed last (at most 1.5 s before it died), then fetched itself …
    expect(took).toBeGreaterThanOrEqual(LEASE_MS / 2);
    // … within half its deadline, the longest a wait may take.
    expect(took).toBeLessThan(DEADLINE_MS / 2);
    expect(appListArrivals).toBe(2); // A's, held, and B's own
  });
});
