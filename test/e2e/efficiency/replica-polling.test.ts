/**
 * Subscriptions to one deployment on three gateway processes sharing one Redis and one simulator
 * (issue 36 part 4). Counted at the simulator: ten subscribers on each of three replicas cost the
 * polls of one replica with SUBSCRIPTION_SHARED_POLLING=replicas (the default), and one poll loop
 * per replica with `process` — to the end of a deployment, and in a window while it stays pending. When the replica holding the watch's lease stops (SIGTERM) or dies
 * (SIGKILL) mid-watch, another takes the loop over and its subscribers still get the terminal state.
 *
 * The simulator's clock stands still, so a deployment moves only with the status reads: read n shows
 * step n - 1 (pending, in progress, succeeded). One poll loop thus reads it exactly three times; a
 * loop per replica five times (each loop reads until it sees the end, and every read moves the
 * deployment on). While a test pins the deployment (its reads forgotten as each arrives), it stays
 * pending however often it is read: that is how a watch is kept going while a replica goes away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../support/clock.ts';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import {
  REDIS_URL,
  connectTestRedis,
  deleteUnder,
  keysUnder,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';
import {
  collectSse,
  collectWs,
  wsClient,
  type Collected,
} from '../../support/subscription-clients.ts';

const APP = 'app-0001';
const DEPLOYMENTS_ROUTE = 'GET /v1/hosting/nodejs/apps/{appId}/deployments';
const DEPLOY = `mutation($appId: ID!) { deployApp(input: { appId: $appId }) { deployment { deploymentId status } userErrors { code message } } }`;
const SUB = `subscription($appId: ID!, $deploymentId: ID!) { appDeployment(appId: $appId, deploymentId: $deploymentId) { deploymentId status } }`;
const SUBSCRIBERS_PER_REPLICA = 10;

let sim: RunningSimulator;
/** Deployments whose status reads are forgotten as they arrive: they stay pending. */
const pinned = new Set<string>();
/** Each deployment-list read, with when it arrived (performance.now). */
const listReads: number[] = [];

function unpinnedReadsOf(url: string): void {
  const match = /^\/v1\/hosting\/nodejs\/apps\/([^/?]+)\/deployments(\?|$)/.exec(url);
  if (!match) return;
  listReads.push(performance.now());
  const app = sim.simulator.context.state.hosting.apps.get(match[1]!);
  for (const deployment of app?.deployments ?? []) {
    if (pinned.has(deployment.id)) deployment.reads = 0;
  }
}

const statusesOf = (collected: Collected): string[] =>
  collected.results.map((result) => result.data?.appDeployment?.status ?? 'error');

async function deploy(replica: GatewayProcess): Promise<string> {
  const { body } = await replica.gql(DEPLOY, { appId: APP });
  expect(body.data.deployApp.userErrors).toEqual([]);
  return body.data.deployApp.deployment.deploymentId;
}

/**
 * `count` subscribers to the deployment on one replica, half over graphql-ws (one socket), half over
 * SSE; `onFirst` hears when each has its first event.
 */
function subscribe(
  replica: GatewayProcess,
  deploymentId: string,
  count: number,
): { all: Promise<Collected[]>; firsts: () => number } {
  let firsts = 0;
  const seen = new Set<number>();
  const onResult = (index: number) => () => {
    if (!seen.has(index)) {
      seen.add(index);
      firsts += 1;
    }
  };
  const variables = { appId: APP, deploymentId };
  const client = wsClient(replica.url, { authorization: 'Bearer demo-token' });
  const overWs = Array.from({ length: Math.ceil(count / 2) }, (_, i) =>
    collectWs(client, SUB, variables, onResult(i)),
  );
  const overSse = Array.from({ length: Math.floor(count / 2) }, (_, i) =>
    collectSse(replica.url, SUB, variables, 'demo-token', onResult(overWs.length + i)),
  );
  const all = Promise.all([...overWs, ...overSse]).finally(() => client.dispose());
  return { all, firsts: () => firsts };
}

async function deploymentReads(): Promise<number> {
  return (await sim.stats()).byRoute[DEPLOYMENTS_ROUTE] ?? 0;
}

