/**
 * Integration harness: a real simulator and a real gateway, both on port 0, talking over sockets.
 * `gql` posts an operation the way a client would; `logs` holds every JSON log line the gateway wrote.
 */
import { Writable } from 'node:stream';
import { request } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/server/logger.ts';
import { createGateway, type Gateway } from '../../src/server/create-gateway.ts';
import type { SimulatorOptions } from '../../src/simulator/simulator.ts';
import { startSimulator, type RunningSimulator } from './simulator-harness.ts';

export interface GqlResult {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** The raw response text (for "never appears anywhere" assertions). */
  text: string;
}

export interface Stack {
  readonly sim: RunningSimulator;
  readonly gateway: Gateway;
  readonly url: string;
  readonly logs: string[];
  gql(
    query: string,
    variables?: Record<string, unknown>,
    options?: { token?: string | null; headers?: Record<string, string> },
  ): Promise<GqlResult>;
  http(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: string },
  ): Promise<GqlResult>;
  /** Upstream calls counted by the simulator since the last `resetCounts`. */
  upstreamCalls(route?: string): Promise<number>;
  resetCounts(): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions {
  sim?: SimulatorOptions;
  env?: Record<string, string>;
  /** Where the gateway finds its upstream, given the simulator's URL (e.g. a proxy in front of it). */
  upstream?: (simulatorUrl: string) => Promise<string>;
  /**
   * The budgets' clock on Redis too (the Redis store reads Redis's `TIME` by default): with
   * `fakeProcessDate()` installed, `() => Date.now()` makes the fake date the whole stack's clock.
   */
  budgetClock?: () => number;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const sim = await startSimulator({ ipLimits: false, ...options.sim });
  const upstreamUrl = options.upstream ? await options.upstream(sim.url) : sim.url;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  const config = loadConfig({
    LOG_LEVEL: 'debug',
    NODE_ENV: 'test',
    ...options.env,
    UPSTREAM_URL: upstreamUrl,
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const gateway = await createGateway(config, createLogger(config, sink), upstreamUrl, {
    now: options.budgetClock,
  });
  const url = await gateway.listen();

  const http: Stack['http'] = async (method, path, init = {}) => {
    const res = await request(`${url}${path}`, {
      method: method as 'GET',
      headers: init.headers,
      body: init.body,
    });
    const text = await res.body.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep text
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: res.statusCode, headers, body, text };
  };

  return {
    sim,
    gateway,
    url,
    logs,
    gql: (query, variables, opts = {}) => {
      const token = opts.token === undefined ? 'demo-token' : opts.token;
      return http('POST', '/graphql', {
        headers: {
          'content-type': 'application/json',
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          ...opts.headers,
        },
        body: JSON.stringify({ query, variables }),
      });
    },
    http,
    async upstreamCalls(route) {
      const stats = await sim.stats();
      return route === undefined ? stats.total : (stats.byRoute[route] ?? 0);
    },
    resetCounts: () => sim.reset(),
    async close() {
      await gateway.close();
      await sim.close();
    },
  };
}

/**
 * A second replica beside `stack`: another gateway in this process on the same simulator (which
 * counts every replica's calls), configured from `env` (share the stack's Redis there), silent.
 */
export async function startSecondReplica(
  stack: Stack,
  env: Record<string, string>,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const config = loadConfig({
    ...env,
    UPSTREAM_URL: stack.sim.url,
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const gateway = await createGateway(config, createLogger(config), stack.sim.url);
  const url = await gateway.listen();
  return { url, close: () => gateway.close() };
}
