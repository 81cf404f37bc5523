/**
 * Shared pollers behind the hosting subscriptions. The upstream has no events, so the gateway polls;
 * the per-credential budget makes every poll count, hence ONE poller per key (credential id +
 * resource) however many subscribers watch it (`shared-watch.ts`), polling with back-off
 * (`poll-loop.ts`) and waiting out transient failures (`transient-failures.ts`), and, across
 * replicas, one poll loop per key for all of them (`replica-roles.ts`).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { PollSettings } from './poll-loop.ts';
import { sharingFor, type ReplicaSharing } from './replica-sharing.ts';
import { SharedWatch } from './shared-watch.ts';
import type { WatchEvent, WatchSpec } from './watch-spec.ts';

export interface PollerOptions {
  readonly minIntervalMs: number;
  readonly maxIntervalMs: number;
  readonly maxLifetimeMs: number;
  /** Consecutive transient failures tolerated before the watch ends with the last error. */
  readonly maxTransientFailures?: number;
  readonly logger?: FastifyBaseLogger;
  /** One poll loop per key across the replicas sharing this Redis; without it, one per process. */
  readonly replicas?: ReplicaSharing;
}

export interface PollerRegistry {
  /** Subscribes to the poller for `spec.key`, starting it if none runs. */
  watch<T>(spec: WatchSpec<T>): AsyncIterableIterator<WatchEvent<T>>;
  /** Pollers running now. */
  readonly size: number;
  /** Ends every watch here (shutdown); resolves once their leases are released. */
  closeAll(): Promise<void>;
}

export function createPollerRegistry(options: PollerOptions): PollerRegistry {
  const settings: PollSettings = {
    maxTransientFailures: 5,
    ...options,
    maxIntervalMs: Math.max(options.minIntervalMs, options.maxIntervalMs),
  };
  const pollers = new Map<string, SharedWatch<unknown>>();
  const sharingOf = options.replicas && sharingFor(options.replicas, settings, options.logger);

  return {
    watch<T>(spec: WatchSpec<T>): AsyncIterableIterator<WatchEvent<T>> {
      let poller = pollers.get(spec.key) as SharedWatch<T> | undefined;
      if (!poller) {
        const created: SharedWatch<T> = new SharedWatch<T>(
          spec,
          settings,
          () => {
            if (pollers.get(spec.key) === (created as SharedWatch<unknown>)) {
              pollers.delete(spec.key);
            }
          },
          sharingOf?.(spec),
        );
        pollers.set(spec.key, created as SharedWatch<unknown>);
        created.start();
        poller = created;
      }
      return poller.join();
    },
    get size() {
      return pollers.size;
    },
    async closeAll() {
      const running = [...pollers.values()];
      for (const poller of running) poller.finish();
      await Promise.all(running.map((poller) => poller.settled));
    },
  };
}
