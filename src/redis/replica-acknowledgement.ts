/**
 * Grants that survive a failover: on a Redis Cluster a lease's grant is spent only once a replica
 * of its master has it (`WAIT 1`), since replication is asynchronous and a master that dies with a
 * grant not yet copied would be replaced by one that grants the same tokens again. A master with no
 * replica in sync answers no acknowledgement within the wait: then grants are not waited for for a
 * while (there is nothing to wait for), and the operator is told.
 */

/** After a grant no replica acknowledged, grants are not waited for this long. */
export const UNREPLICATED_PAUSE_MS = 60_000;

/** Waits until the writes just made on `key`'s master are on a replica (or gives up, see above). */
export type ReplicaAcknowledgement = (key: string) => Promise<void>;

export function createReplicaAcknowledgement(options: {
  /** `RedisConnection.waitForReplica`: how many replicas acknowledged. */
  readonly waitForReplica: (key: string) => Promise<number>;
  /** Told when no replica acknowledged (the waits pause). */
  readonly onUnreplicated: () => void;
}): ReplicaAcknowledgement {
  let pausedUntil = 0;
  return async (key) => {
    if (Date.now() < pausedUntil) return;
    if ((await options.waitForReplica(key)) >= 1) return;
    pausedUntil = Date.now() + UNREPLICATED_PAUSE_MS;
    options.onUnreplicated();
  };
}
