/**
 * A gateway started while part of its Redis Cluster is already gone. A cluster of its own (three
 * masters, three replicas on 7020–7025) loses one master AND its replica (no promotion possible),
 * and only then is the gateway process started. Whatever has no reachable master must fail at once
 * into the fallbacks, as it does when the same nodes are lost after start-up: `viewer.rateLimit`
 * answers before a Redis command timeout (10 s here, the witness: the longest the configuration
 * allows, so that no stall of a loaded machine comes near it) could have elapsed — its time (under
 * 100 ms on a quiet machine) is printed, the bench's to hold. A tenant whose bucket is on a healthy
 * master is served on the shared bucket (leases of it). A tenant whose bucket is on the dead master
 * holds no lease of it: its reads are refused by name — RATE_LIMITED, `limiter: "SHARED_BUDGET"` —
 * once they have waited for the bucket (`UPSTREAM_BUCKET_WAIT_MS`), never for a command timeout,
 * and nothing is sent upstream for them (docs/budget.md "Across replicas: leases"). `/readyz`
 * stays 200 and says how many slots have no reachable master. Then a gateway none of whose cluster
 * nodes can be reached (three refuse connections, one accepts and never answers, so the discovery
 * is still under way): the same answers, nothing waits for that discovery.
 */
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import { until } from '../../support/clock.ts';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import {
  killNode,
  masterOfSlot,
  nodeSays,
  startTestCluster,
  type TestCluster,
} from '../../support/redis-cluster-launcher.ts';
import { decide, optedOut } from '../../support/requirements.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const FIRST_PORT = 7020;
const PREFIX = 'wt-nodes-down';
const WINDOW = 600;
/** How long a read waits for the budget it shares with the other replicas before it is refused. */
const BUCKET_WAIT_MS = 1_000;
/**
 * The witness: a request that waited for a Redis command's timeout would answer after this. The
 * longest REDIS_COMMAND_TIMEOUT_MS allows: a request slowed by a loaded machine stays far below it.
 */
const COMMAND_TIMEOUT_MS = 10_000;
/** A request that has not answered by then has waited on Redis: it is given up, and fails. */
const HANG_MS = COMMAND_TIMEOUT_MS - 1_000;
const HEALTHY = 'demo-token' as const;
const DEAD = 'demo-other' as const;
const DETAIL = `query($customer: ID!, $id: ID!) { certificateCustomer(customerId: $customer) { certificate(certificateId: $id) { certificateId } } }`;
/** A certificate of each tenant's account (the simulator's fixtures). */
const OWN = {
  [HEALTHY]: { customer: 'demo-customer', id: 'cert-0003' },
  [DEAD]: { customer: 'other-customer', id: 'cert-0090' },
};
const REMAINING = '{ viewer { rateLimit { remaining } } }';

/** Whether redis-server can give this file a cluster: fails, with how, when it cannot. */
const clusterWanted = !optedOut(process.env).has('redis-cluster');

interface Answer {
  readonly status: number;
  readonly body: any;
  readonly ms: number;
}

