/**
 * Subscriptions to one deployment on three gateway processes sharing one Redis and one simulator,
 * counted at the simulator: ten subscribers on each of three replicas cost the
 * polls of one replica with SUBSCRIPTION_SHARED_POLLING=replicas (the default), and one poll loop
 * per replica with `process` — to the end of a deployment, and while it stays pending (the reads in
 * flight at once are the loops polling it). When the replica holding the watch's lease stops
 * (SIGTERM) or dies (SIGKILL) mid-watch, another takes the loop over and its subscribers still get
 * the terminal state.
 *
 * The simulator's clock stands still, so a deployment moves only with the status reads: read n shows
 * step n - 1 (pending, in progress, succeeded). One poll loop thus reads it exactly three times; a
 * loop per replica five times (each loop reads until it sees the end, and every read moves the
 * deployment on). While a test pins the deployment (its reads forgotten as each arrives), it stays
 * pending however often it is read: that is how a watch is kept going while a replica goes away.
 * While a test holds a deployment's reads at the simulator, each poll loop has one read in flight and
 * polls no more until it is answered: the reads held are the loops.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { deferred, until, type Deferred } from '../../support/clock.ts';
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
/** Another app of the same account: the witness deployment's reads are told apart by the path. */
const WITNESS_APP = 'app-0002';
const DEPLOYMENTS_ROUTE = 'GET /v1/hosting/nodejs/apps/{appId}/deployments';
const DEPLOY = `mutation($appId: ID!) { deployApp(input: { appId: $appId }) { deployment { deploymentId status } userErrors { code message } } }`;
const SUB = `subscription($appId: ID!, $deploymentId: ID!) { appDeployment(appId: $appId, deploymentId: $deploymentId) { deploymentId status } }`;
const SUBSCRIBERS_PER_REPLICA = 10;

let sim: RunningSimulator;
/** Deployments whose status reads are forgotten as they arrive: they stay pending. */
const pinned = new Set<string>();
/** Each deployment-list read: its app, and when it arrived (performance.now). */
const listReads: { readonly appId: string; readonly at: number }[] = [];
/** Apps whose deployment-list reads wait at the simulator until `released` settles. */
const holding = new Map<string, { held: number; readonly released: Deferred<void> }>();

/** The simulator's `onArrival`: records each deployment-list read, forgets pinned reads, holds. */
function onDeploymentsRead(url: string): Promise<void> | undefined {
  const match = /^\/v1\/hosting\/nodejs\/apps\/([^/?]+)\/deployments(\?|$)/.exec(url);
  if (!match) return undefined;
  const appId = match[1]!;
  listReads.push({ appId, at: performance.now() });
  const app = sim.simulator.context.state.hosting.apps.get(appId);
  for (const deployment of app?.deployments ?? []) {
    if (pinned.has(deployment.id)) deployment.reads = 0;
  }
  const hold = holding.get(appId);
  if (!hold) return undefined;
  hold.held += 1;
  return hold.released.promise;
}

const readsOf = (appId: string): number => listReads.filter((read) => read.appId === appId).length;
const firstReadAfter = (at: number): number | undefined =>
  listReads.find((read) => read.at > at)?.at;

const statusesOf = (collected: Collected): string[] =>
  collected.results.map((result) => result.data?.appDeployment?.status ?? 'error');

