/**
 * Real Redis for the tests where Redis is the subject (REDIS_URL, default redis://127.0.0.1:6379).
 * A missing Redis fails the files that need it, saying how to start one; only
 * `WEFT_TEST_WITHOUT=redis` skips them (never with CI=true), and the run's summary counts them
 * (`requirements.ts`). Every test uses its own key prefix and deletes its keys afterwards.
 *
 * Two modes: one Redis (default), or a Redis Cluster when the `cluster` vitest project reruns a
 * file (WEFT_TEST_REDIS=cluster; REDIS_CLUSTER_NODES, default the six nodes on 7000–7005 that the
 * project's global set-up starts). A test passes {@link REDIS_ENV} to the gateways it starts and
 * reads keys through the helpers here, which scan every master of a cluster.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createRedisClusterConnection } from '../../src/redis/redis-cluster-connection.ts';
import { createRedisConnection, type RedisConnection } from '../../src/redis/redis-connection.ts';
import { decide, optedOut } from './requirements.ts';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The cluster the `cluster` project's global set-up starts (test/support/redis-cluster-setup.ts). */
export const DEFAULT_CLUSTER_NODES = Array.from({ length: 6 }, (_, i) => `127.0.0.1:${7000 + i}`);

export const REDIS_CLUSTER_NODES =
  process.env.REDIS_CLUSTER_NODES ?? DEFAULT_CLUSTER_NODES.join(',');

/** Which Redis this run tests: one node, or the cluster (the `cluster` project). */
export const REDIS_MODE: 'single' | 'cluster' =
  process.env.WEFT_TEST_REDIS === 'cluster' ? 'cluster' : 'single';

/** True when the `cluster` project reruns a file. */
export const rerunOnCluster = REDIS_MODE === 'cluster';

/**
 * `describe` for a file's tests that need no Redis: they run in the file's own project, and the
 * `cluster` project's rerun does not register them (not a skip: they are not that run's to make).
 */
export const describeWithoutRedis = (
  rerunOnCluster ? () => undefined : describe
) as typeof describe;

/** The gateway's Redis variable in this mode, for the env of a gateway a test starts. */
export const REDIS_ENV: { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string } =
  REDIS_MODE === 'cluster' ? { REDIS_CLUSTER_NODES } : { REDIS_URL };

/**
 * The admin client of a test: a node client, or in cluster mode the cluster client, which answers
 * the keyed commands the tests use (get, type, hGetAll, pTTL…) from the right node. Keyless ones go
 * through the helpers below.
 */
export type TestRedis = ReturnType<typeof createClient>;

type TestCluster = ReturnType<typeof createCluster>;

/** The cluster client behind a {@link TestRedis}, when it is one. */
const clusterOf = (client: TestRedis): TestCluster | undefined =>
  'masters' in client ? (client as unknown as TestCluster) : undefined;

/** A port nothing listens on (for "Redis is down" tests). */
export const DEAD_REDIS_URL = 'redis://127.0.0.1:1';

/** The gateway's Redis variable pointing where nothing listens, in this mode. */
export const DEAD_REDIS_ENV: { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string } =
  REDIS_MODE === 'cluster' ? { REDIS_CLUSTER_NODES: '127.0.0.1:1' } : { REDIS_URL: DEAD_REDIS_URL };

const newClusterClient = () =>
  createCluster({
    rootNodes: REDIS_CLUSTER_NODES.split(',').map((node) => {
      const [host, port] = node.split(':');
      return { socket: { host: host!, port: Number(port), connectTimeout: 500 } };
    }),
  });

/** Whether the cluster answers at REDIS_CLUSTER_NODES with every slot served. */
async function clusterAnswers(): Promise<boolean> {
  const cluster = newClusterClient();
  cluster.on('error', () => undefined);
  try {
    await cluster.connect();
    const info = await cluster.sendCommand(undefined, true, ['CLUSTER', 'INFO']);
    return /cluster_state:ok/.test(String(info));
  } catch {
    return false;
  } finally {
    cluster.destroy();
  }
}

