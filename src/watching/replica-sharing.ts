/**
 * What one registry's watches share when replicas poll together (SUBSCRIPTION_SHARED_POLLING=
 * replicas): the relay, the lease's length, this replica's id in every holder's name, and whether
 * Redis is failing now, logged once per outage rather than once per watch.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { WatchSpec } from './watch-spec.ts';
import type { WatchAddress, WatchChannel, WatchLease, WatchRelay } from './watch-relay.ts';

export interface ReplicaSharing {
  readonly relay: WatchRelay;
  /**
   * How long a lease lasts unless renewed. The holder renews it, and the others try to claim it,
   * every third of it: a replica that dies is replaced within a lease and a third.
   */
  readonly leaseMs: number;
}

/** One watch's share of the replicas' coordination. */
export interface WatchSharing {
  readonly lease: WatchLease;
  readonly channel: WatchChannel;
  readonly address: WatchAddress;
  /** This poller's name on the lease (replica id + a counter: a stale release never frees another). */
  readonly holder: string;
  readonly leaseMs: number;
  /** How long a state announced stays kept (the watch's longest life). */
  readonly keepMs: number;
  /** Redis failed: logged once per outage, for the whole registry. */
  down(error: unknown): void;
  up(): void;
}

/** Each watch's share of the coordination; Redis failures are logged once per outage. */
export function sharingFor(
  replicas: ReplicaSharing,
  settings: { readonly maxLifetimeMs: number },
  logger: FastifyBaseLogger | undefined,
): (spec: Pick<WatchSpec<unknown>, 'key' | 'credentialId'>) => WatchSharing {
  const replicaId = randomBytes(6).toString('hex');
  let watches = 0;
  let degraded = false;
  const down = (error: unknown) => {
    if (!degraded) {
      logger?.warn(
        { err: error instanceof Error ? { message: error.message } : undefined },
        'subscription polling: Redis unavailable, each replica polls for itself',
      );
    }
    degraded = true;
  };
  const up = () => {
    if (degraded) logger?.info('subscription polling: back to one poll loop across replicas');
    degraded = false;
  };
  return (spec) => {
    watches += 1;
    return {
      lease: replicas.relay,
      channel: replicas.relay,
      address: { credentialId: spec.credentialId, key: spec.key },
      holder: `${replicaId}.${watches}`,
      leaseMs: replicas.leaseMs,
      keepMs: settings.maxLifetimeMs + replicas.leaseMs,
      down,
      up,
    };
  };
}