async function deploy(replica: GatewayProcess, appId = APP): Promise<string> {
  const { body } = await replica.gql(DEPLOY, { appId });
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
  appId = APP,
): { all: Promise<Collected[]>; firsts: () => number } {
  let firsts = 0;
  const seen = new Set<number>();
  const onResult = (index: number) => () => {
    if (!seen.has(index)) {
      seen.add(index);
      firsts += 1;
    }
  };
  const variables = { appId, deploymentId };
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
      // A read held at the simulator must stay one read in flight, not time out and be retried
      // while a loaded machine's witness polls (the defaults: 8 s per attempt, 10 s per call).
      UPSTREAM_HEADERS_TIMEOUT_MS: '60000',
      UPSTREAM_DEADLINE_MS: '60000',
      // A Redis command slower than the default 200 ms counts as Redis unreachable, and a replica
      // that cannot reach Redis polls for itself: on a loaded machine that added polls to the
      // counted ones. 1 s makes the watch's lease 5 s (five command timeouts).
      REDIS_COMMAND_TIMEOUT_MS: '1000',
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

/**
 * The witness's polls that show no other loop is left to poll: after the first, the next five are
 * 50 + 75 + 113 + 169 + 200 ms apart (backing off ×1.5 from SUBSCRIPTION_POLL_MIN_MS), while any loop
 * polls again at most SUBSCRIPTION_POLL_MAX_MS (200 ms) after its last answer.
 */
const WITNESS_POLLS = 6;

/**
 * The poll loops of a deployment kept pending, with ten subscribers on each replica given: once every
 * subscriber has a first state, the deployment's reads are held at the simulator, so each loop has
 * one read in flight and polls no more. Counted once `loops` reads are held and a witness — a
 * deployment of another app, watched on one of the replicas, its reads answered — has been polled
 * WITNESS_POLLS times since: a loop left unheld would have polled meanwhile. Then the reads are let
 * go and every subscriber sees both deployments to the end.
 */
async function pollLoops(
  on: GatewayProcess[],
  deployer: GatewayProcess,
  loops: number,
): Promise<number> {
  const deploymentId = await deploy(deployer);
  const witnessId = await deploy(deployer, WITNESS_APP);
  pinned.add(deploymentId);
  pinned.add(witnessId);
  const watches = on.map((replica) => subscribe(replica, deploymentId, SUBSCRIBERS_PER_REPLICA));
  let witness: ReturnType<typeof subscribe> | undefined;
  const hold = { held: 0, released: deferred() };
  try {
    await until(
      () => watches.every((watch) => watch.firsts() === SUBSCRIBERS_PER_REPLICA),
      'a first state for every subscriber',
    );
    holding.set(APP, hold);
    await until(() => hold.held >= loops, `${loops} reads held`);
    const witnessFrom = readsOf(WITNESS_APP);
    witness = subscribe(on.at(-1)!, witnessId, 1, WITNESS_APP);
    await until(
      () => readsOf(WITNESS_APP) - witnessFrom >= WITNESS_POLLS,
      `${WITNESS_POLLS} polls of the witness`,
    );
    return hold.held;
  } finally {
    holding.delete(APP);
    hold.released.resolve();
    pinned.delete(deploymentId);
    pinned.delete(witnessId);
    const streams = await Promise.all(
      [...watches, ...(witness ? [witness] : [])].map((w) => w.all),
    );
    for (const stream of streams.flat()) expect(statusesOf(stream).at(-1)).toBe('SUCCEEDED');
  }
}

describe.skipIf(!testRedisAvailable)('one poll loop per watched deployment across replicas', () => {
  const frozen = Date.now();
  beforeAll(async () => {
    sim = await startSimulator({
      ipLimits: false,
      now: () => frozen,
      onArrival: ({ url }) => onDeploymentsRead(url),
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
      const alone = await pollLoops([a], a, 1);
      const shared = await pollLoops([a, b, c], b, 1);
      figures['loops while pending: one replica × 10'] = alone;
      figures['loops while pending: 3 replicas × 10, replicas'] = shared;
      expect(alone).toBe(1);
      expect(shared).toBe(1);
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
        () => firstReadAfter(stoppedAt) !== undefined,
        'a poll by the replica that took over',
      );
      figures['first poll after the holder exited (SIGTERM), ms'] = Math.round(
        firstReadAfter(stoppedAt)! - stoppedAt,
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
      const admin = await connectTestRedis();
      onTestFinished(() => admin.close());
      const leaseKeys = (await keysUnder(admin, prefix)).filter((key) => key.endsWith(':lease'));
      expect(leaseKeys).toHaveLength(1);
      const holderBefore = await admin.get(leaseKeys[0]!);
      expect(holderBefore).not.toBeNull();
      b.child.kill('SIGKILL');
      await new Promise((resolve) => b.child.once('exit', resolve));
      const diedAt = performance.now();
      await until(
        () => firstReadAfter(diedAt) !== undefined,
        'a poll by the replica that took over',
      );
      const tookOverMs = firstReadAfter(diedAt)! - diedAt;
      figures['first poll after the holder died (SIGKILL), ms'] = Math.round(tookOverMs);
      // C polled once B's lease had lapsed and C held it (how soon is the bench's to measure).
      const holderAfter = await admin.get(leaseKeys[0]!);
      expect(holderAfter).not.toBeNull();
      expect(holderAfter).not.toBe(holderBefore);
      pinned.delete(deploymentId);
      for (const stream of await onC.all) {
        expect(stream.failure).toBeUndefined();
        expect(statusesOf(stream)).toEqual(['PENDING', 'IN_PROGRESS', 'SUCCEEDED']);
      }
      await onB.all;
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
      const alone = await pollLoops([a], a, 1);
      const separate = await pollLoops([a, b, c], c, 3);
      figures['loops while pending: 3 replicas × 10, process'] = separate;
      expect(alone).toBe(1);
      expect(separate).toBe(3);
    });
  });
});
