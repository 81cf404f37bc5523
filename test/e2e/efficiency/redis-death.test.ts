/**
 * Redis dies late in a window under load, with two replicas sharing it: each falls back to its
 * share of what the upstream last said is left (not of the capacity), so together they still make
 * the upstream answer no 429. A Redis of its own (a redis-server child process) is killed here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  startGatewayProcess,
  type GatewayProcess,
} from '../../support/gateway-process.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { redisForTests } from '../../support/redis.ts';

const WINDOW = 40;
const cert = (n: number) => `cert-${String(n).padStart(4, '0')}`;
const DETAIL = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") { certificate(certificateId: $id) { certificateId } } }`;

/** redis-server is the same package the tests' Redis comes from; CI installs it. */
const haveRedis = await redisForTests();

describe.skipIf(!haveRedis)('Redis killed at 95 % of a window, two replicas under load', () => {
  let redis: ChildProcess;
  let sim: RunningSimulator;
  const replicas: GatewayProcess[] = [];

  beforeAll(async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    sim = await startSimulator({ rateLimit: WINDOW, rateWindowSec: 120, ipLimits: false });
    const env = {
      UPSTREAM_URL: sim.url,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      CREDENTIAL_HMAC_SECRET: 'redis-death-secret-0123456789',
      UPSTREAM_RATE_LIMIT: String(WINDOW),
      UPSTREAM_RATE_WINDOW_SEC: '120',
      // Two replicas: each may take half of what is left while Redis is gone.
      REDIS_DOWN_BUDGET_SHARE: '0.5',
      UPSTREAM_CACHE: 'off',
    };
    replicas.push(...(await Promise.all([startGatewayProcess(env), startGatewayProcess(env)])));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await sim?.close();
    if (redis.exitCode === null && redis.signalCode === null) {
      redis.kill('SIGKILL');
      await once(redis, 'exit');
    }
  });

  it('makes no upstream 429 and never spends more than the window', async () => {
    const [a, b] = replicas as [GatewayProcess, GatewayProcess];
    // 38 of 40 spent through both replicas (95 % of the window).
    for (let n = 1; n <= 38; n += 1) {
      const { body } = await (n % 2 ? a : b).gql(DETAIL, { id: cert(n) });
      expect(body.errors).toBeUndefined();
    }
    redis.kill('SIGKILL');
    await once(redis, 'exit');
    // Both replicas under load: 40 more distinct reads, 20 on each, all at once.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).gql(DETAIL, { id: cert(39 + i) })),
    );
    const stats = await sim.stats();
    expect(stats.byStatus['429']).toBeUndefined();
    expect(stats.total).toBeLessThanOrEqual(WINDOW);
  });
});
