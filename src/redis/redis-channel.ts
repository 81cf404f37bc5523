/**
 * One channel this process listens to, for as long as it runs: subscribed once Redis is usable,
 * never before — the subscriber connection is opened by the first subscribe, and one opened while
 * Redis is unreachable keeps the connection's close waiting for it (redis-connection.ts). Until it
 * listens, the caller works without the channel; it asks again every second (`usable()` sends
 * nothing) and whenever the caller calls `listen()`.
 */
import type { RedisConnection } from './redis-connection.ts';

export interface RedisChannel {
  /** Whether the subscription is in place. */
  readonly listening: boolean;
  /** Asks for the subscription now if it is not in place (nothing when it is, or being made). */
  listen(): void;
  close(): Promise<void>;
}

export function listenToChannel(
  redis: RedisConnection,
  channel: string,
  onMessage: (message: string) => void,
): RedisChannel {
  let listening = false;
  let closed = false;
  let subscription: Promise<(() => Promise<void>) | undefined> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const listen = () => {
    if (closed || subscription) return;
    clearTimeout(retry);
    const later = () => {
      subscription = undefined;
      if (closed) return;
      retry = setTimeout(listen, 1_000);
      retry.unref();
    };
    subscription = redis
      .usable()
      .then((usable) => (usable && !closed ? redis.subscribe(channel, onMessage) : undefined))
      .then(
        async (stop) => {
          if (!stop) later();
          else if (closed) await stop().catch(() => undefined);
          else listening = true;
          return stop;
        },
        () => {
          later();
          return undefined;
        },
      );
  };
  listen();
  return {
    get listening() {
      return listening;
    },
    listen,
    async close() {
      closed = true;
      clearTimeout(retry);
      if (!listening) return; // a subscription still pending stops itself when it comes
      listening = false;
      const stop = await subscription;
      await stop?.().catch(() => undefined);
    },
  };
}
