/**
 * Nothing a test starts outlives the run (test/support/owned-processes.ts): a vitest run of a
 * fixture file whose set-up starts a gateway process and a throwaway Redis, then fails, or is
 * interrupted — SIGINT or SIGTERM to vitest, SIGKILL to the worker running the file. Whatever
 * ended it, the gateway and the Redis are gone shortly after, and so is the worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { until } from '../../support/clock.ts';
import { ownChild } from '../../support/owned-processes.ts';
import { PROJECT_ROOT } from '../../support/production-command.ts';

interface FixturePids {
  readonly worker: number;
  readonly gateway: number;
  readonly redis: number;
}

/** Whether `pid` runs (a zombie waiting for its new parent to reap it has ended). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Starts the fixture's vitest run; resolves with its pids once its set-up has started them. */
async function runFixture(
  mode: 'fail' | 'hang',
): Promise<{ vitest: ChildProcess; output: string[]; pids: FixturePids }> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-owned-'));
  const pidsFile = join(dir, 'pids.json');
  const output: string[] = [];
  const vitest = ownChild(
    spawn(
      process.execPath,
      [
        'node_modules/vitest/vitest.mjs',
        'run',
        '--config',
        'test/e2e/support/owned-processes.fixture-config.ts',
      ],
      {
        cwd: PROJECT_ROOT,
        env: {
          // Not this run's worker variables: the fixture run is a run of its own.
          ...Object.fromEntries(
            Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')),
          ),
          OWNED_FIXTURE_PIDS: pidsFile,
          OWNED_FIXTURE_MODE: mode,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  );
  for (const stream of [vitest.stdout!, vitest.stderr!]) {
    stream.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  }
  onTestFinished(() => {
    vitest.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  // vitest's and a gateway's start on a loaded two-core machine: tens of seconds.
  await until(
    () => existsSync(pidsFile) || vitest.exitCode !== null,
    'the fixture set-up',
    180_000,
  );
  if (!existsSync(pidsFile)) throw new Error(`the fixture run ended early:\n${output.join('')}`);
  return { vitest, output, pids: JSON.parse(readFileSync(pidsFile, 'utf8')) as FixturePids };
}

const ENDINGS = [
  { ending: 'its set-up fails', mode: 'fail', interrupt: undefined },
  { ending: 'vitest gets SIGINT', mode: 'hang', interrupt: 'SIGINT' },
  { ending: 'vitest gets SIGTERM', mode: 'hang', interrupt: 'SIGTERM' },
  { ending: "the file's worker gets SIGKILL", mode: 'hang', interrupt: 'worker' },
] as const;

describe('no process outlives a vitest run', () => {
  it.for(ENDINGS)(
    'leaves neither the gateway nor the Redis a set-up started when $ending',
    // A vitest run of its own that starts a gateway, on a loaded two-core machine.
    { timeout: 240_000 },
    async ({ mode, interrupt }) => {
      const { vitest, output, pids } = await runFixture(mode);
      const exited = once(vitest, 'exit');
      const children = [pids.gateway, pids.redis];
      if (mode === 'hang') expect(children.filter(running)).toEqual(children);
      if (interrupt === 'worker') process.kill(pids.worker, 'SIGKILL');
      else if (interrupt) vitest.kill(interrupt);
      const [code] = await exited;
      // The run failed (or was cut short): it did not pass by skipping the set-up.
      expect(code, output.join('')).not.toBe(0);
      await until(
        () => ![pids.worker, ...children].some(running),
        `the end of the worker ${pids.worker}, the gateway ${pids.gateway} and the Redis ${pids.redis}`,
      );
    },
  );
});
