/**
 * Three replicas share one Redis and lose it while the window is nearly spent, with reads in
 * flight and a keyed deploy retried during the outage (docs/budget.md "Redis unreachable, and
 * back"; docs/replicas.md "When Redis is lost").
 *
 * The window is 100 calls; the load would spend 150. Weft spends most of it itself, through the
 * shared bucket: replicas B and C call once each, early, then A spends the window down to 3, and
 * its last two reads, which leave only the write reserve, are in flight (held at the simulator)
 * when Redis is killed. While it is gone the same `deployApp` with one `Idempotency-Key` is sent to
 * A and retried on B, then C; then each replica gets a burst of reads, every call held at the
 * simulator so that no answer tells a replica what is left — what a replica sends is what it
 * decided alone. Counted at the simulator, per replica (each replica calls it through a port of its
 * own: `replica-doors.ts`):
 *
 * - no upstream 429, and Weft's calls together never more than the window: a replica spends only
 *   the tokens it holds, which the shared bucket no longer had. A replica that falls back to a share
 *   of its own last view of what was left (B's and C's are from their one early call) sends what A
 *   spent since;
 * - the deploy reaches the upstream at most once while Redis is gone (each replica refuses it
 *   `IDEMPOTENCY_UNAVAILABLE`: none can claim the key where the others see it), and exactly once
 *   when Redis is back, replayed on the other two;
 * - every read is answered with data or refused by name: RATE_LIMITED with the limiter that said no
 *   (SHARED_BUDGET while Redis cannot be reached and nothing is held, RESERVE or CREDENTIAL);
 * - when Redis is back (started again, empty), the deploy finds the write reserve the reads left,
 *   and the replicas are on the shared bucket again: C, whose own view is from its one early call,
 *   is refused by it.
 *
 * A Redis of its own (killable-redis.ts) is killed here.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferred, until, type Deferred } from '../../support/clock.ts';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { sendKeyed, type KeyedAnswer } from '../../support/keyed-mutation.ts';
import { startKillableRedis, type KillableRedis } from '../../support/killable-redis.ts';
import {
  answersOf,
  expectAnsweredOrRefusedByName,
  heldBursts,
  limitersOf,
  readCertificate,
} from '../../support/read-bursts.ts';
import { openReplicaDoors, type ReplicaDoors } from '../../support/replica-doors.ts';
import { testRedisAvailable } from '../../support/redis.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

/** The window: a day, so that no token comes back by refill while the test runs. */
const WINDOW = 100;
const WINDOW_SEC = 86_400;
/** The write reserve (UPSTREAM_WRITE_RESERVE_SHARE 0.01): what reads leave of the window. */
const RESERVE = 1;
/** What A spends after B's and C's one call each: 3 left, 2 of them for reads. */
const SPENT_BY_A = 95;
/** Reads in flight when Redis dies, per replica (A, B, C). */
const IN_FLIGHT = [2, 0, 0];
/** Each replica's burst while Redis is gone. */
const OUTAGE_BURST = [12, 12, 9];
/** Each replica's reads once Redis is back: 2 + 95 + 2 + 33 + 18 = 150 reads in all. */
const BACK_BURST = 6;
/** How long a call waits for room (kept short here). */
const WAIT_MS = 1_000;
/** How long a keyed write waits for Redis to take its claim before it is refused. */
const CLAIM_WAIT_MS = 500;
/**
 * How long a held burst may take to be decided (every read held or refused): the bucket wait and
 * more, and far below the attempts' headers timeout (8 s), which would end the held calls.
 */
const SETTLE_MS = 4_000;
const DEPLOY = `mutation Deploy($appId: ID!) { deployApp(input: { appId: $appId }) {
  deployment { deploymentId } userErrors { code message } } }`;
const DEPLOYS = '/v1/hosting/nodejs/apps/app-0001/deployments';
/** Logged by each replica's Redis connection (the same before and with leases). */
const OFF_REDIS = 'Redis unreachable: using local fallbacks';
const BACK_ON_REDIS = 'Redis reachable again';

const SECRET = 'redis-death-secret-0123456789';
const PREFIX = 'redis-death';

/** The keyed deploy of app-0001. */
const deploy = (replica: GatewayProcess, key: string) =>
  sendKeyed(replica, key, DEPLOY, { appId: 'app-0001' });