/** A request to a gateway, timed; one that hangs fails the test after {@link HANG_MS}. */
async function timed(
  gateway: GatewayProcess,
  method: 'GET' | 'POST',
  path: string,
  init: { query?: string; variables?: Record<string, unknown>; token?: string } = {},
): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await request(`${gateway.url}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      },
      body:
        method === 'POST'
          ? JSON.stringify({ query: init.query, variables: init.variables })
          : undefined,
      signal: AbortSignal.timeout(HANG_MS),
    });
    const body = await res.body.json();
    return { status: res.statusCode, body, ms: performance.now() - started };
  } catch (error) {
    throw new Error(`${method} ${path} ${init.query ?? ''}: no answer in ${HANG_MS} ms`, {
      cause: error,
    });
  }
}

/**
 * The gateway's first GraphQL request, which needs nothing from Redis nor from the upstream (no
 * credential): it compiles what every later request reuses, so the requests timed after it measure
 * waiting, not a cold process. It must answer too.
 */
async function warmUp(gateway: GatewayProcess, label: string) {
  const answer = await timed(gateway, 'POST', '/graphql', { query: '{ __typename }' });
  console.log(
    `${label}: the first request ({ __typename }) answered in ${answer.ms.toFixed(1)} ms`,
  );
  expect(answer.body).toEqual({ data: { __typename: 'Query' } });
}

/** How many times each `viewer.rateLimit` figure is measured. */
const SAMPLES = 5;

/**
 * Asks `viewer.rateLimit` as `token` {@link SAMPLES} times, one after the other, each timed: none
 * may have waited for a command timeout (the witness; `timed` gives up before it). The times are
 * printed. Returns what the last one said is left.
 */
async function rateLimitAtOnce(gateway: GatewayProcess, token: string, label: string) {
  const times: number[] = [];
  let remaining = Number.NaN;
  for (let n = 0; n < SAMPLES; n += 1) {
    const answer = await timed(gateway, 'POST', '/graphql', { query: REMAINING, token });
    expect(answer.body.errors).toBeUndefined();
    times.push(answer.ms);
    remaining = answer.body.data.viewer.rateLimit.remaining as number;
  }
  console.log(
    `${label}: { viewer { rateLimit } } answered in ${times.map((ms) => ms.toFixed(1)).join(', ')} ms`,
  );
  for (const ms of times) expect(ms).toBeLessThan(COMMAND_TIMEOUT_MS);
  return remaining;
}

/** The slots a node serves as a master, from its own `CLUSTER NODES` line. */
async function slotCount(port: number): Promise<number> {
  const line = (await nodeSays(port, 'CLUSTER', 'NODES'))
    .split('\n')
    .find((entry) => entry.includes('myself'));
  let count = 0;
  for (const range of line?.split(' ').slice(8) ?? []) {
    const [from, to = from] = range.split('-').map(Number);
    if (from !== undefined && to !== undefined) count += to - from + 1;
  }
  return count;
}

describe.skipIf(!clusterWanted)('a gateway started with Redis Cluster nodes already down', () => {
  let cluster: TestCluster;
  let sim: RunningSimulator;
  const ports = Array.from({ length: 6 }, (_, i) => FIRST_PORT + i);
  const started: GatewayProcess[] = [];

  const baseEnv = () => ({
    UPSTREAM_URL: sim.url,
    REDIS_KEY_PREFIX: PREFIX,
    UPSTREAM_RATE_LIMIT: String(WINDOW),
    UPSTREAM_BUCKET_WAIT_MS: String(BUCKET_WAIT_MS),
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    // Not below the command timeout (the configuration refuses it): a witness as well.
    REDIS_CONNECT_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
  });
  const startGateway = async (env: Record<string, string>) => {
    const gateway = await startGatewayProcess({ ...baseEnv(), ...env }, 30_000);
    started.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    // A fresh cluster every run: nodes left on these ports by an interrupted run go first.
    await Promise.all(ports.map((port) => nodeSays(port, 'SHUTDOWN', 'NOSAVE')));
    cluster = await startTestCluster(FIRST_PORT).catch((error: Error) => {
      decide('redis-cluster', false, process.env, error.message);
      throw error;
    });
    sim = await startSimulator({ rateLimit: WINDOW, ipLimits: false });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((gateway) => gateway.stop()));
    await sim?.close();
    // Every node this file started, the killed ones excepted (SHUTDOWN to a dead one is a no-op).
    await Promise.all(ports.map((port) => nodeSays(port, 'SHUTDOWN', 'NOSAVE')));
    await cluster?.stop();
  });

  it("answers at once, serves healthy slots on the shared bucket and refuses a dead slot's reads by name", async () => {
    // A secret that puts the two tenants' buckets on two different masters.
    const bucketOf = (secret: string, token: string) =>
      `${PREFIX}:bucket:{${createCredentialFactory(secret)(token).id}}`;
    const masterOf = async (key: string) =>
      masterOfSlot(ports, Number(await nodeSays(ports[0]!, 'CLUSTER', 'KEYSLOT', key)));
    let secret = '';
    let healthyMaster = 0;
    let victim = 0;
    for (let n = 0; victim === healthyMaster; n += 1) {
      secret = `nodes-down-secret-${n}-0123456789`;
      healthyMaster = await masterOf(bucketOf(secret, HEALTHY));
      victim = await masterOf(bucketOf(secret, DEAD));
    }
    const victimSlots = await slotCount(victim);
    // Its replica first, then the master: nothing can be promoted.
    const replica = Number(
      /slave0:ip=[^,]+,port=(\d+)/.exec(await nodeSays(victim, 'INFO', 'replication'))?.[1],
    );
    expect(ports).toContain(replica);
    await killNode(replica, cluster.dir!);
    await killNode(victim, cluster.dir!);
    // The steady state: the cluster itself has marked the master as failed.
    await until(
      async () => {
        const nodes = await nodeSays(healthyMaster, 'CLUSTER', 'NODES');
        const line = nodes.split('\n').find((entry) => entry.includes(`:${victim}@`));
        return line !== undefined && / master,fail /.test(` ${line.split(' ')[2]} `);
      },
      'the cluster marks the killed master as failed',
      15_000,
    );

    const gateway = await startGateway({
      REDIS_CLUSTER_NODES: cluster.nodes,
      CREDENTIAL_HMAC_SECRET: secret,
    });

    await warmUp(gateway, 'two nodes down');
    // Nothing the healthy tenant asks needs the dead master: its whole window, from the shared
    // bucket. The dead tenant's bucket is on the dead master: its figure comes at once all the same
    // (this replica's own view).
    expect(await rateLimitAtOnce(gateway, HEALTHY, 'healthy slot')).toBe(WINDOW);
    await rateLimitAtOnce(gateway, DEAD, 'slot without a master');

    // The healthy tenant's read is served (an upstream call: no time bound but the hang).
    const served = await timed(gateway, 'POST', '/graphql', {
      query: DETAIL,
      variables: OWN[HEALTHY],
      token: HEALTHY,
    });
    console.log(`${HEALTHY}: a certificate read answered in ${served.ms.toFixed(1)} ms`);
    expect(served.body.errors).toBeUndefined();
    expect(served.body.data.certificateCustomer.certificate.certificateId).toBe(OWN[HEALTHY].id);
    // On the shared bucket: what the gateway says is left is what Redis holds — the bucket's
    // tokens and what this replica's lease of it holds — and the call is counted there.
    const bucket = bucketOf(secret, HEALTHY);
    const tokens = Number(await nodeSays(healthyMaster, 'HGET', bucket, 'tokens'));
    // One field per replica: "held endsAt demand".
    const leases = await nodeSays(healthyMaster, 'HVALS', bucket.replace(':bucket:', ':leases:'));
    const held = leases
      .split('\n')
      .filter((line) => line.trim() !== '')
      .reduce((sum, line) => sum + Number(line.split(' ')[0]), 0);
    expect(Math.floor(tokens) + held).toBe(WINDOW - 1);
    expect(await rateLimitAtOnce(gateway, HEALTHY, 'healthy slot, after a call')).toBe(WINDOW - 1);

    // The dead tenant's read: this replica holds no lease of its bucket and cannot get one. It is
    // refused by name once it has waited for the bucket — never for a command timeout — and
    // nothing goes upstream for it.
    const callsBefore = (await sim.stats()).total;
    const refused = await timed(gateway, 'POST', '/graphql', {
      query: DETAIL,
      variables: OWN[DEAD],
      token: DEAD,
    });
    console.log(`${DEAD}: a certificate read refused in ${refused.ms.toFixed(1)} ms`);
    expect(refused.ms).toBeLessThan(COMMAND_TIMEOUT_MS);
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'SHARED_BUDGET',
      retryAfterSec: 1,
    });
    expect((await sim.stats()).total).toBe(callsBefore);
    await rateLimitAtOnce(gateway, DEAD, 'slot without a master, after a refused read');
    await expect
      .poll(() => gateway.logs.join('\n'), { timeout: 5_000, interval: 20 })
      .toContain('token leases: Redis unavailable');

    // Readiness: still ready (the replica serves, on its fallbacks), and it says what is missing.
    const ready = await timed(gateway, 'GET', '/readyz');
    console.log(`/readyz: ${ready.status} ${JSON.stringify(ready.body)}`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      sharedState: { store: 'redis-cluster', state: 'degraded', unreachableSlots: victimSlots },
    });
  }, 60_000);

  it('answers at once while no node of the cluster can be reached at all', async () => {
    // A node that accepts connections and never answers: a discovery that asks it never ends.
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    silent.listen(7029, '127.0.0.1');
    await once(silent, 'listening');
    onTestFinished(async () => {
      for (const socket of held) socket.destroy();
      silent.close();
      await once(silent, 'close');
    });
    // And ports of this file's range where nothing listens: every connection is refused.
    const nowhere = [7026, 7027, 7028, 7029].map((port) => `127.0.0.1:${port}`).join(',');
    const gateway = await startGateway({
      REDIS_CLUSTER_NODES: nowhere,
      CREDENTIAL_HMAC_SECRET: 'nodes-down-secret-nowhere-0123456789',
    });
    onTestFinished(() => gateway.stop());
    await warmUp(gateway, 'no node reachable');
    // The discovery is still under way: it asked the silent node.
    expect(held.length).toBeGreaterThan(0);
    await rateLimitAtOnce(gateway, HEALTHY, 'no node reachable');
    // No lease can be had: a read is refused by name once it has waited for the bucket, and
    // nothing goes upstream.
    const callsBefore = (await sim.stats()).total;
    const read = await timed(gateway, 'POST', '/graphql', {
      query: DETAIL,
      variables: OWN[HEALTHY],
      token: HEALTHY,
    });
    console.log(`no node reachable: a certificate read refused in ${read.ms.toFixed(1)} ms`);
    expect(read.ms).toBeLessThan(COMMAND_TIMEOUT_MS);
    expect(read.body.errors).toHaveLength(1);
    expect(read.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'SHARED_BUDGET',
      retryAfterSec: 1,
    });
    expect((await sim.stats()).total).toBe(callsBefore);
    // Still answering at once while the connection keeps trying in the background.
    await rateLimitAtOnce(gateway, HEALTHY, 'no node reachable, later');
    const ready = await timed(gateway, 'GET', '/readyz');
    console.log(`/readyz: ${ready.status} ${JSON.stringify(ready.body)}`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      sharedState: { store: 'redis-cluster', state: 'unreachable', unreachableSlots: 16384 },
    });
  }, 40_000);
});
