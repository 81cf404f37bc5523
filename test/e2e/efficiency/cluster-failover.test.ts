/**
 * Two gateway processes on a Redis Cluster of their own (three masters, three replicas on
 * 7010–7015), serving reads and idempotent mutations, while the master that holds the credential's
 * bucket is killed (SIGKILL). Counted at the simulator: no upstream 429, one upstream write per
 * Idempotency-Key, none lost; every read answered (the budget continues: the documented local share
 * while the slot has no master, then the promoted replica); and, without a restart, both replicas
 * read the shared bucket in Redis again once the cluster has promoted the replica. Then the node
 * carrying a subscription is killed: the subscription moves to a live node.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import { createRedisClusterConnection } from '../../../src/upstream/redis-cluster-connection.ts';
import { until } from '../../support/clock.ts';
import { createCsr } from '../../support/csr.ts';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import {
  killNode,
  masterOfSlot,
  nodeSays,
  startNode,
  startTestCluster,
  waitFor,
  type TestCluster,
} from '../../support/redis-cluster-launcher.ts';
import { decide, optedOut } from '../../support/requirements.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const SECRET = 'cluster-failover-secret-0123456789';
const PREFIX = 'wt-failover';
const WINDOW = 600;
const cert = (n: number) => `cert-${String((n % 40) + 1).padStart(4, '0')}`;
const DETAIL = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") { certificate(certificateId: $id) { certificateId } } }`;
const ORDER = `mutation Order($input: OrderCertificateInput!) {
  orderCertificate(input: $input) { certificateId userErrors { code message } } }`;
const WRITE = 'POST /v2/certificates';
const REMAINING = '{ viewer { rateLimit { remaining } } }';
const READS_PER_ORDER = 20;

/** Whether redis-server can give this file a cluster: fails, with how, when it cannot. */
const clusterWanted = !optedOut(process.env).has('redis-cluster');

