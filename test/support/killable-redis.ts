/**
 * A throwaway Redis (a `redis-server` child process without persistence) for the tests that kill
 * Redis or restart it empty — never the shared Redis on 6379, which other tests are using. It
 * takes the first free port of 7030–7039 (the range kept for these tests) and comes back on the
 * same port, so the gateways' connections reconnect to it as they would to a restarted server.
 *
 * While it is killed its port is free, and a test file running beside it must not start its own
 * Redis there (the first file's gateways would reconnect to the second's Redis in the middle of
 * their outage): each port is claimed with a lock file until `stop()`, and a file skips the ports
 * another live process has claimed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { until } from './clock.ts';
import { ownChild } from './owned-processes.ts';

/** The ports kept for throwaway Redis servers (the shared one is 6379, the clusters 7000–7029). */
const PORTS = Array.from({ length: 10 }, (_, i) => 7030 + i);

export interface KillableRedis {
  readonly url: string;
  /** The server process's pid (the current one after a restart). */
  readonly pid: number | undefined;
  /** A client of this server (for reading what the gateways stored); reconnects after a restart. */
  readonly admin: ReturnType<typeof createClient>;
  /** SIGKILL: every connection drops at once, nothing is saved. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Kills it for good (after the test). */
  stop(): Promise<void>;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Claims `port` for this process (a lock file holding its pid), taking over a claim whose process
 * is gone; returns the release, or undefined when another live process holds the port.
 */
function claim(port: number): (() => void) | undefined {
  const path = join(tmpdir(), `weft-killable-redis-${port}.lock`);
  const take = () => {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return true;
    } catch {
      return false;
    }
  };
  if (!take()) {
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(path, 'utf8'));
    } catch {
      // released meanwhile
    }
    if (Number.isInteger(owner) && alive(owner)) return undefined;
    rmSync(path, { force: true });
    if (!take()) return undefined;
  }
  return () => rmSync(path, { force: true });
}

/** Starts `redis-server` on `port`; undefined when it exits first (the port is taken). */
async function serveOn(port: number): Promise<ChildProcess | undefined> {
  const server = ownChild(
    spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    ),
  );
  const ready = await new Promise<boolean>((resolve) => {
    server.once('exit', () => resolve(false));
    server.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve(true);
    });
  });
  // Its output is not read after this: drained so the pipe never fills.
  server.stdout!.resume();
  return ready ? server : undefined;
}

export async function startKillableRedis(): Promise<KillableRedis> {
  let server: ChildProcess | undefined;
  let port = 0;
  let release = () => undefined as void;
  for (const candidate of PORTS) {
    const claimed = claim(candidate);
    if (!claimed) continue;
    server = await serveOn(candidate);
    if (server) {
      port = candidate;
      release = claimed;
      break;
    }
    claimed();
  }
  if (!server) throw new Error(`no free port for a throwaway redis-server in ${PORTS.join(', ')}`);
  const url = `redis://127.0.0.1:${port}`;
  const admin = createClient({ url, socket: { reconnectStrategy: () => 50 } });
  admin.on('error', () => undefined); // it dies with the server, and reconnects after a restart
  await admin.connect();

  const kill = async () => {
    const running = server;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  return {
    url,
    get pid() {
      return server?.pid;
    },
    admin,
    kill,
    async restart() {
      await kill();
      server = await serveOn(port);
      if (!server) throw new Error(`redis-server could not start again on port ${port}`);
      // The admin client reconnects every 50 ms: ready once it answers.
      await until(
        async () =>
          admin.isReady &&
          (await admin.ping().then(
            () => true,
            () => false,
          )),
        'the restarted Redis answering its admin client',
      );
    },
    async stop() {
      admin.destroy();
      await kill();
      release();
    },
  };
}