/** Whether Redis answers at REDIS_URL (half a second to connect). */
export async function redisAnswers(): Promise<boolean> {
  const client = createClient({
    url: REDIS_URL,
    socket: { connectTimeout: 500, reconnectStrategy: false },
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/**
 * Whether the Redis tests run: true when Redis answers; false (skip) only with
 * `WEFT_TEST_WITHOUT=redis`; otherwise a missing Redis throws, saying how to start one.
 */
export async function redisForTests(): Promise<boolean> {
  if (REDIS_MODE === 'cluster') {
    const up = optedOut(process.env).has('redis-cluster') ? false : await clusterAnswers();
    const where = `no cluster with every slot served at ${REDIS_CLUSTER_NODES}`;
    return decide('redis-cluster', up, process.env, where) === 'run';
  }
  const up = optedOut(process.env).has('redis') ? false : await redisAnswers();
  return decide('redis', up, process.env, `nothing answers at ${REDIS_URL}`) === 'run';
}

export const testRedisAvailable = await redisForTests();

/** A fresh key prefix (`REDIS_KEY_PREFIX`) for one test file. */
export const testPrefix = (name: string): string =>
  `wt-${name}-${randomBytes(4).toString('hex')}`.slice(0, 32);

export async function connectTestRedis(): Promise<TestRedis> {
  if (REDIS_MODE === 'cluster') {
    const cluster = newClusterClient();
    cluster.on('error', () => undefined);
    await cluster.connect();
    return cluster as unknown as TestRedis;
  }
  const client = createClient({ url: REDIS_URL });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** The node clients to scan: the one node, or every master of the cluster. */
async function nodesOf(client: TestRedis): Promise<TestRedis[]> {
  const cluster = clusterOf(client);
  if (!cluster) return [client];
  return Promise.all(
    cluster.masters.map(
      async (master) => (await cluster.nodeClient(master)) as unknown as TestRedis,
    ),
  );
}

/** Every key under a prefix (SCAN, never KEYS; on a cluster, every master). */
export async function keysUnder(client: TestRedis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for (const node of await nodesOf(client)) {
    for await (const batch of node.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
      keys.push(...batch);
    }
  }
  return keys;
}

/** Deletes keys one by one (keys of several slots cannot share one DEL on a cluster). */
async function deleteKeys(client: TestRedis, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  if (clusterOf(client)) await Promise.all(keys.map((key) => client.del(key)));
  else await client.del([...keys]);
}

export async function deleteUnder(client: TestRedis, prefix: string): Promise<void> {
  await deleteKeys(client, await keysUnder(client, prefix));
}

/** Redis's clock (`TIME`, seconds), from the node or from the cluster's first master. */
export async function redisTimeSec(client: TestRedis): Promise<number> {
  const [node] = await nodesOf(client);
  const [seconds] = (await node!.sendCommand(['TIME'])) as [string, string];
  return Number(seconds);
}

/** Forgets every loaded script on the node, or on every master of the cluster (NOSCRIPT next). */
export async function flushScripts(client: TestRedis): Promise<void> {
  for (const node of await nodesOf(client)) await node.scriptFlush();
}

/** How many connections named `name` are open, on the node or on every node of the cluster. */
export async function connectionsNamed(client: TestRedis, name: string): Promise<number> {
  let count = 0;
  for (const node of await nodesOf(client)) {
    count += (await node.clientList()).filter((c) => c.name === name).length;
  }
  return count;
}

/** Every key and value under a prefix (SCAN, never KEYS), then deletes them: for "no secret in Redis". */
export async function drainKeys(prefix: string): Promise<Array<{ key: string; value: string }>> {
  const client = await connectTestRedis();
  try {
    const found: Array<{ key: string; value: string }> = [];
    for (const key of await keysUnder(client, prefix)) {
      const type = await client.type(key);
      const value =
        type === 'string'
          ? ((await client.get(key)) ?? '')
          : type === 'hash'
            ? JSON.stringify(await client.hGetAll(key))
            : type === 'zset'
              ? JSON.stringify(await client.zRange(key, 0, -1))
              : `(${type})`;
      found.push({ key, value });
    }
    await deleteKeys(
      client,
      found.map((entry) => entry.key),
    );
    return found;
  } finally {
    await client.close();
  }
}

/** A gateway connection to the test Redis (as the upstream stack opens it), once it is usable. */
/** A logger that writes nothing, for the gateway parts a test builds by hand. */
export const silentLogger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

export async function openTestConnection(): Promise<RedisConnection> {
  const options = { connectTimeoutMs: 1_000, commandTimeoutMs: 500, logger: silentLogger };
  const connection =
    REDIS_MODE === 'cluster'
      ? createRedisClusterConnection({ nodes: REDIS_CLUSTER_NODES.split(','), ...options })
      : createRedisConnection({ url: REDIS_URL, ...options });
  expect(await connection.usable()).toBe(true);
  return connection;
}

/**
 * For a describe block on real Redis: opens a gateway connection (as the upstream stack does) and an
 * admin client before the tests, and deletes everything under `prefix` after them.
 */
export function useTestRedis(prefix: string): {
  connection: () => RedisConnection;
  admin: () => TestRedis;
} {
  let connection: RedisConnection | undefined;
  let admin: TestRedis | undefined;
  beforeAll(async () => {
    connection = await openTestConnection();
    admin = await connectTestRedis();
  });
  afterAll(async () => {
    if (admin) {
      await deleteUnder(admin, prefix);
      await admin.close();
    }
    await connection?.close();
  });
  return { connection: () => connection!, admin: () => admin! };
}
