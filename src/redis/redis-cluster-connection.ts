/**
 * The gateway's Redis connection over a Redis Cluster (REDIS_CLUSTER_NODES): the same interface and
 * the same resilience as the single-node connection (`redis-connection.ts`): no offline queue (a
 * command for a node that is down fails at once, and its caller falls back locally), a timeout on
 * every command, reconnection with backoff, the first discovery awaited for at most the connect
 * timeout. A master that was already down when the slot map was learned (at start-up) is not waited
 * on either: its commands fail at once too (`cluster-reachability.ts`), and the first discovery counts
 * as settled once every master has answered or failed once.
 *
 * node-redis's cluster client follows MOVED and ASK by itself, but it learns a new slot map only
 * from a MOVED: after a master dies its slots' commands fail with "client is offline" forever, since
 * no live node is ever asked. So any node error makes this connection ask the cluster for its slot
 * map again (at most twice a second): once a replica is promoted, its slots are served again
 * without a restart.
 *
 * Publish/subscribe is classic (PUBLISH, SUBSCRIBE), not sharded: a classic message reaches every
 * node, so the process listens on one connection to any live node and moves it when that node is
 * lost (`cluster-subscriber.ts`); node-redis drops the sharded subscriptions of a lost master, and
 * keeps its own classic ones on a lost node while the slot map names it. The price is that the
 * cluster bus copies every message to every node; Weft's messages are few and small.
 *
 * Only a gateway with REDIS_CLUSTER_NODES loads this module (see `redis-connection.ts`).
 */
import KeyvRedis, { type RedisConnectionClusterType } from '@keyv/redis';
import type { KeyvStoreAdapter } from 'keyv';
import { createCluster } from 'redis';
import {
  CLUSTER_SLOTS,
  discoverySettled,
  failFastOnUnreachableMasters,
  unreachableSlots,
  type ClusterView,
} from './cluster-reachability.ts';
import { createClusterSubscriber } from './cluster-subscriber.ts';
import {
  reconnectDelayMs,
  type RedisClient,
  type RedisConnection,
  type RedisConnectionOptions,
} from './redis-connection.ts';

export interface RedisClusterConnectionOptions extends Omit<RedisConnectionOptions, 'url'> {
  /** The cluster's root nodes, `host:port` (REDIS_CLUSTER_NODES). */
  readonly nodes: readonly string[];
}

/** At most one slot-map refresh per this interval while nodes keep failing. */
const REDISCOVER_EVERY_MS = 500;

const socketOf = (node: string) => {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
};

function createClusterClient(options: RedisClusterConnectionOptions) {
  return createCluster({
    rootNodes: options.nodes.map((node) => ({ socket: socketOf(node) })),
    commandOptions: { timeout: options.commandTimeoutMs },
    defaults: {
      ...(options.name ? { name: options.name } : {}),
      disableOfflineQueue: true,
      socket: { connectTimeout: options.connectTimeoutMs, reconnectStrategy: reconnectDelayMs },
    },
  });
}

type ClusterClient = ReturnType<typeof createClusterClient>;

/** `_slots.rediscover` is public in node-redis's typings but not documented: the one use is here. */
type Rediscoverable = {
  _slots: { rediscover(startWith: { options: unknown }): Promise<void> };
};

/** The store methods that reach Redis. */
const STORE_COMMANDS = new Set([
  'get',
  'getMany',
  'set',
  'setMany',
  'delete',
  'deleteMany',
  'has',
  'hasMany',
  'clear',
]);

/**
 * The keyv store, failing at once while the cluster has not been discovered yet. @keyv/redis
 * (5.1) connects a client that is not open by itself, and on failure destroys it and adds its
 * listeners again, once per command: the connection's own retry loop connects it instead.
 */
