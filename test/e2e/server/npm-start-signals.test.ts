/**
 * `npm start` under a supervisor (docs/deploy.md "The production command"): SIGTERM to npm's own
 * pid drains Weft and leaves no process behind — npm exits 0, the log says "stopped", every process
 * npm started is gone and the port is closed. And a signal to the whole process group (a terminal's
 * Ctrl-C, systemd's default `KillMode=control-group`), which reaches node twice (directly, and
 * forwarded by npm), drains as one signal: the slow query in flight is answered, no "second signal".
 *
 * npm is run as a supervisor runs it: `npm start` from the project, its PATH starting with
 * node_modules/.bin (Node 24, as every npm script finds it), in its own process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../../support/gateway-process.ts';
import { ownProcessGroup } from '../../support/owned-processes.ts';
import { PROJECT_ROOT } from '../../support/production-command.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

/** One upstream call (the entitlement's certificates), slowed by the simulator's latency. */
const SLOW_QUERY =
  '{ certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId } }';

let sim: RunningSimulator;
/** Upstream calls received so far. */
let arrivals = 0;
beforeAll(async () => {
  sim = await startSimulator({ onArrival: () => (arrivals += 1) });
});
afterAll(() => sim.close());

interface NpmStart {
  readonly npm: ChildProcess;
  readonly port: number;
  readonly lines: string[];
  /** npm's exit code (null when it died of a signal). */
  readonly exited: Promise<number | null>;
  /** The processes npm had started once Weft served (node, and a shell if one stood between). */
  readonly descendants: readonly number[];
}

async function startNpm(env: Record<string, string> = {}): Promise<NpmStart> {
  const port = await freePort();
  const npm = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    // A process group of its own, as a service manager gives it (and for the group-signal case).
    detached: true,
    env: {
      PATH: `${PROJECT_ROOT}node_modules/.bin:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '',
      UPSTREAM_URL: sim.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => lines.push(...String(chunk).split('\n'));
  npm.stdout!.on('data', collect);
  npm.stderr!.on('data', collect);
  const exited = once(npm, 'exit').then(([code]) => code as number | null);
  const descendants: number[] = [];
  // npm, its shell and Weft go with this worker however it ends (test/support/owned-processes.ts).
  const disown = ownProcessGroup(npm.pid!);
  onTestFinished(() => {
    // Whatever the test saw, nothing it started outlives it.
    for (const pid of descendants) killQuietly(pid);
    killQuietly(-npm.pid!);
    disown();
  });
  await expect
    .poll(() => lines.some((line) => line.includes('Weft is serving the graph')), {
      timeout: 60_000,
      interval: 50,
    })
    .toBe(true);
  descendants.push(...descendantsOf(npm.pid!));
  return { npm, port, lines, exited, descendants };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Every process below `pid` (from /proc's children lists). */
function descendantsOf(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((text) => text !== '')
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function portOpen(port: number): Promise<boolean> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

const messages = (lines: string[]) =>
  lines.flatMap((line) => {
    try {
      return [(JSON.parse(line) as { msg?: string }).msg];
    } catch {
      return [];
    }
  });

describe('npm start under a supervisor', () => {
  it('SIGTERM to the npm pid drains, exits 0 and leaves no process and no open port', async () => {
    const started = await startNpm();
    // npm started node (and whatever stood between them).
    expect(started.descendants.length).toBeGreaterThan(0);

    process.kill(started.npm.pid!, 'SIGTERM');
    expect(await started.exited).toBe(0);
    expect(messages(started.lines)).toContain('stopped');
    // Node had exited before npm did (npm waits for its child): nothing of it is left.
    expect(started.descendants.filter(alive)).toEqual([]);
    expect(await portOpen(started.port)).toBe(false);
  }, 90_000);

  it('a signal to the process group drains once: the query in flight is answered', async () => {
    const started = await startNpm({ SHUTDOWN_TIMEOUT_MS: '8000' });
    sim.simulator.configure({ latencyMs: 1500 });
    onTestFinished(() => sim.simulator.configure({ latencyMs: 0 }));
    const before = arrivals;
    const answer = request(`http://127.0.0.1:${started.port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({ query: SLOW_QUERY }),
    });
    // The query's upstream call is under way: it is in flight when the signal arrives.
    await expect.poll(() => arrivals, { interval: 10 }).toBeGreaterThan(before);

    process.kill(-started.npm.pid!, 'SIGTERM');
    const response = await answer;
    expect(response.statusCode).toBe(200);
    const body = (await response.body.json()) as any;
    expect(body.errors).toBeUndefined();
    expect(body.data.certificatesByEntitlement.length).toBeGreaterThan(0);
    expect(await started.exited).toBe(0);
    expect(messages(started.lines)).toContain('stopped');
    expect(messages(started.lines)).not.toContain('second signal; exiting now');
  }, 90_000);
});
