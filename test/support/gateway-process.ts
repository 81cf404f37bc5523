/**
 * A gateway as its own process, started as production starts it (the Dockerfile's command, flags and
 * environment: `production-command.ts`), for tests that need real processes: it reads its
 * configuration from the environment, and reports its URL in its start-up log line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'undici';
import { ownChild } from './owned-processes.ts';
import { PROJECT_ROOT, productionCommand } from './production-command.ts';

export interface GatewayProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Every log line the process wrote. */
  readonly logs: string[];
  gql(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
  ): Promise<{ status: number; headers: Record<string, string>; body: any }>;
  stop(): Promise<void>;
}

/** Where the kernel takes the ports it gives to `listen(0)` (Linux's default when unreadable). */
function ephemeralPortsStart(): number {
  try {
    const range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
    return Number(range.trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether a local port can be listened on now (and it is left free again). */
async function canListen(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  const listened = await Promise.race([
    once(server, 'listening').then(() => true),
    once(server, 'error').then(() => false),
  ]);
  if (listened) {
    server.close();
    await once(server, 'close');
  }
  return listened;
}

/**
 * A free local port, for processes that must be told their port (e.g. with LOG_LEVEL=warn).
 * Taken below the kernel's ephemeral range: a port from that range, free when checked, could be
 * given to anything that binds port 0 (every gateway the tests start does) before the process told
 * it binds it — and that process then stopped at start-up with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralPortsStart();
  // Above every port the project names itself (4000, 4010, the peers' 4400s, Redis and its clusters).
  const low = Math.min(below - 1_000, Math.max(10_000, below - 12_000));
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = low + Math.floor(Math.random() * (below - low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free local port between ${low} and ${below}`);
}

/**
 * Starts the Dockerfile's command with its environment, then `env` over it (the image's
 * `NODE_ENV=production` included: a test that needs another says so). With `PORT=0` (the default)
 * the URL comes from the start-up log line (LOG_LEVEL must be info or lower); with a fixed port it
 * is ready when `/healthz` answers.
 */
export async function startGatewayProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<GatewayProcess> {
  const fixedPort = env.PORT && env.PORT !== '0' ? Number(env.PORT) : undefined;
  const production = productionCommand();
  const child = ownChild(
    spawn(process.execPath, production.args, {
      cwd: PROJECT_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...production.env,
        LOG_LEVEL: 'info',
        PORT: '0',
        HOST: '127.0.0.1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const logs: string[] = [];
  let buffered = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A set-up that gives up on the gateway does not leave it running.
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start in ${timeoutMs} ms:\n${logs.join('\n')}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        logs.push(line);
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (fixedPort === undefined && entry.msg === 'Weft is serving the graph' && entry.url) {
            clearTimeout(timer);
            resolve(entry.url.replace(/\/graphql$/, ''));
          }
        } catch {
          // not JSON: keep it in the logs
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${logs.join('\n')}`));
    });
    if (fixedPort !== undefined) {
      const base = `http://127.0.0.1:${fixedPort}`;
      const poll = async () => {
        try {
          const res = await request(`${base}/healthz`);
          await res.body.dump();
          if (res.statusCode === 200) {
            clearTimeout(timer);
            resolve(base);
            return;
          }
        } catch {
          // not listening yet
        }
        if (child.exitCode === null) setTimeout(() => void poll(), 100);
      };
      void poll();
    }
  });

  return {
    url,
    child,
    logs,
    async gql(query, variables, token = 'demo-token') {
      const res = await request(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) headers[k] = String(v);
      return { status: res.statusCode, headers, body: await res.body.json() };
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
