/**
 * Node's compile cache (docs/deploy.md "Start-up"). The image's build step
 * (`scripts/warm-compile-cache.ts`, the Dockerfile's `RUN`) leaves a cache from which the image's
 * command loads every module of its start-up, stripping and compiling none again; `npm ci` runs the
 * same script. And a start writes what it loaded as soon as it serves, so a process killed later
 * (SIGKILL, an out-of-memory kill) still leaves it for the next start.
 *
 * Which modules came from the cache is what Node itself says with NODE_DEBUG_NATIVE=COMPILE_CACHE:
 * a line per module read from it, and one per module it did not have.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { ownChild } from '../../support/owned-processes.ts';
import { PROJECT_ROOT, productionCommand } from '../../support/production-command.ts';

let cacheDir: string;
const started: GatewayProcess[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((gateway) => gateway.stop()));
  rmSync(cacheDir, { recursive: true, force: true });
});

function freshCacheDir(): string {
  cacheDir = mkdtempSync(join(tmpdir(), 'weft-compile-cache-'));
  return cacheDir;
}

/** A start of the image's command on the embedded upstream, with the given cache. */
async function start(dir: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({
    UPSTREAM: 'embedded',
    NODE_COMPILE_CACHE: dir,
    ...env,
  });
  started.push(gateway);
  return gateway;
}

/** What Node's compile cache said about the modules a start loaded, up to serving and stopping. */
async function cacheReport(dir: string): Promise<{ read: number; compiled: string[] }> {
  const gateway = await start(dir, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  await gateway.stop();
  const lines = gateway.logs.join('\n').split('\n');
  return {
    read: lines.filter((line) => /code cache for .* was accepted/.test(line)).length,
    // Nothing on disk for a module (or V8 refused what was): it is stripped or compiled again.
    compiled: lines.filter((line) =>
      /reading cache from .* no such file or directory|was rejected|no transpile cache/.test(line),
    ),
  };
}

describe('the compile cache', () => {
  it("that the image's build step makes holds every module the image's command loads at start-up", async () => {
    const dir = freshCacheDir();
    const production = productionCommand();
    const step = production.buildSteps.find((args) =>
      args.includes('scripts/warm-compile-cache.ts'),
    );
    expect(
      step,
      'the Dockerfile runs scripts/warm-compile-cache.ts in its runtime stage',
    ).toBeDefined();
    const [command, ...args] = step!;
    expect(command).toBe('node');
    const warm = ownChild(
      spawn(process.execPath, args, {
        cwd: PROJECT_ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          ...production.env,
          NODE_COMPILE_CACHE: dir,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const output: string[] = [];
    warm.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    warm.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    const [code] = (await once(warm, 'exit')) as [number | null];
    expect(code, output.join('')).toBe(0);

    const report = await cacheReport(dir);
    expect(report.compiled, 'modules the start-up stripped or compiled again').toEqual([]);
    // Weft's own modules and its libraries' (~930 code caches at this writing): a report that saw
    // few would prove little.
    expect(report.read).toBeGreaterThan(800);
  });

  it('is written once the process serves: a start after a killed one compiles nothing again', async () => {
    const dir = freshCacheDir();
    const killed = await start(dir);
    killed.child.kill('SIGKILL');
    await once(killed.child, 'exit');

    const report = await cacheReport(dir);
    expect(report.compiled, 'modules the start-up stripped or compiled again').toEqual([]);
    expect(report.read).toBeGreaterThan(800);
  });

  it('is made by `npm ci` too (the `prepare` script runs the same step)', () => {
    const { scripts } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      scripts: { prepare: string };
    };
    expect(scripts.prepare.split(' && ')).toContain('node scripts/warm-compile-cache.ts');
  });
});
