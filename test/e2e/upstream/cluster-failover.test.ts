/**
 * Two gateway processes on a Redis Cluster of their own (three masters, three replicas on
 * 7010–7015) lose the master that holds the credential's bucket (SIGKILL) late in a window, and
 * the slot stays without a master until the test lets the cluster promote its replica (the replica
 * is told `cluster-replica-no-failover yes` before the kill, `no` after): the outage is a phase of
 * the test, not a race with the cluster's timer.
 *
 * - Budget: another client of the token spends the window down at the simulator, each replica
 *   hears what is left, then the master dies. While the slot has no master each replica sends at
 *   most its `REDIS_DOWN_BUDGET_SHARE` of what it last heard was left — counted per replica at the
 *   simulator (replica A names it `127.0.0.1`, B `localhost`: the Host header tells their calls
 *   apart), with bursts larger than the share on both, so the share is what stops them — and the
 *   upstream answers no 429.
 * - Orders (docs/security.md "Idempotent mutations"): an order whose record lives on a master
 *   that is still up, retried on the other replica during the outage, is replayed (one upstream
 *   write); one whose key's slot has no master is refused by name on both replicas
 *   (`IDEMPOTENCY_UNAVAILABLE`, nothing sent), and once the slot is served again it runs once and
 *   both replicas replay it.
 * - After the promotion, without a restart, both replicas use the shared bucket again: what one
 *   spends, the other sees.
 *
 * Then the node carrying a subscription is killed: the subscription moves to a live node.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { recordKeyOf } from '../../../src/server/idempotency/request-fingerprint.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import { createRedisClusterConnection } from '../../../src/upstream/redis-cluster-connection.ts';
import { until } from '../../support/clock.ts';
import { createCsr } from '../../support/csr.ts';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import {
  killNode,
  masterOfSlot,
  nodeSays,
  replicasOf,
  startNode,
  startTestCluster,
  waitFor,
  type TestCluster,
} from '../../support/redis-cluster-launcher.ts';
import { decide, optedOut } from '../../support/requirements.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const FIRST_PORT = 7010;
const SECRET = 'cluster-failover-secret-0123456789';
/** A prefix of its own per run: a cluster left up by an earlier run keeps that run's keys. */
const PREFIX = `wt-failover-${randomUUID().slice(0, 8)}`;
/** The window: a day, so that no token comes back by refill while the test runs. */
const WINDOW = 200;
const WINDOW_SEC = 86_400;
/** Each replica's share while the slot has no master (two replicas: at most 1/2). */
const SHARE = 0.25;
/** What the other client leaves of the window before the kill: the budget is nearly spent. */
const LEFT = 40;
/** Each replica's burst during the outage: more than its share of LEFT, so the share stops it. */
const BURST = 20;
/** The other client's calls: a route Weft does not call here. */
const ELSEWHERE = '/v2/certificates/subscriptions/search';
const WRITE = 'POST /v2/certificates';
/** demo-customer's certificates are cert-0001 to cert-0044. */
const cert = (n: number) => `cert-${String((n % 44) + 1).padStart(4, '0')}`;
const DETAIL = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") { certificate(certificateId: $id) { certificateId } } }`;
const ORDER = `mutation Order($input: OrderCertificateInput!) {
  orderCertificate(input: $input) { certificateId userErrors { code message } } }`;
const REMAINING = '{ viewer { rateLimit { remaining } } }';
/** How long a keyed order waits for its key's slot to be served before it is refused. */
const REFUSED_AFTER_MS = 1_000;

/** Whether redis-server can give this file a cluster: fails, with how, when it cannot. */
const clusterWanted = !optedOut(process.env).has('redis-cluster');

