/**
 * The bench's Redis round trips per request, on one Redis and on a Redis Cluster: the commands the
 * servers executed (`INFO commandstats` deltas, summed over the masters) while a gateway served N
 * requests one after another, divided by N. Each Redis is the bench's own (a redis-server on a free
 * port; the test cluster on 7000–7005, started when it is not up), so no other client's commands
 * are counted; the bench's own INFO, the cluster client's discovery commands and the commands run
 * inside scripts are left out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort, type GatewayProcess } from '../support/gateway-process.ts';
import { nodeSays, startTestCluster, type TestCluster } from '../support/redis-cluster-launcher.ts';
import { HIT_QUERY } from './journey.ts';

/** Commands of the clients' and replicas' own housekeeping, not of a request. */
const HOUSEKEEPING =
  /^(info|cluster|ping|client|hello|select|readonly|command|auth|replconf)(\|.*)?$/;
/**
 * Redis counts the commands a script runs as well as the script's EVALSHA: the ones the lease and
 * route-class scripts call are left out (a query sends none of them itself), so each EVALSHA counts once.
 */
const INSIDE_SCRIPTS = new Set([
  'time',
  'hgetall',
  'hdel',
  'hmget',
  'hset',
  'zremrangebyscore',
  'zcard',
  'zrange',
  'zadd',
  'zrem',
  'zscore',
  'pttl',
  'pexpire',
]);

export interface RoundTripRow {
  /** Commands per request, all commands together. */
  readonly total: number;
  /** Commands per request by command name (`evalsha`, `get`…), the largest first. */
  readonly byCommand: ReadonlyArray<readonly [string, number]>;
}

export interface RoundTrips {
  readonly hit: RoundTripRow;
  /** UPSTREAM_CACHE=off: every request makes its upstream call (the limiter's commands). */
  readonly miss: RoundTripRow;
  /** The same for a route of a class the gateway shares (hosting reads): two slots on a cluster. */
  readonly sharedClass: RoundTripRow;
}

/** A hosting read: one upstream call in the `hosting-read` class, which the gateway shares. */
export const SHARED_CLASS_QUERY = '{ apps { appId name status } }';

async function commandCounts(ports: readonly number[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const port of ports) {
    for (const line of (await nodeSays(port, 'INFO', 'commandstats')).split('\n')) {
      const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
      if (!match || HOUSEKEEPING.test(match[1]!) || INSIDE_SCRIPTS.has(match[1]!)) continue;
      counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + Number(match[2]));
    }
  }
  return counts;
}

async function perRequest(
  gateway: GatewayProcess,
  ports: () => Promise<number[]>,
  requests: number,
  query = HIT_QUERY,
): Promise<RoundTripRow> {
  await gateway.gql(query, {}, 'demo-token'); // warm: scripts loaded, cache filled
  await gateway.gql(query, {}, 'demo-token');
  const masters = await ports();
  const before = await commandCounts(masters);
  for (let i = 0; i < requests; i += 1) await gateway.gql(query, {}, 'demo-token');
  const after = await commandCounts(masters);
  const byCommand = [...after]
    .map(([name, calls]) => [name, (calls - (before.get(name) ?? 0)) / requests] as const)
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => b[1] - a[1]);
  return { total: byCommand.reduce((sum, [, calls]) => sum + calls, 0), byCommand };
}

/** The masters of the cluster now (CLUSTER NODES of its first node). */
async function mastersOf(cluster: TestCluster): Promise<number[]> {
  const text = await nodeSays(cluster.ports[0]!, 'CLUSTER', 'NODES');
  return text
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => /master/.test(fields[2] ?? '') && !/fail/.test(fields[2] ?? ''))
    .map((fields) => Number(fields[1]!.split('@')[0]!.split(':')[1]));
}

/**
 * Starts the two Redis set-ups and four gateways (cache on and off, per set-up), measures, stops
 * what it started. Undefined for a set-up that could not start (the bench says so).
 */
export async function measureRedisRoundTrips(
  gateway: (env: Record<string, string>) => Promise<GatewayProcess>,
  requests = 100,
): Promise<{ single?: RoundTrips; cluster?: RoundTrips; note: string }> {
  const notes: string[] = [];
  let server: ChildProcess | undefined;
  let cluster: TestCluster | undefined;
  const started: GatewayProcess[] = [];
  const measure = async (env: Record<string, string>, ports: () => Promise<number[]>) => {
    const [on, off] = await Promise.all([
      gateway({ ...env, REDIS_KEY_PREFIX: 'weft-bench-rt' }),
      gateway({ ...env, REDIS_KEY_PREFIX: 'weft-bench-rt-nc', UPSTREAM_CACHE: 'off' }),
    ]);
    started.push(on, off);
    return {
      hit: await perRequest(on, ports, requests),
      miss: await perRequest(off, ports, requests),
      // Fewer: the simulator's per-IP hosting limit (120 a minute) serves both set-ups.
      sharedClass: await perRequest(off, ports, 40, SHARED_CLASS_QUERY),
    };
  };
  try {
    let single: RoundTrips | undefined;
    try {
      const port = await freePort();
      server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
        server!.stdout!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('Ready to accept connections')) resolve();
        });
      });
      single = await measure({ REDIS_URL: `redis://127.0.0.1:${port}` }, async () => [port]);
    } catch (error) {
      notes.push(`one Redis: ${(error as Error).message}`);
    }
    let clustered: RoundTrips | undefined;
    try {
      cluster = await startTestCluster(7000);
      const running = cluster;
      clustered = await measure({ REDIS_CLUSTER_NODES: running.nodes }, () => mastersOf(running));
    } catch (error) {
      notes.push(`Redis Cluster: ${(error as Error).message}`);
    }
    return { single, cluster: clustered, note: notes.join('; ') };
  } finally {
    await Promise.all(started.map((process) => process.stop()));
    if (server && server.exitCode === null) {
      server.kill('SIGKILL');
      await once(server, 'exit');
    }
    if (cluster) {
      // The bench's keys go; a cluster that was already up stays up.
      for (const port of await mastersOf(cluster)) {
        for (const prefix of ['weft-bench-rt:*', 'weft-bench-rt-nc:*']) {
          const keys = (await nodeSays(port, '--scan', '--pattern', prefix)).split('\n');
          for (const key of keys.filter((k) => k !== '')) await nodeSays(port, 'DEL', key);
        }
      }
      await cluster.stop();
    }
  }
}