describe.skipIf(!clusterWanted)('a Redis Cluster master killed under two replicas', () => {
  let cluster: TestCluster;
  let sim: RunningSimulator;
  let csr: string;
  const replicas: GatewayProcess[] = [];

  beforeAll(async () => {
    cluster = await startTestCluster(7010).catch((error: Error) => {
      decide('redis-cluster', false, process.env, error.message);
      throw error;
    });
    csr = await createCsr('www.failover.example.com');
    sim = await startSimulator({ rateLimit: WINDOW, ipLimits: false });
    const env = {
      UPSTREAM_URL: sim.url,
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_KEY_PREFIX: PREFIX,
      CREDENTIAL_HMAC_SECRET: SECRET,
      UPSTREAM_RATE_LIMIT: String(WINDOW),
      // Two replicas: each may take half of what is left while a slot has no master.
      REDIS_DOWN_BUDGET_SHARE: '0.5',
    };
    replicas.push(...(await Promise.all([startGatewayProcess(env), startGatewayProcess(env)])));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await sim?.close();
    await cluster?.stop();
  });

  /** An order with an Idempotency-Key, to one replica: the certificate id, or why not. */
  async function order(replica: GatewayProcess, key: string) {
    const response = await fetch(`${replica.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer demo-token',
        'idempotency-key': key,
      },
      body: JSON.stringify({
        query: ORDER,
        variables: { input: { csr, productType: 'DV_SSL', period: 1 } },
      }),
    });
    const body = (await response.json()) as any;
    return {
      id: body.data?.orderCertificate?.certificateId as string | undefined,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      error: body.errors?.[0]?.extensions?.code as string | undefined,
    };
  }

  const bucketKey = `${PREFIX}:bucket:{${createCredentialFactory(SECRET)('demo-token').id}}`;

  it('keeps serving within the budget, writes each order once, and uses Redis again after the promotion', async () => {
    const slot = Number(await nodeSays(cluster.ports[0]!, 'CLUSTER', 'KEYSLOT', bucketKey));
    const victim = await masterOfSlot(cluster.ports, slot);
    // Where its pid file and cluster state are (`CONFIG GET dir` answers "dir", then the path).
    const dir = (await nodeSays(victim, 'CONFIG', 'GET', 'dir')).split('\n')[1]!;

    // Load: reads on both replicas, and orders (each with its own key) alternating replicas.
    let running = true;
    let next = 0;
    const reads: { ok: boolean; code?: string }[] = [];
    const orders: { key: string; replica: GatewayProcess; id?: string; attempts: number }[] = [];
    // A request that fails outright (a replica gone) counts as not answered, not as a crash.
    const readers = Array.from({ length: 4 }, async () => {
      while (running) {
        const n = next++;
        try {
          const { body } = await replicas[n % 2]!.gql(DETAIL, { id: cert(n) });
          reads.push({ ok: body.errors === undefined, code: body.errors?.[0]?.extensions?.code });
        } catch (error) {
          reads.push({ ok: false, code: (error as Error).message });
        }
      }
    });
    // One order per READS_PER_ORDER reads: a screen's load, where writes are the rare request (an
    // unpaced loop orders hundreds a second and spends the window on writes alone).
    const writer = (async () => {
      for (let n = 0; running; n += 1) {
        await until(
          () => !running || reads.length >= n * READS_PER_ORDER,
          'reads between orders',
          20_000,
        );
        if (!running) break;
        const entry: (typeof orders)[number] = {
          key: randomUUID(),
          replica: replicas[n % 2]!,
          attempts: 0,
        };
        orders.push(entry);
        // A client retries a failed order with the same key, on the same replica.
        while (entry.id === undefined && entry.attempts < 5) {
          entry.attempts += 1;
          entry.id = await order(entry.replica, entry.key).then(
            (answer) => answer.id,
            () => undefined,
          );
        }
      }
    })();
    onTestFinished(async () => {
      running = false;
      await Promise.all([...readers, writer]);
    });

    await until(() => orders.length >= 5 && reads.length >= 100, 'load before the kill', 20_000);
    const ordersBeforeKill = orders.filter((entry) => entry.id !== undefined).slice(0, 4);
    await killNode(victim, dir);
    // The cluster notices (cluster-node-timeout 1 s) and promotes the victim's replica.
    let promoted = victim;
    await waitFor(
      'no replica promoted',
      async () => {
        promoted = await masterOfSlot(cluster.ports, slot).catch(() => victim);
        return promoted !== victim;
      },
      20_000,
    );
    const readsAtPromotion = reads.length;
    await until(() => reads.length >= readsAtPromotion + 40, 'load after the promotion', 20_000);
    running = false;
    await Promise.all([...readers, writer]);

    // Without a restart, each replica reads the shared bucket again: its remaining is the bucket's
    // (the local share would hold half of what was left). Read from the promoted master itself.
    const tokens = async () =>
      Math.floor(Number(await nodeSays(promoted, 'HGET', bucketKey, 'tokens')));
    for (const replica of replicas) {
      await until(
        async () => {
          const { body } = await replica.gql(REMAINING);
          return Math.abs(body.data.viewer.rateLimit.remaining - (await tokens())) <= 1;
        },
        'the replica on the shared bucket again',
        15_000,
      );
    }
    // The budget went through the slot's outage on the local share, and came back to Redis.
    // Lines go out in batches (at most 50 ms late): waited for, not read at once.
    const logged = (line: string) =>
      until(
        () => replicas.some((replica) => replica.logs.some((entry) => entry.includes(line))),
        `the log line "${line}"`,
        5_000,
      );
    await logged('token buckets: Redis unavailable');
    await logged('token buckets: back on the shared Redis buckets');
    // And what one spends, the other sees in Redis.
    const before = await tokens();
    for (let n = 100; n < 106; n += 1) await replicas[n % 2]!.gql(DETAIL, { id: `cert-9${n}` });
    expect(await tokens()).toBeLessThan(before);

    const stats = await sim.stats();
    expect(stats.byStatus['429']).toBeUndefined();
    // Every read answered, none refused for want of budget.
    expect(reads.filter((read) => !read.ok)).toEqual([]);
    // Every order written, each exactly once.
    expect(orders.filter((entry) => entry.id === undefined)).toEqual([]);
    expect(new Set(orders.map((entry) => entry.id)).size).toBe(orders.length);
    expect(stats.byRoute[WRITE]).toBe(orders.length);
    // An order retried after the failover, on its replica, is replayed: its record (written before
    // the kill) survived on the promoted replica.
    for (const entry of ordersBeforeKill) {
      const again = await order(entry.replica, entry.key);
      expect(again).toMatchObject({ id: entry.id, replayed: true });
    }
    expect((await sim.stats()).byRoute[WRITE]).toBe(orders.length);

    // The victim comes back as a replica: the cluster is whole for whatever runs next.
    await startNode(victim, dir);
  }, 120_000);

  it('keeps a subscription when the node carrying it is killed (classic pub/sub moves)', async () => {
    const open = () =>
      createRedisClusterConnection({
        nodes: cluster.nodes.split(','),
        connectTimeoutMs: 1_000,
        commandTimeoutMs: 300,
        logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
      });
    const [subscriber, publisher] = [open(), open()];
    onTestFinished(() =>
      Promise.all([subscriber.close(), publisher.close()]).then(() => undefined),
    );
    expect(await subscriber.usable()).toBe(true);
    expect(await publisher.usable()).toBe(true);
    const channel = `${PREFIX}:done:{cred-a}`;
    const heard: string[] = [];
    await subscriber.subscribe(channel, (message) => heard.push(message));
    await publisher.publish(channel, 'before');
    await until(() => heard.includes('before'), 'the message before the kill');

    // The node the subscription listens on (PUBSUB NUMSUB counts a node's own subscribers), killed
    // like the first victim.
    const ports = cluster.nodes.split(',').map((node) => Number(node.split(':')[1]));
    const listening: number[] = [];
    for (const port of ports) {
      const numsub = await nodeSays(port, 'PUBSUB', 'NUMSUB', channel);
      if (Number(numsub.split('\n')[1]) > 0) listening.push(port);
    }
    expect(listening).toHaveLength(1);
    const victim = listening[0]!;
    const dir = (await nodeSays(victim, 'CONFIG', 'GET', 'dir')).split('\n')[1]!;
    await killNode(victim, dir);
    onTestFinished(() => startNode(victim, dir));
    // Publishing until one is heard again: publishes fail or go unheard while the slot map is old.
    let sent = 0;
    await until(
      async () => {
        sent += 1;
        await publisher.publish(channel, `after ${sent}`).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return heard.some((message) => message.startsWith('after'));
      },
      'a message heard after the kill',
      20_000,
    );
  }, 60_000);
});
