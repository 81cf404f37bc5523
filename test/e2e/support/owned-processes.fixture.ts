/**
 * Not a test of its own: the file a vitest run started by owned-processes.test.ts runs. Its set-up
 * starts a gateway process and a throwaway Redis, writes their pids (and this worker's) to
 * `OWNED_FIXTURE_PIDS`, then fails (`OWNED_FIXTURE_MODE=fail`) or waits to be interrupted (`hang`).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { beforeAll, it } from 'vitest';
import { startGatewayProcess } from '../../support/gateway-process.ts';
import { startKillableRedis } from '../../support/killable-redis.ts';

beforeAll(async () => {
  const [gateway, redis] = await Promise.all([
    // Nothing listens on port 9: the gateway starts all the same, and nothing here calls it.
    startGatewayProcess({ UPSTREAM_URL: 'http://127.0.0.1:9' }),
    startKillableRedis(),
  ]);
  redis.admin.destroy();
  // Written aside, then renamed: the test reads the file as soon as it exists, never half written.
  const pidsFile = process.env.OWNED_FIXTURE_PIDS!;
  writeFileSync(
    `${pidsFile}.part`,
    JSON.stringify({ worker: process.pid, gateway: gateway.child.pid, redis: redis.pid }),
  );
  renameSync(`${pidsFile}.part`, pidsFile);
  if (process.env.OWNED_FIXTURE_MODE === 'fail') throw new Error('the set-up fails on purpose');
  await new Promise(() => undefined);
});

it('is interrupted or never runs', () => undefined);
