/**
 * A keyed write while the Redis two replicas share is dead (docs/security.md "Idempotent
 * mutations"): the same `deployApp` with one `Idempotency-Key`, sent to both replica processes and
 * retried on both, reaches the upstream at most once — each replica refuses it by name
 * (`IDEMPOTENCY_UNAVAILABLE`, 503, `Retry-After`) since neither can claim the key where the other
 * sees it. Once Redis is started again on the same port, the same request with the same key runs
 * exactly once and is replayed on either replica. Deploys are counted at the one simulator both
 * replicas call. A Redis of its own (killable-redis.ts) is killed here.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../support/clock.ts';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { sendKeyed, type KeyedAnswer } from '../../support/keyed-mutation.ts';
import { startKillableRedis, type KillableRedis } from '../../support/killable-redis.ts';
import { testRedisAvailable } from '../../support/redis.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const DEPLOY = `mutation Deploy($appId: ID!) { deployApp(input: { appId: $appId }) {
  deployment { deploymentId } userErrors { code message } } }`;
const DEPLOYS = 'POST /v1/hosting/nodejs/apps/{appId}/deployments';
/** How long a replica waits for Redis to take a claim before it refuses (kept short here). */
const WAIT_MS = 1_000;
const OFF_REDIS = 'Redis unreachable: using local fallbacks';
const BACK_ON_REDIS = 'Redis reachable again';

/** The keyed deploy of app-0001. */
const deploy = (replica: GatewayProcess, key: string) =>
  sendKeyed(replica, key, DEPLOY, { appId: 'app-0001' });

describe.skipIf(!testRedisAvailable)('a keyed deploy while the shared Redis is dead', () => {
  let redis: KillableRedis;
  let sim: RunningSimulator;
  const replicas: GatewayProcess[] = [];

  beforeAll(async () => {
    redis = await startKillableRedis();
    sim = await startSimulator({ ipLimits: false });
    const env = {
      UPSTREAM_URL: sim.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: 'idem-death',
      CREDENTIAL_HMAC_SECRET: 'idempotency-redis-death-secret-0123',
      IDEMPOTENCY_WAIT_MS: String(WAIT_MS),
    };
    replicas.push(...(await Promise.all([startGatewayProcess(env), startGatewayProcess(env)])));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await sim?.close();
    await redis?.stop();
  });

  const deploys = async () => (await sim.stats()).byRoute[DEPLOYS] ?? 0;
  /** Waits until every replica has logged `line` more often than it had `before`. */
  const logged = (line: string, before: number[], what: string) =>
    until(
      () =>
        replicas.every(
          (replica, i) => replica.logs.filter((entry) => entry.includes(line)).length > before[i]!,
        ),
      what,
      15_000,
    );
  const counts = (line: string) =>
    replicas.map((replica) => replica.logs.filter((entry) => entry.includes(line)).length);

  it('sends the deploy at most once while Redis is dead, then exactly once when it is back', async () => {
    const [a, b] = replicas as [GatewayProcess, GatewayProcess];
    const key = randomUUID();

    const off = counts(OFF_REDIS);
    await redis.kill();
    await logged(OFF_REDIS, off, 'both replicas off Redis');

    // The same deploy on both replicas at once, then retried on both, as a client would.
    const outage: KeyedAnswer[] = [];
    for (let round = 0; round < 2; round += 1) {
      outage.push(...(await Promise.all([deploy(a, key), deploy(b, key)])));
    }
    const sentInOutage = await deploys();
    console.log(
      `Redis dead: ${sentInOutage} deploy(s) at the upstream for one key; answers ${outage
        .map((answer) => answer.body.errors?.[0]?.extensions?.code ?? answer.status)
        .join(', ')}`,
    );
    // Before: each replica claimed the key in its own memory and deployed (2 deploys, 2 ids).
    expect(sentInOutage).toBeLessThanOrEqual(1);
    // Neither replica can claim the key where the other sees it: each refuses, by name.
    for (const answer of outage) {
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0].extensions).toMatchObject({
        code: 'IDEMPOTENCY_UNAVAILABLE',
        retryAfterSec: Number(answer.retryAfter),
      });
      expect(answer.body.errors[0].message).toMatch(/nothing was sent/i);
    }
    expect(sentInOutage).toBe(0);

    const back = counts(BACK_ON_REDIS);
    await redis.restart();
    await logged(BACK_ON_REDIS, back, 'both replicas back on Redis');

    // The same request, same key: it runs once, and every retry replays its answer.
    const ran = await deploy(b, key);
    expect(ran.status).toBe(200);
    expect(ran.replayed).toBe(false);
    expect(ran.body.data.deployApp.userErrors).toEqual([]);
    const deploymentId = ran.body.data.deployApp.deployment.deploymentId as string;
    expect(deploymentId).toMatch(/^dep-/);
    for (const replica of [a, b]) {
      const retried = await deploy(replica, key);
      expect(retried.replayed).toBe(true);
      expect(retried.body.data.deployApp.deployment.deploymentId).toBe(deploymentId);
    }
    expect(await deploys()).toBe(1);
  }, 60_000);
});
