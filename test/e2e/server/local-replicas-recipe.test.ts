/**
 * docs/replicas.md "Trying replicas locally", run as written: its first block (one `npm run
 * simulator`, two `npm start` replicas on one Redis) and its second (an app created through replica
 * 1, its job read through replica 2). Only the addresses change — free ports for 4010, 4001 and 4002,
 * the tests' Redis and a key prefix of this file's own — so a recipe that stops working fails here.
 * And the simulator chosen on purpose beside Redis (`UPSTREAM=embedded`) starts with a warning that
 * other replicas would not share its data.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { request } from 'undici';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { fencedBlocks } from '../../integration/docs/doc-examples.ts';
import { freePort, startGatewayProcess } from '../../support/gateway-process.ts';
import { ownProcessGroup } from '../../support/owned-processes.ts';
import { PROJECT_ROOT } from '../../support/production-command.ts';
import {
  REDIS_URL,
  connectTestRedis,
  deleteUnder,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';

const run = promisify(execFile);
const RECIPE = 'docs/replicas.md';

/** The recipe's two shell blocks: the section's first two ```sh blocks. */
function recipeBlocks(): { start: string; check: string } {
  const blocks = fencedBlocks(RECIPE);
  const markdown = blocks.filter((block) => block.language === 'sh');
  const start = markdown.find((block) => block.text.includes('npm run simulator &'));
  const check = markdown.find((block) => block.text.includes('appJob(jobId:'));
  if (!start || !check) throw new Error(`${RECIPE}: the local replicas recipe is missing`);
  return { start: start.text, check: check.text };
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await request(url);
    await res.body.dump();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!testRedisAvailable)('the local replicas recipe of docs/replicas.md', () => {
  const prefix = testPrefix('recipe');
  afterAll(async () => {
    const admin = await connectTestRedis();
    await deleteUnder(admin, prefix);
    await admin.close();
  });

  it('one simulator, two replicas on one Redis: a job created on one is read on the other', async () => {
    const [sim, first, second] = [await freePort(), await freePort(), await freePort()];
    const local = (text: string) =>
      text
        .replaceAll('127.0.0.1:4010', `127.0.0.1:${sim}`)
        .replaceAll('redis://127.0.0.1:6379', REDIS_URL)
        .replaceAll('REDIS_KEY_PREFIX=weft-local', `REDIS_KEY_PREFIX=${prefix}`)
        .replaceAll('4001', String(first))
        .replaceAll('4002', String(second));
    const { start, check } = recipeBlocks();
    // What the simulator and the replicas print, for the message when one of them never answers.
    const logDir = mkdtempSync(join(tmpdir(), 'weft-recipe-'));
    onTestFinished(() => rmSync(logDir, { recursive: true, force: true }));
    const logFile = join(logDir, 'recipe.log');
    const log = openSync(logFile, 'w');

    const shell = spawn('bash', ['-c', local(start)], {
      cwd: PROJECT_ROOT,
      // Its own process group: the simulator and both replicas are stopped together below.
      detached: true,
      env: {
        PATH: `${PROJECT_ROOT}node_modules/.bin:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? '',
        SIM_PORT: String(sim),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const pgid = shell.pid!;
    // The recipe's processes go with this worker however it ends (test/support/owned-processes.ts).
    const disown = ownProcessGroup(pgid);
    onTestFinished(() => {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
      disown();
    });
    await once(shell, 'exit');
    for (const port of [first, second]) {
      await expect
        .poll(() => answers(`http://127.0.0.1:${port}/healthz`), { timeout: 60_000, interval: 100 })
        .toBe(true)
        .catch((error: unknown) => {
          const output = readFileSync(logFile, 'utf8');
          throw new Error(
            `the replica on port ${port} never answered /healthz; the recipe's output:\n${output}`,
            { cause: error },
          );
        });
    }

    const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${local(check)}`], {
      timeout: 60_000,
    });
    const read = JSON.parse(stdout) as any;
    expect(read.errors).toBeUndefined();
    expect(read.data.appJob).toMatchObject({ jobId: expect.stringMatching(/^job-/) });
    expect(read.data.appJob.status).toEqual(expect.any(String));

    // The recipe's processes stop on one signal (Ctrl-C's, to the group) and leave nothing behind.
    process.kill(-pgid, 'SIGTERM');
    await expect.poll(() => groupAlive(pgid), { timeout: 30_000, interval: 50 }).toBe(false);
  }, 120_000);

  it('the embedded simulator chosen beside Redis starts with a warning', async () => {
    const gateway = await startGatewayProcess({
      UPSTREAM: 'embedded',
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      CREDENTIAL_HMAC_SECRET: 'x'.repeat(16),
    });
    onTestFinished(() => gateway.stop());
    const warnings = gateway.logs
      .map((line) => {
        try {
          return JSON.parse(line) as { level?: number; msg?: string };
        } catch {
          return {};
        }
      })
      .filter((entry) => entry.level === 40)
      .map((entry) => entry.msg);
    expect(warnings).toContainEqual(
      expect.stringContaining("the embedded simulator is this process's own"),
    );
  }, 90_000);
});
