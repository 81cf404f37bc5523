/**
 * Three gateway processes on a Redis Cluster of their own (three masters, three replicas on
 * 7010–7015) lose the master that holds the credential's bucket (SIGKILL) while the window is nearly
 * spent, with reads in flight and keyed orders retried during the outage (docs/budget.md "Redis
 * unreachable, and back"; docs/replicas.md "When Redis is lost"). The slot stays without a
 * master until the test lets the cluster promote its replica (the replica is told
 * `cluster-replica-no-failover yes` before the kill, `no` after): the outage is a phase of the test,
 * not a race with the cluster's timer.
 *
 * The window is 100 calls; the load would spend 150. Weft spends most of it itself, through the
 * shared bucket: an order on A, one read each on B and C, early, then A's reads down to 3 left, and
 * its last two reads, which leave only the write reserve, are in flight (held at the simulator)
 * when the master dies. Counted at the simulator, per replica (each replica calls it through a port
 * of its own: `replica-doors.ts`):
 *
 * - Budget: while the slot has no master, a burst of reads on each replica, every read held at the
 *   simulator so that no answer tells a replica what is left: a replica spends only the tokens it
 *   holds — no upstream 429, Weft's calls never more than the window, and each read answered or
 *   refused by name. A replica that falls back to a share of its own last view of what was left
 *   (B's and C's are from their one early call) sends what A spent since.
 * - Orders (docs/security.md "Idempotent mutations"): an order whose record lives on a master that
 *   is still up, retried on B during the outage, is replayed (one upstream write); one whose key's
 *   slot has no master is refused by name on all three replicas (`IDEMPOTENCY_UNAVAILABLE`, nothing
 *   sent), and once the slot is served again it runs once — on the write reserve the reads left —
 *   and the other replicas replay it.
 * - After the promotion, without a restart, the replicas use the shared bucket again: their reads
 *   are refused by it by name (C's too, whose own view is from its one early call), and what the
 *   promoted master's bucket says is left is no more than what the upstream has left.
 *
 * Then the node carrying a subscription is killed: the subscription moves to a live node.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { recordKeyOf } from '../../../src/server/idempotency/request-fingerprint.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import { createRedisClusterConnection } from '../../../src/redis/redis-cluster-connection.ts';
import { deferred, until, type Deferred } from '../../support/clock.ts';
import { createCsr } from '../../support/csr.ts';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { sendKeyed } from '../../support/keyed-mutation.ts';
import {
  answersOf,
  expectAnsweredOrRefusedByName,
  heldBursts,
  limitersOf,
  readCertificate,
} from '../../support/read-bursts.ts';
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
import { openReplicaDoors, type ReplicaDoors } from '../../support/replica-doors.ts';
import { decide, optedOut } from '../../support/requirements.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const FIRST_PORT = 7010;
const SECRET = 'cluster-failover-secret-0123456789';
/** A prefix of its own per run: a cluster left up by an earlier run keeps that run's keys. */
const PREFIX = `wt-failover-${randomUUID().slice(0, 8)}`;
/** The window: a day, so that no token comes back by refill while the test runs. */
const WINDOW = 100;
const WINDOW_SEC = 86_400;
/** The write reserve (UPSTREAM_WRITE_RESERVE_SHARE 0.01): what reads leave of the window. */
const RESERVE = 1;
/** What A reads after its order and B's and C's one read each: 3 left, 2 of them for reads. */
const SPENT_BY_A = 94;
/** Reads in flight when the master dies, per replica (A, B, C). */
const IN_FLIGHT = [2, 0, 0];
/** Each replica's burst while the slot has no master. */
const OUTAGE_BURST = [12, 12, 10];
/** Each replica's reads after the promotion: 2 + 94 + 2 + 34 + 18 = 150 reads in all. */
const AFTER_PROMOTION = 6;
/** How long a call waits for room (kept short here). */
const WAIT_MS = 1_000;
/** How long a keyed order waits for its key's slot to be served before it is refused. */
const CLAIM_WAIT_MS = 500;
/**
 * How long a held burst may take to be decided (every read held or refused): the bucket wait and
 * more, and far below the attempts' headers timeout (8 s), which would end the held calls.
 */
const SETTLE_MS = 4_000;
const WRITE = 'POST /v2/certificates';
const ORDER = `mutation Order($input: OrderCertificateInput!) {
  orderCertificate(input: $input) { certificateId userErrors { code message } } }`;

/** Whether redis-server can give this file a cluster: fails, with how, when it cannot. */
const clusterWanted = !optedOut(process.env).has('redis-cluster');