describe.skipIf(!testRedisAvailable)(
  'Redis killed under three replicas, the window nearly spent',
  () => {
    let redis: KillableRedis;
    let sim: RunningSimulator;
    let doors: ReplicaDoors;
    const replicas: GatewayProcess[] = [];
    /** While set, the simulator holds every read a replica sends until it is resolved. */
    let hold: Deferred<void> | undefined;
    let deploysSent = 0;

    beforeAll(async () => {
      redis = await startKillableRedis();
      sim = await startSimulator({
        rateLimit: WINDOW,
        rateWindowSec: WINDOW_SEC,
        ipLimits: false,
        onArrival: ({ method, headers }) =>
          method === 'GET' && doors.replicaOf(headers) !== undefined ? hold?.promise : undefined,
      });
      sim.simulator.app.server.on('request', (req: { url?: string }) => {
        if (req.url === DEPLOYS) deploysSent += 1;
      });
      doors = await openReplicaDoors(sim, 3);
      const env = {
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: PREFIX,
        CREDENTIAL_HMAC_SECRET: SECRET,
        UPSTREAM_RATE_LIMIT: String(WINDOW),
        UPSTREAM_RATE_WINDOW_SEC: String(WINDOW_SEC),
        UPSTREAM_WRITE_RESERVE_SHARE: String(RESERVE / WINDOW),
        // Every read is an upstream call: what a replica sends is what its bucket lets out.
        UPSTREAM_CACHE: 'off',
        UPSTREAM_BUCKET_WAIT_MS: String(WAIT_MS),
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
      await redis?.stop();
    });

    const read = readCertificate;
    const bursts = (sizes: readonly number[], first: number) =>
      heldBursts(replicas, doors, sizes, { first, settleMs: SETTLE_MS });
    /** Waits until every replica has logged `line` more often than it had `before`. */
    const counts = (line: string) =>
      replicas.map((replica) => replica.logs.filter((entry) => entry.includes(line)).length);
    const logged = (line: string, before: number[], what: string) =>
      until(() => counts(line).every((count, i) => count > before[i]!), what, 15_000);

    it('spends no more than the window, answers no 429, writes the deploy once, and uses the shared bucket again when Redis is back', async () => {
      const [a, b, c] = replicas as [GatewayProcess, GatewayProcess, GatewayProcess];
      const key = randomUUID();

      // B and C call once each, early: what they last heard is that 99 and 98 are left. Then A
      // spends 95, one call after the other.
      for (const [n, replica] of [b, c].entries()) {
        expect((await read(replica, n)).errors).toBeUndefined();
      }
      for (let n = 2; n < 2 + SPENT_BY_A; n += 1) {
        expect((await read(a, n)).errors).toBeUndefined();
      }
      expect(doors.sentByAll()).toBe(2 + SPENT_BY_A);

      // Reads in flight on A, held at the upstream, when Redis dies.
      hold = deferred();
      const inFlight = await bursts(IN_FLIGHT, 100);
      // Both go: the bucket has room above the reserve for exactly them.
      expect(inFlight.sent).toEqual(IN_FLIGHT);
      const sentAtKill = replicas.map((_, r) => doors.sent(r));
      const off = counts(OFF_REDIS);
      await redis.kill();
      await logged(OFF_REDIS, off, 'every replica off Redis');

      // While Redis is gone: the same deploy on A, retried on B, then on C, as a client whose tries
      // fail would; then a burst of reads on each replica, every read held at the upstream.
      const outage: KeyedAnswer[] = [];
      for (const replica of [a, b, c]) outage.push(await deploy(replica, key));
      const held = await bursts(OUTAGE_BURST, 200);
      // Every read decided: the simulator answers what it held (a read waiting for those answers
      // goes out now).
      hold.resolve();
      hold = undefined;
      const outageReads = (await Promise.all(held.answers)).flat();
      const inFlightReads = (await Promise.all(inFlight.answers)).flat();
      const sentInOutage = replicas.map((_, r) => doors.sent(r) - sentAtKill[r]!);
      const deploysInOutage = deploysSent;
      const upstream429s = doors.answeredToAll(429);
      console.log(
        `Redis dead, ${WINDOW - 2 - SPENT_BY_A} left before ${IN_FLIGHT.join('/')} reads in flight: ` +
          `calls sent by A/B/C ${sentInOutage.join('/')} (bursts of ${OUTAGE_BURST.join('/')} reads); ` +
          `answers ${JSON.stringify(answersOf(outageReads))}; upstream 429s ${upstream429s}; ` +
          `deploys ${deploysInOutage} (answers ${outage.map((d) => d.body.errors?.[0]?.extensions?.code ?? d.status).join(', ')}); ` +
          `Weft's calls ${doors.sentByAll()} of a window of ${WINDOW}`,
      );
      // A replica spends only what it holds: nothing past the window, no 429.
      expect.soft(upstream429s, 'upstream 429s').toBe(0);
      expect.soft(doors.sentByAll(), "Weft's calls at the upstream").toBeLessThanOrEqual(WINDOW);
      // The deploy: none of the three could claim its key where the others see it.
      expect
        .soft(deploysInOutage, 'deploys at the upstream while Redis is gone')
        .toBeLessThanOrEqual(1);
      for (const answer of outage) {
        expect(answer.status).toBe(503);
        expect(answer.body.errors).toHaveLength(1);
        expect(answer.body.errors[0].extensions).toMatchObject({ code: 'IDEMPOTENCY_UNAVAILABLE' });
      }
      expect(held.settled, 'every read of the outage held at the upstream or refused').toBe(true);
      expect(deploysInOutage).toBe(0);
      expectAnsweredOrRefusedByName([...inFlightReads, ...outageReads]);
      // The reads in flight when Redis died are answered.
      for (const body of inFlightReads) expect(body.errors).toBeUndefined();
      // B and C held nothing (their one token each was spent on their one call): each of their
      // reads was refused for want of the shared budget.
      for (const r of [1, 2]) {
        expect(sentInOutage[r]).toBe(0);
        expect(answersOf(await held.answers[r]!)).toEqual({ SHARED_BUDGET: OUTAGE_BURST[r] });
      }

      // Redis back (started again, empty).
      const back = counts(BACK_ON_REDIS);
      await redis.restart();
      await logged(BACK_ON_REDIS, back, 'every replica back on Redis');

      // The same deploy, same key: it runs once (a write may spend the reserve the reads left),
      // and the other replicas replay it.
      const ran = await deploy(a, key);
      expect(ran.status).toBe(200);
      expect(ran.replayed).toBe(false);
      expect(ran.body.data.deployApp.userErrors).toEqual([]);
      const deploymentId = ran.body.data.deployApp.deployment.deploymentId as string;
      for (const replica of [b, c]) {
        const retried = await deploy(replica, key);
        expect(retried.replayed).toBe(true);
        expect(retried.body.data.deployApp.deployment.deploymentId).toBe(deploymentId);
      }
      expect(deploysSent).toBe(1);

      // The rest of the load, one read at a time on A, B, C in turn: the shared bucket again.
      const left = WINDOW - doors.sentByAll();
      const sentAtReturn = replicas.map((_, r) => doors.sent(r));
      const afterReturn: any[][] = replicas.map(() => []);
      for (let n = 0; n < BACK_BURST * replicas.length; n += 1) {
        const r = n % replicas.length;
        afterReturn[r]!.push(await read(replicas[r]!, 300 + n));
      }
      const sentAfterReturn = replicas.map((_, r) => doors.sent(r) - sentAtReturn[r]!);
      console.log(
        `Redis back, ${left} left after the deploy: reads sent by A/B/C ${sentAfterReturn.join('/')} of ${BACK_BURST} each; ` +
          `answers ${JSON.stringify(answersOf(afterReturn.flat()))}; ` +
          `Weft's calls ${doors.sentByAll()}, upstream 429s ${doors.answeredToAll(429)}`,
      );
      expectAnsweredOrRefusedByName(afterReturn.flat());
      // Refused by the shared bucket, not for want of it: C too, whose own view (98 left, from its
      // one answer) would have let every read go.
      for (const [r, bodies] of afterReturn.entries()) {
        const limiters = limitersOf(bodies);
        expect(limiters, `replica ${'ABC'[r]}'s refusals once Redis is back`).not.toContain(
          'SHARED_BUDGET',
        );
        if (r === 2) expect(limiters.length).toBeGreaterThan(0);
      }
      for (const replica of replicas) {
        await until(
          () => replica.logs.some((line) => line.includes('back on the shared Redis buckets')),
          'the replica to log that it is back on the shared buckets',
          5_000,
        );
      }

      // The whole run: 150 reads and a deploy asked for, no more than the window sent, no 429.
      expect(doors.answeredToAll(429)).toBe(0);
      expect(doors.sentByAll()).toBeLessThanOrEqual(WINDOW);
    }, 120_000);
  },
);