function openOnly(
  cluster: { readonly isOpen: boolean },
  store: KeyvStoreAdapter,
): KeyvStoreAdapter {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || !STORE_COMMANDS.has(String(property))) return value;
      return (...args: unknown[]) => {
        if (!cluster.isOpen) return Promise.reject(new Error('Redis Cluster not connected'));
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

export function createRedisClusterConnection(
  options: RedisClusterConnectionOptions,
): RedisConnection {
  const log = options.logger.child({ component: 'redis', redisCluster: options.nodes.join(',') });
  const cluster: ClusterClient = createClusterClient(options);
  const view = cluster as unknown as ClusterView;
  failFastOnUnreachableMasters(view);
  let healthy: boolean | undefined;
  let closed = false;

  const down = (error: Error) => {
    if (healthy !== false) {
      log.warn(
        { err: { message: error.message } },
        'Redis Cluster node unreachable: using local fallbacks for its slots',
      );
    }
    healthy = false;
  };

  // Ask a node that answers (else a root node) for the slot map again, at most every 500 ms.
  let lastRediscovery = 0;
  const rediscover = () => {
    if (closed || !cluster.isOpen || Date.now() - lastRediscovery < REDISCOVER_EVERY_MS) return;
    lastRediscovery = Date.now();
    const live = cluster.masters.find((master) => master.client?.isReady);
    const startWith = live
      ? { socket: { host: live.host, port: live.port } }
      : { socket: socketOf(options.nodes[0]!) };
    (cluster as unknown as Rediscoverable)._slots
      .rediscover({ options: startWith })
      .then(() => {
        if (cluster.masters.every((master) => master.client?.isReady !== false)) {
          if (healthy === false) log.info('Redis Cluster: every slot has a reachable master again');
          healthy = true;
        }
      })
      .catch(() => undefined);
  };
  cluster.on('error', (error: Error) => {
    down(error);
    rediscover();
  });

  // The first discovery at start-up; when no root node answers, again with backoff until one does.
  // It is settled (and `usable()` answers) as soon as Weft knows what it can reach: every master
  // connected, or each one either connected or failed once (node-redis itself would wait for the
  // failed ones until they come back), or no root node answered; at most the connect timeout.
  let startupDone = false;
  let settle: () => void = () => undefined;
  const firstReady = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, options.connectTimeoutMs);
    timer.unref();
    settle = () => {
      clearTimeout(timer);
      resolve();
    };
  }).then(() => {
    startupDone = true;
  });
  const failedNodes = new Set<string>();
  const nodeSettled = () => {
    if (!startupDone && discoverySettled(view, failedNodes)) settle();
  };
  cluster.on('node-error', (error: Error, node?: { host: string; port: number }) => {
    if (node) failedNodes.add(`${node.host}:${node.port}`);
    nodeSettled();
    down(error);
    rediscover();
  });
  cluster.on('node-ready', nodeSettled);
  const connect = async (attempt: number): Promise<void> => {
    if (closed) return;
    try {
      await cluster.connect();
      healthy = true;
      settle();
    } catch (error) {
      if (closed) return;
      if (attempt === 0) {
        settle();
        log.warn({ err: { message: (error as Error).message } }, 'Redis Cluster connect failed');
      }
      const retry = setTimeout(() => void connect(attempt + 1), reconnectDelayMs(attempt));
      retry.unref();
    }
  };
  void connect(0);

  // Listening: one connection to any live node (`cluster-subscriber.ts`), the nodes that answer first.
  const subscriber = createClusterSubscriber({
    nodes: () => {
      const known = [...cluster.masters, ...cluster.replicas];
      const answering = known.filter((node) => node.client?.isReady);
      return [
        ...answering,
        ...known.filter((node) => !answering.includes(node)),
        ...options.nodes.map(socketOf),
      ];
    },
    connectTimeoutMs: options.connectTimeoutMs,
    name: options.name,
  });
  return {
    client: cluster as unknown as RedisClient,
    async usable() {
      if (!startupDone) await firstReady;
      return cluster.isOpen;
    },
    sharedState() {
      const unreachable = unreachableSlots(view);
      return {
        store: 'redis-cluster',
        state:
          unreachable === 0 ? 'ok' : unreachable === CLUSTER_SLOTS ? 'unreachable' : 'degraded',
        unreachableSlots: unreachable,
      };
    },
    keyvStore: (storeOptions) =>
      openOnly(
        cluster,
        new KeyvRedis(cluster as unknown as RedisConnectionClusterType, storeOptions),
      ),
    async publish(channel, message) {
      await cluster.publish(channel, message);
    },
    async waitForReplica(key) {
      const timeoutMs = Math.max(1, Math.floor(options.commandTimeoutMs / 2));
      return Number(await cluster.sendCommand(key, false, ['WAIT', '1', String(timeoutMs)]));
    },
    subscribe: (channel, listener) => subscriber.subscribe(channel, listener),
    async close() {
      closed = true;
      subscriber.close();
      // A node that is down can keep a graceful close waiting: a second, then the sockets go.
      const giveUp = new Promise((resolve) => setTimeout(resolve, 1_000).unref());
      try {
        if (cluster.isOpen) await Promise.race([cluster.close(), giveUp]);
      } catch {
        // destroyed below
      }
      if (cluster.isOpen) cluster.destroy();
    },
  };
}
