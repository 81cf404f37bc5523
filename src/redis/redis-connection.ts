/**
 * The one Redis client of a gateway process (cache store and token buckets), built so that Redis
 * being slow or gone never stalls a request: commands are not queued while disconnected (they fail at
 * once), each command has a timeout, reconnection continues in the background with backoff, and
 * every caller has a fallback. At start-up the first connection attempt is awaited (at most the
 * connect timeout) before the gateway listens, so the first requests use Redis when it is there and
 * no request waits for it.
 *
 * Only a gateway with REDIS_URL loads this module (create-upstream-stack.ts imports it when asked;
 * with REDIS_CLUSTER_NODES it loads `redis-cluster-connection.ts`, which gives the same interface
 * over a cluster): the Redis client libraries are slow to load, and every other module refers to
 * Redis by type or through the connection, so a gateway without Redis never loads them.
 */
import KeyvRedis, { type KeyvRedisOptions } from '@keyv/redis';
import type { FastifyBaseLogger } from 'fastify';
import type { KeyvStoreAdapter } from 'keyv';
import { createClient } from 'redis';

type SingleNodeClient = ReturnType<typeof createRedisClient>;

/**
 * The commands the gateway sends, each on ONE key (or keys sharing a hash tag: docs/redis-keys.md),
 * the same on a single node and on a cluster (whose client routes each to the node owning the key's
 * slot). Nothing keyless (`KEYS`, `SCAN`, `SCRIPT LOAD`, `FLUSH*`): on a cluster those reach one
 * random node.
 */
export type RedisClient = Pick<
  SingleNodeClient,
  | 'get'
  | 'set'
  | 'del'
  | 'exists'
  | 'incr'
  | 'pExpire'
  | 'pTTL'
  | 'eval'
  | 'evalSha'
  | 'hGet'
  | 'hGetAll'
  | 'zAdd'
  | 'zRange'
  | 'zRem'
  | 'zCard'
>;

/**
 * What the connection can serve now (`/readyz` shows it): `ok`, every command goes to Redis;
 * `degraded`, the commands for some keys fall back (a cluster's slots whose master cannot be
 * reached); `unreachable`, every command falls back.
 */
export interface SharedStateReport {
  readonly store: 'redis' | 'redis-cluster';
  readonly state: 'ok' | 'degraded' | 'unreachable';
  /** A cluster's slots (of 16384) without a master this process can reach. */
  readonly unreachableSlots?: number;
}

export interface RedisConnection {
  readonly client: RedisClient;
  /**
   * Whether commands can be sent now. Waits once, at start-up, until the first connection has
   * settled (connected, or failed once), at most the connect timeout; `listen()` waits for it
   * before the first request.
   */
  usable(): Promise<boolean>;
  /** What this process can reach now (sends nothing). */
  sharedState(): SharedStateReport;
  /** A keyv store over this connection (the upstream cache, APQ documents). */
  keyvStore(options: KeyvRedisOptions): KeyvStoreAdapter;
  /** Publishes a message to a channel (fire and forget: a failure is the caller's to log). */
  publish(channel: string, message: string): Promise<void>;
  /**
   * On a Redis Cluster: waits until a replica of the master owning `key` has every write this
   * process sent to that master (`WAIT 1`, for at most half the command timeout); how many
   * replicas acknowledged. Absent on one Redis, which has no replica to fail over to.
   */
  readonly waitForReplica?: (key: string) => Promise<number>;
  /**
   * Listens to a channel on a connection of its own (one per process, opened on first use), until
   * the returned function is called.
   */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface RedisConnectionOptions {
  /** The node's URL (REDIS_URL). */
  readonly url: string;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly logger: FastifyBaseLogger;
  /** `CLIENT SETNAME`, so operators can tell the gateway's connections apart. */
  readonly name?: string;
}

/** The reconnection backoff of every connection: 50 ms doubling, at most 2 s. */
export const reconnectDelayMs = (retries: number): number =>
  Math.min(2_000, 50 * 2 ** Math.min(retries, 6));

function createRedisClient(options: RedisConnectionOptions) {
  return createClient({
    url: options.url,
    ...(options.name ? { name: options.name } : {}),
    disableOfflineQueue: true,
    commandOptions: { timeout: options.commandTimeoutMs },
    socket: {
      connectTimeout: options.connectTimeoutMs,
      reconnectStrategy: reconnectDelayMs,
    },
  });
}

/** The URL without its password, for log lines. */
export const redactRedisUrl = (url: string): string => {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis://?';
  }
};

export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const log = options.logger.child({ component: 'redis', redis: redactRedisUrl(options.url) });
  const client = createRedisClient(options);
  let healthy: boolean | undefined;
  let closed = false;
  // Log transitions, not every failed reconnect attempt.
  client.on('error', (error: Error) => {
    if (healthy !== false) {
      log.warn({ err: { message: error.message } }, 'Redis unreachable: using local fallbacks');
    }
    healthy = false;
  });
  client.on('ready', () => {
    if (healthy === false) log.info('Redis reachable again');
    healthy = true;
  });

  let startupDone = false;
  // Settled by the first attempt's outcome: a refused connection is an answer too.
  const firstReady = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, options.connectTimeoutMs);
    timer.unref();
    const settled = () => {
      clearTimeout(timer);
      client.off('ready', settled).off('error', settled);
      resolve();
    };
    client.once('ready', settled).once('error', settled);
  }).then(() => {
    startupDone = true;
  });
  client.connect().catch((error: unknown) => {
    if (!closed) log.warn({ err: { message: (error as Error).message } }, 'Redis connect failed');
  });

  // Subscribing takes a connection over: one, opened when first asked for. Held as it is made, so
  // that closing never waits for a connection Redis is not there to accept; one that failed is
  // dropped, and the next subscriber opens another.
  let subscriber: SingleNodeClient | undefined;
  // A connection that never opens would leave its subscribers waiting: closing ends the wait.
  const closing = Promise.withResolvers<never>();
  closing.promise.catch(() => undefined);
  let subscriberReady: Promise<SingleNodeClient> | undefined;
  const subscriberClient = (): Promise<SingleNodeClient> => {
    if (!subscriberReady) {
      const duplicate = client.duplicate();
      duplicate.on('error', () => undefined); // the main client's listener logs the transition
      subscriber = duplicate;
      subscriberReady = Promise.race([duplicate.connect(), closing.promise]).then(
        () => duplicate,
        (error: unknown) => {
          if (subscriber === duplicate) {
            subscriber = undefined;
            subscriberReady = undefined;
          }
          duplicate.destroy();
          throw error;
        },
      );
    }
    return subscriberReady;
  };

  return {
    client,
    async usable() {
      if (!startupDone) await firstReady;
      return client.isReady;
    },
    sharedState: () => ({ store: 'redis', state: client.isReady ? 'ok' : 'unreachable' }),
    keyvStore: (storeOptions) => new KeyvRedis(client, storeOptions),
    async publish(channel, message) {
      await client.publish(channel, message);
    },
    async subscribe(channel, listener) {
      const listening = await subscriberClient();
      await listening.subscribe(channel, listener);
      return async () => {
        if (listening.isReady) await listening.unsubscribe(channel, listener);
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      closing.reject(new Error('the Redis connection is closed'));
      subscriber?.destroy();
      try {
        if (client.isReady) await client.close();
        else client.destroy();
      } catch {
        client.destroy();
      }
    },
  };
}