describe.skipIf(!clusterWanted)('a Redis Cluster master killed under two replicas', () => {
  let cluster: TestCluster;
  let sim: RunningSimulator;
  let csr: string;
  /** A (127.0.0.1) and B (localhost). */
  const replicas: GatewayProcess[] = [];
  /** The Host header each replica sends the simulator, A's first. */
  const hosts: string[] = [];
  /** Calls that reached the simulator, per Host (Weft's calls only). */
  const sent = new Map<string, number>();
  /** What the simulator's last answer to each Host said was left (`RateLimit-Remaining`). */
  const heard = new Map<string, number>();

  beforeAll(async () => {
    cluster = await startTestCluster(FIRST_PORT).catch((error: Error) => {
      decide('redis-cluster', false, process.env, error.message);
      throw error;
    });
    csr = await createCsr('www.failover.example.com');
    sim = await startSimulator({ rateLimit: WINDOW, rateWindowSec: WINDOW_SEC, ipLimits: false });
    sim.simulator.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/__sim/') || req.url?.startsWith(ELSEWHERE)) return;
      const host = String(req.headers.host);
      sent.set(host, (sent.get(host) ?? 0) + 1);
      // Fastify hands its headers to writeHead, not to setHeader: read them there.
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      res.writeHead = ((...args: unknown[]) => {
        const headers = args.find((arg) => typeof arg === 'object' && arg !== null) as
          Record<string, unknown> | undefined;
        const remaining = headers?.['ratelimit-remaining'] ?? headers?.['RateLimit-Remaining'];
        if (remaining !== undefined) heard.set(host, Number(remaining));
        return writeHead(...args);
      }) as ServerResponse['writeHead'];
    });
    const port = new URL(sim.url).port;
    hosts.push(`127.0.0.1:${port}`, `localhost:${port}`);
    const env = {
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_KEY_PREFIX: PREFIX,
      CREDENTIAL_HMAC_SECRET: SECRET,
      UPSTREAM_RATE_LIMIT: String(WINDOW),
      UPSTREAM_RATE_WINDOW_SEC: String(WINDOW_SEC),
      REDIS_DOWN_BUDGET_SHARE: String(SHARE),
      // Every read is an upstream call: what a replica sends is what its bucket lets out.
      UPSTREAM_CACHE: 'off',
      // An order whose key's slot has no master is refused after this wait for the slot.
      IDEMPOTENCY_WAIT_MS: String(REFUSED_AFTER_MS),
      // No calls kept back for writes: reads may spend the whole share, so the share is the bound
      // the bursts meet (the writes' reserve is tested on its own elsewhere).
      UPSTREAM_WRITE_RESERVE_SHARE: '0',
    };
    replicas.push(
      ...(await Promise.all(
        hosts.map((host) => startGatewayProcess({ ...env, UPSTREAM_URL: `http://${host}` })),
      )),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await sim?.close();
    await cluster?.stop();
  });

  /** An order with an Idempotency-Key, to one replica. */
  const send = (replica: GatewayProcess, key: string) =>
    fetch(`${replica.url}/graphql`, {
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

  /** An order that ran (or was replayed): its certificate id. */
  async function order(replica: GatewayProcess, key: string) {
    const response = await send(replica, key);
    const body = (await response.json()) as any;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(body.data.orderCertificate.userErrors).toEqual([]);
    return {
      id: body.data.orderCertificate.certificateId as string,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  }

  /** An order refused by name because its key could not be claimed: nothing was sent. */
  async function refusedOrder(replica: GatewayProcess, key: string) {
    const response = await send(replica, key);
    const body = (await response.json()) as any;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toMatchObject({
      code: 'IDEMPOTENCY_UNAVAILABLE',
      retryAfterSec: 1,
    });
  }

  const credentialId = createCredentialFactory(SECRET)('demo-token').id;
  const bucketKey = `${PREFIX}:bucket:{${credentialId}}`;
  const recordKey = (key: string) => `${PREFIX}:idempotency:${recordKeyOf(credentialId, key)}`;
  const slotOf = async (key: string) =>
    Number(await nodeSays(cluster.ports[0]!, 'CLUSTER', 'KEYSLOT', key));
  /** The first `<name>-<n>` whose record's slot is (or is not) served by `master`. */
  async function idempotencyKey(name: string, master: number, onIt: boolean): Promise<string> {
    for (let n = 0; ; n += 1) {
      const key = `${PREFIX}-${name}-${n}`;
      const owner = await masterOfSlot(cluster.ports, await slotOf(recordKey(key)));
      if ((owner === master) === onIt) return key;
    }
  }

  it('keeps each replica within its share of what was left, writes each order once, and uses the shared bucket again after the promotion', async () => {
    const [a, b] = replicas as [GatewayProcess, GatewayProcess];
    const slot = await slotOf(bucketKey);
    const victim = await masterOfSlot(cluster.ports, slot);
    // Where its pid file and cluster state are (`CONFIG GET dir` answers "dir", then the path).
    const dir = (await nodeSays(victim, 'CONFIG', 'GET', 'dir')).split('\n')[1]!;
    const standby = await replicasOf(victim);
    expect(standby).toHaveLength(1);
    const noFailover = (value: 'yes' | 'no') =>
      nodeSays(standby[0]!, 'CONFIG', 'SET', 'cluster-replica-no-failover', value);
    expect(await noFailover('yes')).toMatch(/OK/);
    onTestFinished(async () => {
      await noFailover('no');
      // The victim comes back as a replica: the cluster is whole for whatever runs next.
      if (!/PONG/.test(await nodeSays(victim, 'PING'))) await startNode(victim, dir);
    });
    const liveKey = await idempotencyKey('live', victim, false);
    const lostKey = await idempotencyKey('lost', victim, true);
    const writes = async () => (await sim.stats()).byRoute[WRITE] ?? 0;

    // An order on A whose record lives on a master that stays up.
    const live = await order(a, liveKey);
    expect(live.replayed).toBe(false);

    // The window nearly spent: another client of the token leaves LEFT of it.
    const first = await sim.call('GET', ELSEWHERE, { token: 'demo-token' });
    const more = Number(first.headers['ratelimit-remaining']) - LEFT;
    expect(more).toBeGreaterThan(0);
    const spent = await Promise.all(
      Array.from({ length: more }, () => sim.call('GET', ELSEWHERE, { token: 'demo-token' })),
    );
    expect(spent.filter((answer) => answer.status !== 200)).toEqual([]);
    // Each replica hears what is left (A's read is answered LEFT - 1, then B's LEFT - 2), through
    // the shared bucket, which learns it too.
    for (const [i, replica] of [a, b].entries()) {
      expect((await replica.gql(DETAIL, { id: cert(i) })).body.errors).toBeUndefined();
    }
    expect(hosts.map((host) => heard.get(host))).toEqual([LEFT - 1, LEFT - 2]);
    expect(Number(await nodeSays(victim, 'HGET', bucketKey, 'tokens'))).toBeLessThanOrEqual(
      LEFT - 2,
    );

    // The master dies; its slot stays without one until the test allows the promotion.
    const heardAtKill = hosts.map((host) => heard.get(host)!);
    const sentAtKill = hosts.map((host) => sent.get(host) ?? 0);
    await killNode(victim, dir);
    await until(async () => !/PONG/.test(await nodeSays(victim, 'PING')), 'the master gone');
    const writesAtKill = await writes();

    // The order whose record is on a live master, retried on B: replayed from Redis.
    expect(await order(b, liveKey)).toEqual({ id: live.id, replayed: true });
    // An order whose key's slot has no master: neither replica can claim it where the other sees
    // it, so each refuses it by name, on the first try and the retry, and nothing is sent.
    for (const replica of [a, b, a, b]) await refusedOrder(replica, lostKey);
    expect(await writes()).toBe(writesAtKill);

    // A burst on each replica at once, larger than its share: the share stops it, typed.
    const bursts = await Promise.all(
      [a, b].map((replica, r) =>
        Promise.all(
          Array.from({ length: BURST }, (_, i) =>
            replica.gql(DETAIL, { id: cert(2 + r * BURST + i) }),
          ),
        ),
      ),
    );
    const sentInOutage = hosts.map((host, r) => sent.get(host)! - sentAtKill[r]!);
    console.log(
      `slot without a master, ${heardAtKill.join(' and ')} heard left at the kill: A sent ${sentInOutage[0]}, B ${sentInOutage[1]} (share ${SHARE})`,
    );
    for (const r of [0, 1]) {
      // Every call of the outage (its order, its burst): at most its share of what it last heard.
      expect(sentInOutage[r], `replica ${'AB'[r]}'s calls without a master`).toBeLessThanOrEqual(
        Math.floor(SHARE * heardAtKill[r]!),
      );
      const errors = bursts[r]!.flatMap(({ body }) => body.errors ?? []);
      // Each burst got reads through and was refused the rest: the share was reached, not a cap
      // below it.
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.length).toBeLessThan(BURST);
      for (const error of errors) expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    }
    expect((await sim.stats()).byStatus['429']).toBeUndefined();

    // The promotion, allowed now; without a restart, each replica reads the shared bucket again:
    // its remaining is the promoted master's bucket (its local share holds a few tokens at most).
    await noFailover('no');
    let promoted = victim;
    await waitFor(
      'no replica promoted',
      async () => {
        promoted = await masterOfSlot(cluster.ports, slot).catch(() => victim);
        return promoted !== victim;
      },
      20_000,
    );
    expect(promoted).toBe(standby[0]);
    const tokens = async () =>
      Math.floor(Number(await nodeSays(promoted, 'HGET', bucketKey, 'tokens')));
    const remainingOn = async (replica: GatewayProcess) =>
      (await replica.gql(REMAINING)).body.data.viewer.rateLimit.remaining as number;
    for (const replica of [a, b]) {
      await until(
        async () => Math.abs((await remainingOn(replica)) - (await tokens())) <= 1,
        'the replica on the shared bucket again',
        15_000,
      );
    }
    expect(await tokens()).toBeGreaterThan(Math.floor(SHARE * LEFT));
    // What A spends now, B sees in Redis.
    const before = await tokens();
    expect((await a.gql(DETAIL, { id: cert(43) })).body.errors).toBeUndefined();
    expect(await tokens()).toBeLessThan(before);
    expect(Math.abs((await remainingOn(b)) - (await tokens()))).toBeLessThanOrEqual(1);
    // Both went through the outage on the local share, and came back to Redis.
    // (Lines go out in batches, at most 50 ms late: waited for, not read at once.)
    for (const replica of [a, b]) {
      for (const line of [
        'token buckets: Redis unavailable',
        'token buckets: back on the shared Redis buckets',
      ]) {
        await until(
          () => replica.logs.some((entry) => entry.includes(line)),
          `the log line "${line}"`,
          5_000,
        );
      }
    }

    // The order refused during the outage, sent again: it runs once, and both replicas replay it.
    const lost = await order(a, lostKey);
    expect(lost.replayed).toBe(false);
    expect(await nodeSays(promoted, 'GET', recordKey(lostKey))).toContain(lost.id);
    expect(await order(b, lostKey)).toEqual({ id: lost.id, replayed: true });
    expect(await order(b, liveKey)).toEqual({ id: live.id, replayed: true });
    // One write for each order.
    expect(await writes()).toBe(2);
    expect((await sim.stats()).byStatus['429']).toBeUndefined();
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
    let published = 0;
    await until(
      async () => {
        if (heard.some((message) => message.startsWith('after'))) return true;
        published += 1;
        await publisher.publish(channel, `after ${published}`).catch(() => undefined);
        return false;
      },
      'a message heard after the kill',
      20_000,
    );
  }, 60_000);
});