describe.skipIf(!clusterWanted)('a Redis Cluster master killed under three replicas', () => {
  let cluster: TestCluster;
  let sim: RunningSimulator;
  let doors: ReplicaDoors;
  let csr: string;
  /** A, B and C. */
  const replicas: GatewayProcess[] = [];
  /** While set, the simulator holds every read a replica sends until it is resolved. */
  let hold: Deferred<void> | undefined;

  beforeAll(async () => {
    cluster = await startTestCluster(FIRST_PORT).catch((error: Error) => {
      decide('redis-cluster', false, process.env, error.message);
      throw error;
    });
    csr = await createCsr('www.failover.example.com');
    sim = await startSimulator({
      rateLimit: WINDOW,
      rateWindowSec: WINDOW_SEC,
      ipLimits: false,
      onArrival: ({ method, headers }) =>
        method === 'GET' && doors.replicaOf(headers) !== undefined ? hold?.promise : undefined,
    });
    doors = await openReplicaDoors(sim, 3);
    const env = {
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_KEY_PREFIX: PREFIX,
      CREDENTIAL_HMAC_SECRET: SECRET,
      UPSTREAM_RATE_LIMIT: String(WINDOW),
      UPSTREAM_RATE_WINDOW_SEC: String(WINDOW_SEC),
      UPSTREAM_WRITE_RESERVE_SHARE: String(RESERVE / WINDOW),
      // Every read is an upstream call: what a replica sends is what its bucket lets out.
      UPSTREAM_CACHE: 'off',
      UPSTREAM_BUCKET_WAIT_MS: String(WAIT_MS),
      // An order whose key's slot has no master is refused after this wait for the slot.
      IDEMPOTENCY_WAIT_MS: String(CLAIM_WAIT_MS),
    };
    replicas.push(
      ...(await Promise.all(
        doors.urls.map((url) => startGatewayProcess({ ...env, UPSTREAM_URL: url })),
      )),
    );
  }, 120_000);

  afterAll(async () => {
    hold?.resolve();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await doors?.close();
    await sim?.close();
    await cluster?.stop();
  });

  /** An order with an Idempotency-Key, to one replica. */
  const send = (replica: GatewayProcess, key: string) =>
    sendKeyed(replica, key, ORDER, { input: { csr, productType: 'DV_SSL', period: 1 } });

  /** An order that ran (or was replayed): its certificate id. */
  async function order(replica: GatewayProcess, key: string) {
    const { body, replayed } = await send(replica, key);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(body.data.orderCertificate.userErrors).toEqual([]);
    return {
      id: body.data.orderCertificate.certificateId as string,
      replayed,
    };
  }

  /** An order's answer: its HTTP status and its first error's code (none: it ran). */
  async function tryOrder(replica: GatewayProcess, key: string) {
    const { status, retryAfter, body } = await send(replica, key);
    return { status, retryAfter, body };
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

  it('spends only what each replica holds while the slot has no master — no upstream 429 — writes each order once, and uses the shared bucket again after the promotion', async () => {
    const [a, b, c] = replicas as [GatewayProcess, GatewayProcess, GatewayProcess];
    const read = readCertificate;
    const bursts = (sizes: readonly number[], first: number) =>
      heldBursts(replicas, doors, sizes, { first, settleMs: SETTLE_MS });
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

    // An order on A whose record lives on a master that stays up. Then B and C read once each:
    // what they last heard is that 98 and 97 are left. Then A reads, one call after the other.
    const live = await order(a, liveKey);
    expect(live.replayed).toBe(false);
    for (const [n, replica] of [b, c].entries()) {
      expect((await read(replica, n)).errors).toBeUndefined();
    }
    for (let n = 2; n < 2 + SPENT_BY_A; n += 1) {
      expect((await read(a, n)).errors).toBeUndefined();
    }
    expect(doors.sentByAll()).toBe(3 + SPENT_BY_A);

    // A's last two reads, held at the upstream: the bucket has room above the reserve for them.
    hold = deferred();
    const inFlight = await bursts(IN_FLIGHT, 100);
    // When a read was refused: what the shared bucket and each replica's lease said then.
    const sharedState = inFlight.refused.some((n) => n > 0)
      ? `; bucket: ${await nodeSays(victim, 'HGETALL', bucketKey)}; leases: ${await nodeSays(
          victim,
          'HGETALL',
          `${PREFIX}:leases:{${credentialId}}`,
        )}`.replace(/\n/g, ' ')
      : '';
    expect(
      inFlight.sent,
      `reads held at the upstream (refused: ${inFlight.refused.join(', ')}, by ${JSON.stringify(inFlight.refusedBy)}; settled: ${inFlight.settled}${sharedState})`,
    ).toEqual(IN_FLIGHT);

    // The master dies; its slot stays without one until the test allows the promotion.
    const sentAtKill = replicas.map((_, r) => doors.sent(r));
    await killNode(victim, dir);
    await until(async () => !/PONG/.test(await nodeSays(victim, 'PING')), 'the master gone');
    const writesAtKill = await writes();

    // The order whose record is on a live master, retried on B: replayed from Redis.
    expect(await order(b, liveKey)).toEqual({ id: live.id, replayed: true });
    // An order whose key's slot has no master, on A, retried on B, then on C: none can claim it
    // where the others see it.
    const lostInOutage = [];
    for (const replica of [a, b, c]) lostInOutage.push(await tryOrder(replica, lostKey));
    const writesInOutage = (await writes()) - writesAtKill;
    // A burst of reads on each replica, held at the upstream, then answered.
    const held = await bursts(OUTAGE_BURST, 200);
    hold.resolve();
    hold = undefined;
    const outageReads = (await Promise.all(held.answers)).flat();
    const inFlightReads = (await Promise.all(inFlight.answers)).flat();
    const sentInOutage = replicas.map((_, r) => doors.sent(r) - sentAtKill[r]!);
    const upstream429s = doors.answeredToAll(429);
    console.log(
      `slot without a master, ${WINDOW - 3 - SPENT_BY_A} left before ${IN_FLIGHT.join('/')} reads in flight: ` +
        `calls sent by A/B/C ${sentInOutage.join('/')} (bursts of ${OUTAGE_BURST.join('/')} reads); ` +
        `answers ${JSON.stringify(answersOf(outageReads))}; upstream 429s ${upstream429s}; ` +
        `orders written ${writesInOutage} (answers ${lostInOutage.map((answer) => answer.body.errors?.[0]?.extensions?.code ?? answer.status).join(', ')}); ` +
        `Weft's calls ${doors.sentByAll()} of a window of ${WINDOW}`,
    );
    // A replica spends only what it holds: nothing past the window, no 429.
    expect.soft(upstream429s, 'upstream 429s').toBe(0);
    expect.soft(doors.sentByAll(), "Weft's calls at the upstream").toBeLessThanOrEqual(WINDOW);
    // The order whose slot has no master: written at most once — here, not at all.
    expect
      .soft(writesInOutage, 'orders written while the slot has no master')
      .toBeLessThanOrEqual(1);
    for (const answer of lostInOutage) {
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toBe('1');
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0].extensions).toMatchObject({
        code: 'IDEMPOTENCY_UNAVAILABLE',
        retryAfterSec: 1,
      });
    }
    expect(writesInOutage).toBe(0);
    expect(held.settled, 'every read of the outage held at the upstream or refused').toBe(true);
    expectAnsweredOrRefusedByName([...inFlightReads, ...outageReads]);
    for (const body of inFlightReads) expect(body.errors).toBeUndefined();
    // B and C held nothing (their one token each was spent on their one call): each of their
    // reads was refused for want of the shared budget.
    for (const r of [1, 2]) {
      expect(sentInOutage[r]).toBe(0);
      expect(answersOf(await held.answers[r]!)).toEqual({ SHARED_BUDGET: OUTAGE_BURST[r] });
    }

    // The promotion, allowed now.
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
    // Without a restart, each replica is on the shared bucket again: a read is refused by it —
    // RESERVE: what is left is the writes' — rather than for want of it.
    for (const replica of replicas) {
      await until(
        async () => limitersOf([await read(replica, 300)]).includes('RESERVE'),
        'the replica refused by the shared bucket, not for want of it',
        20_000,
      );
    }

    // The order refused during the outage, sent again: it runs once, on the write reserve, and
    // the other replicas replay it.
    const lost = await order(a, lostKey);
    expect(lost.replayed).toBe(false);
    expect(await nodeSays(promoted, 'GET', recordKey(lostKey))).toContain(lost.id);
    for (const replica of [b, c]) {
      expect(await order(replica, lostKey)).toEqual({ id: lost.id, replayed: true });
    }
    expect(await order(c, liveKey)).toEqual({ id: live.id, replayed: true });
    // One write for each order.
    expect(await writes()).toBe(2);

    // The rest of the load, one read at a time on A, B, C in turn: refused by the shared bucket,
    // C's too (its own view, 97 left, would have let them go).
    const sentAtReturn = doors.sentByAll();
    const afterPromotion: any[][] = replicas.map(() => []);
    for (let n = 0; n < AFTER_PROMOTION * replicas.length; n += 1) {
      const r = n % replicas.length;
      afterPromotion[r]!.push(await read(replicas[r]!, 320 + n));
    }
    console.log(
      `promoted: ${WINDOW - sentAtReturn} left; reads sent ${doors.sentByAll() - sentAtReturn} of ${AFTER_PROMOTION * replicas.length}; ` +
        `answers ${JSON.stringify(answersOf(afterPromotion.flat()))}`,
    );
    expectAnsweredOrRefusedByName(afterPromotion.flat());
    for (const [r, bodies] of afterPromotion.entries()) {
      expect(
        limitersOf(bodies),
        `replica ${'ABC'[r]}'s refusals after the promotion`,
      ).not.toContain('SHARED_BUDGET');
    }
    expect(limitersOf(afterPromotion[2]!).length).toBeGreaterThan(0);
    // What the promoted master's bucket says is left, no more than the upstream has left.
    const tokens = Number(await nodeSays(promoted, 'HGET', bucketKey, 'tokens'));
    expect(tokens).toBeLessThanOrEqual(WINDOW - doors.sentByAll());
    for (const replica of replicas) {
      await until(
        () => replica.logs.some((line) => line.includes('back on the shared Redis buckets')),
        'the replica to log that it is back on the shared buckets',
        5_000,
      );
    }

    // The whole run: no more than the window sent, no 429.
    expect(doors.answeredToAll(429)).toBe(0);
    expect(doors.sentByAll()).toBeLessThanOrEqual(WINDOW);
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
