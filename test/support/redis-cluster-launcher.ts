/**
 * A real Redis Cluster on localhost for the tests: three masters and three replicas from Debian's
 * `redis-server`, joined by `redis-cli --cluster create`. Used by the vitest global set-up of the
 * cluster project (ports 7000–7005, kept when it is already up), by the failover test (a throwaway
 * cluster on 7010–7015 whose masters it kills), by the nodes-down-at-start test (7020–7025, a master
 * and its replica killed before a gateway starts) and by the bench.
 *
 * No vitest import: the bench (plain node) uses it too.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ownPid } from './owned-processes.ts';

const run = promisify(execFile);

export interface TestCluster {
  /** The six ports, masters first as `--cluster create` assigned them. */
  readonly ports: readonly number[];
  /** `REDIS_CLUSTER_NODES`: every node, so a client finds the cluster whichever is down. */
  readonly nodes: string;
  /** Where the nodes' pid, log and cluster state files are (undefined when it was already up). */
  readonly dir: string | undefined;
  /** Stops the nodes this launcher started (none when the cluster was already up). */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** A command to one node through redis-cli; '' when it does not answer. */
export async function nodeSays(port: number, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), ...args], {
      timeout: 2_000,
    });
    return stdout;
  } catch {
    return '';
  }
}

/** Whether the node at `port` belongs to a cluster whose state is ok. */
export async function clusterOk(port: number): Promise<boolean> {
  return /cluster_state:ok/.test(await nodeSays(port, 'CLUSTER', 'INFO'));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every 100 ms until it holds; throws with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Redis Cluster: ${what} (after ${timeoutMs} ms)`);
    await sleep(100);
  }
}

/** Every node says the cluster is ok and every replica is in sync with its master. */
async function settled(ports: readonly number[]): Promise<boolean> {
  for (const port of ports) {
    if (!(await clusterOk(port))) return false;
    const replication = await nodeSays(port, 'INFO', 'replication');
    if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) return false;
  }
  return true;
}

/**
 * The nodes this process started, by port: a daemonized node is nobody's child, so it is handed to
 * the reaper by its pid file (killed with this process unless stopped first).
 */
const startedNodes = new Map<number, () => void>();

/** Starts one node (daemonized, no persistence) with its cluster state file under `dir`. */
export async function startNode(port: number, dir: string): Promise<void> {
  await run('redis-server', [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--daemonize',
    'yes',
    '--dir',
    dir,
    '--pidfile',
    join(dir, `redis-${port}.pid`),
    '--logfile',
    join(dir, `redis-${port}.log`),
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    // A lost master is noticed, and its replica promoted, within a second or two.
    '--cluster-node-timeout',
    '1000',
    // The slots of the other masters keep answering while one master is lost (the operator
    // setting docs/replicas.md recommends).
    '--cluster-require-full-coverage',
    'no',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  await waitFor(`node ${port} does not answer`, async () =>
    /PONG/.test(await nodeSays(port, 'PING')),
  );
  // Written before the node listens.
  startedNodes.get(port)?.();
  startedNodes.set(port, ownPid(Number(readFileSync(join(dir, `redis-${port}.pid`), 'utf8'))));
}

/** The node on `port` was stopped: the reaper forgets its pid. */
function forgetNode(port: number): void {
  startedNodes.get(port)?.();
  startedNodes.delete(port);
}

/**
 * The cluster on `firstPort`…`firstPort + 5`: reused when it is already up (and then left up),
 * otherwise started, created and awaited until every node agrees and every replica is in sync.
 */
export async function startTestCluster(firstPort: number): Promise<TestCluster> {
  const ports = Array.from({ length: 6 }, (_, i) => firstPort + i);
  const nodes = ports.map((port) => `${HOST}:${port}`).join(',');
  if (await clusterOk(firstPort)) {
    return { ports, nodes, dir: undefined, stop: async () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), `weft-cluster-${firstPort}-`));
  const stop = async () => {
    await Promise.all(ports.map((port) => nodeSays(port, 'SHUTDOWN', 'NOSAVE')));
    for (const port of ports) forgetNode(port);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(ports.map((port) => startNode(port, dir)));
    await run(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((port) => `${HOST}:${port}`)].concat([
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ]),
      { timeout: 30_000 },
    );
    await waitFor('the nodes do not agree', () => settled(ports), 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { ports, nodes, dir, stop };
}

/** The port of the master serving `slot` now (from `CLUSTER NODES` of the first node that answers). */
export async function masterOfSlot(ports: readonly number[], slot: number): Promise<number> {
  for (const port of ports) {
    const text = await nodeSays(port, 'CLUSTER', 'NODES');
    for (const line of text.split('\n')) {
      const [, address, flags, , , , , , ...ranges] = line.split(' ');
      if (!flags || !/master/.test(flags) || /fail/.test(flags)) continue;
      for (const range of ranges) {
        const [from, to = from] = range.split('-').map(Number);
        if (from !== undefined && to !== undefined && slot >= from && slot <= to) {
          return Number(address!.split('@')[0]!.split(':')[1]);
        }
      }
    }
  }
  throw new Error(`Redis Cluster: no master serves slot ${slot}`);
}

/** The ports of the replicas of the master on `port` (from that master's own `CLUSTER NODES`). */
export async function replicasOf(port: number): Promise<number[]> {
  const id = (await nodeSays(port, 'CLUSTER', 'MYID')).trim();
  const replicas: number[] = [];
  for (const line of (await nodeSays(port, 'CLUSTER', 'NODES')).split('\n')) {
    const [, address, flags, masterId] = line.split(' ');
    if (flags && /slave/.test(flags) && masterId === id) {
      replicas.push(Number(address!.split('@')[0]!.split(':')[1]));
    }
  }
  return replicas;
}

/** Kills a node's process at once (SIGKILL: no goodbye to the cluster). */
export async function killNode(port: number, dir: string): Promise<void> {
  const pid = readFileSync(join(dir, `redis-${port}.pid`), 'utf8').trim();
  process.kill(Number(pid), 'SIGKILL');
  forgetNode(port);
}
