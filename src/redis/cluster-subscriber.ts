/**
 * Listening on a Redis Cluster. A classic PUBLISH reaches every node of a cluster, so a subscriber
 * may listen on any of them: one connection to a live node carries every channel of the process,
 * and when that node is lost the channels move to another live node at once. (node-redis's own
 * cluster pub/sub stays on a lost node for as long as the slot map still names it, and its
 * subscriptions go quiet until that node comes back.)
 */
import { createClient } from 'redis';

export interface ClusterNodeAddress {
  readonly host: string;
  readonly port: number;
}

export interface ClusterSubscriber {
  /** Listens to a channel until the returned function is called. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  close(): void;
}

export interface ClusterSubscriberOptions {
  /** The nodes to try, the ones known to answer first. */
  readonly nodes: () => readonly ClusterNodeAddress[];
  readonly connectTimeoutMs: number;
  /** `CLIENT SETNAME`. */
  readonly name?: string | undefined;
}

type Connection = ReturnType<typeof createClient>;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export function createClusterSubscriber(options: ClusterSubscriberOptions): ClusterSubscriber {
  const listeners = new Map<string, Set<(message: string) => void>>();
  let current: Promise<Connection> | undefined;
  let closed = false;

  const deliver = (message: string, channel: string) => {
    for (const listener of listeners.get(channel) ?? []) listener(message);
  };

  // The node went away: every channel moves to another one.
  const lost = (connection: Connection) => {
    void current?.then(
      (held) => {
        if (held !== connection) return;
        current = undefined;
        if (connection.isOpen) connection.destroy();
        if (!closed && listeners.size > 0) connect().catch(() => undefined);
      },
      () => undefined,
    );
  };

  const connectTo = async (node: ClusterNodeAddress): Promise<Connection> => {
    const connection = createClient({
      ...(options.name ? { name: options.name } : {}),
      disableOfflineQueue: true,
      socket: {
        host: node.host,
        port: node.port,
        connectTimeout: options.connectTimeoutMs,
        reconnectStrategy: false,
      },
    });
    connection.on('error', () => lost(connection));
    try {
      await connection.connect();
      for (const channel of listeners.keys()) await connection.subscribe(channel, deliver);
      return connection;
    } catch (error) {
      if (connection.isOpen) connection.destroy();
      throw error;
    }
  };

  const open = async (): Promise<Connection> => {
    for (let round = 0; !closed; round += 1) {
      for (const node of options.nodes()) {
        if (closed) break;
        try {
          return await connectTo(node);
        } catch {
          // the next node
        }
      }
      await pause(Math.min(2_000, 100 * 2 ** Math.min(round, 5)));
    }
    throw new Error('the Redis Cluster connection is closed');
  };
  const connect = (): Promise<Connection> => {
    current ??= open().catch((error: unknown) => {
      current = undefined;
      throw error;
    });
    return current;
  };

  return {
    async subscribe(channel, listener) {
      let channelListeners = listeners.get(channel);
      const first = channelListeners === undefined;
      if (!channelListeners) {
        channelListeners = new Set();
        listeners.set(channel, channelListeners);
      }
      channelListeners.add(listener);
      const connection = await connect();
      // A connection opened after the channel was added has subscribed it already; a second
      // SUBSCRIBE with the same listener changes nothing.
      if (first) await connection.subscribe(channel, deliver);
      return async () => {
        const remaining = listeners.get(channel);
        remaining?.delete(listener);
        if (remaining?.size !== 0) return;
        listeners.delete(channel);
        const held = await current?.catch(() => undefined);
        if (held?.isReady) await held.unsubscribe(channel, deliver);
      };
    },
    close() {
      closed = true;
      listeners.clear();
      void current?.then(
        (connection) => {
          if (connection.isOpen) connection.destroy();
        },
        () => undefined,
      );
    },
  };
}