/** Three replicas on one Redis (under `prefix`) with `env`; stopped after the block. */
function useReplicas(prefix: string, env: Record<string, string>): () => GatewayProcess[] {
  const replicas: GatewayProcess[] = [];
  beforeAll(async () => {
    const shared = {
      UPSTREAM_URL: sim.url,
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      CREDENTIAL_HMAC_SECRET: 'replica-polling-secret-0123456789',
      SUBSCRIPTION_POLL_MIN_MS: '50',
      SUBSCRIPTION_POLL_MAX_MS: '200',
      ...env,
    };
    replicas.push(
      ...(await Promise.all([
        startGatewayProcess(shared),
        startGatewayProcess(shared),
        startGatewayProcess(shared),
      ])),
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    const admin = await connectTestRedis();
    await deleteUnder(admin, prefix);
    await admin.close();
  });
  return () => replicas;
}

/** Ten subscribers on each replica given, all at once; returns their streams and the reads. */
async function watchEverywhere(on: GatewayProcess[], deployer: GatewayProcess) {
  const deploymentId = await deploy(deployer);
  await sim.reset();
  const streams = (
    await Promise.all(
      on.map((replica) => subscribe(replica, deploymentId, SUBSCRIBERS_PER_REPLICA).all),
    )
  ).flat();
  return { streams, reads: await deploymentReads() };
}

/** A window of wall time in which a pinned deployment's polls are counted. */
const PENDING_WINDOW_MS = 2_000;

/**
 * Ten subscribers on each replica given to a deployment kept pending: the polls of a window of
 * time (the window is the measured quantity, not a wait for something), then it is let go to the end.
 */
async function pendingWindow(on: GatewayProcess[], deployer: GatewayProcess): Promise<number> {
  const deploymentId = await deploy(deployer);
  pinned.add(deploymentId);
  const watches = on.map((replica) => subscribe(replica, deploymentId, SUBSCRIBERS_PER_REPLICA));
  try {
    await until(
      () => watches.every((watch) => watch.firsts() === SUBSCRIBERS_PER_REPLICA),
      'a first state for every subscriber',
    );
    const from = listReads.length;
    await new Promise((resolve) => setTimeout(resolve, PENDING_WINDOW_MS));
    return listReads.length - from;
  } finally {
    pinned.delete(deploymentId);
    for (const streams of await Promise.all(watches.map((watch) => watch.all))) {
      for (const stream of streams) expect(statusesOf(stream).at(-1)).toBe('SUCCEEDED');
    }
  }
}

describe.skipIf(!testRedisAvailable)('one poll loop per watched deployment across replicas', () => {
  const frozen = Date.now();
  beforeAll(async () => {
    sim = await startSimulator({
      ipLimits: false,
      now: () => frozen,
      onArrival: ({ url }) => unpinnedReadsOf(url),
    });
  });
  afterAll(() => sim?.close());

  const figures: Record<string, number> = {};
  afterAll(() => {
    console.log(
      `deployment polls, ${SUBSCRIBERS_PER_REPLICA} subscribers per replica: ${JSON.stringify(figures)}`,
    );
  });

  describe('SUBSCRIPTION_SHARED_POLLING=replicas (the default)', () => {
    const prefix = testPrefix('poll-replicas');
    const replicas = useReplicas(prefix, {});

    it('polls for three replicas × ten subscribers as for one replica', async () => {
      const [a, b, c] = replicas() as [GatewayProcess, GatewayProcess, GatewayProcess];
      const alone = await watchEverywhere([a], a);
      const shared = await watchEverywhere([a, b, c], b);
      figures['one replica × 10'] = alone.reads;
      figures['3 replicas × 10, replicas'] = shared.reads;
      for (const stream of [...alone.streams, ...shared.streams]) {
        expect(stream.failure).toBeUndefined();
        expect(statusesOf(stream).at(-1)).toBe('SUCCEEDED');
      }
      expect(alone.reads).toBe(3);
      expect(shared.reads).toBe(alone.reads);
      expect((await sim.stats()).total).toBe(shared.reads); // nothing else was called
    });

    it('polls a deployment that stays pending as one replica does, not once per replica', async () => {
      const [a, b, c] = replicas() as [GatewayProcess, GatewayProcess, GatewayProcess];
      const alone = await pendingWindow([a], a);
      const shared = await pendingWindow([a, b, c], b);
      figures[`pending ${PENDING_WINDOW_MS} ms: one replica × 10`] = alone;
      figures[`pending ${PENDING_WINDOW_MS} ms: 3 replicas × 10, replicas`] = shared;
      // One loop either way (backing off 50 → 200 ms): the same count, give or take the timers.
      expect(shared).toBeLessThanOrEqual(alone + 3);
    });

    it('moves the poll loop when the holder stops mid-watch; the others still get the terminal state', async () => {
      const [a, b, c] = replicas() as [GatewayProcess, GatewayProcess, GatewayProcess];
      const deploymentId = await deploy(a);
      pinned.add(deploymentId);
      // A subscribes first: its poller claims the lease and polls; B and C follow it.
      const onA = subscribe(a, deploymentId, 3);
      await until(() => onA.firsts() === 3, 'the first state on A');
      const onB = subscribe(b, deploymentId, 3);
      const onC = subscribe(c, deploymentId, 3);
      await until(() => onB.firsts() === 3 && onC.firsts() === 3, 'the state so far on B and C');
      // The watch's keys name the credential by its HMAC id only, and no id of the resource.
      const admin = await connectTestRedis();
      const keys = await keysUnder(admin, prefix).finally(() => admin.close());
      const watchKeys = keys.filter((key) => key.includes(':watch:'));
      for (const key of watchKeys) {
        expect(key).toMatch(/:watch:\{[0-9a-f]{32}\}:[0-9a-f]{32}:(lease|latest)$/);
      }
      expect(watchKeys.filter((key) => key.endsWith(':lease'))).toHaveLength(1);
      expect(watchKeys.join(' ')).not.toMatch(/demo-token|app-0001|deployment-/);
      await a.stop();
      // A is gone: any read from now on is another replica's.
      const stoppedAt = performance.now();
      await until(
        () => listReads.some((at) => at > stoppedAt),
        'a poll by the replica that took over',
      );
      figures['first poll after the holder exited (SIGTERM), ms'] = Math.round(
        listReads.find((at) => at > stoppedAt)! - stoppedAt,
      );
      pinned.delete(deploymentId);
      const [onAStreams, onBStreams, onCStreams] = await Promise.all([onA.all, onB.all, onC.all]);
      // A's streams were ended by its shutdown; B's and C's saw the deployment through.
      for (const stream of onAStreams) expect(statusesOf(stream)).not.toContain('SUCCEEDED');
      for (const stream of [...onBStreams, ...onCStreams]) {
        expect(stream.failure).toBeUndefined();
        expect(statusesOf(stream)).toEqual(['PENDING', 'IN_PROGRESS', 'SUCCEEDED']);
      }
    });

    it('moves the poll loop when the holder dies (SIGKILL): its lease lapses', async () => {
      const [, b, c] = replicas() as [GatewayProcess, GatewayProcess, GatewayProcess];
      const deploymentId = await deploy(b);
      pinned.add(deploymentId);
      const onB = subscribe(b, deploymentId, 3);
      await until(() => onB.firsts() === 3, 'the first state on B');
      const onC = subscribe(c, deploymentId, 3);
      await until(() => onC.firsts() === 3, 'the state so far on C');
      b.child.kill('SIGKILL');
      await new Promise((resolve) => b.child.once('exit', resolve));
      const diedAt = performance.now();
      await until(
        () => listReads.some((at) => at > diedAt),
        'a poll by the replica that took over',
      );
      const tookOverMs = listReads.find((at) => at > diedAt)! - diedAt;
      figures['first poll after the holder died (SIGKILL), ms'] = Math.round(tookOverMs);
      pinned.delete(deploymentId);
      for (const stream of await onC.all) {
        expect(stream.failure).toBeUndefined();
        expect(statusesOf(stream)).toEqual(['PENDING', 'IN_PROGRESS', 'SUCCEEDED']);
      }
      await onB.all;
      // The lease (1 s here: five Redis command timeouts) and a third of it for the next claim.
      expect(tookOverMs).toBeLessThan(1_000 * (4 / 3) + 1_000);
    });
  });

  describe('SUBSCRIPTION_SHARED_POLLING=process', () => {
    const replicas = useReplicas(testPrefix('poll-process'), {
      SUBSCRIPTION_SHARED_POLLING: 'process',
    });

    it('polls once per replica: the figure without the feature', async () => {
      const [a, b, c] = replicas() as [GatewayProcess, GatewayProcess, GatewayProcess];
      const separate = await watchEverywhere([a, b, c], a);
      figures['3 replicas × 10, process'] = separate.reads;
      for (const stream of separate.streams) {
        expect(statusesOf(stream).at(-1)).toBe('SUCCEEDED');
      }
      // Three loops: the three reads that take the deployment to its end, and one more read by each
      // loop that had not seen the end yet.
      expect(separate.reads).toBe(5);
    });

    it('polls a deployment that stays pending once per replica', async () => {
      const [a, b, c] = replicas() as [GatewayProcess, GatewayProcess, GatewayProcess];
      const alone = await pendingWindow([a], a);
      const separate = await pendingWindow([a, b, c], c);
      figures[`pending ${PENDING_WINDOW_MS} ms: 3 replicas × 10, process`] = separate;
      // Three loops (about three times the polls; timers on a loaded machine run late).
      expect(separate).toBeGreaterThanOrEqual(alone * 1.6);
    });
  });
});
