/**
 * What this process can reach of a Redis Cluster, and the rule that nothing waits on a master it
 * cannot reach.
 *
 * node-redis (5.x) hands a command the connection of its slot's master, and while that connection
 * has never been opened it hands over the promise of its opening instead: the command waits for it
 * before its own timeout even starts. A master that was already gone when the slot map was learned
 * (at start-up, or a node new to the map) is retried forever, so every command for its slots — and
 * the first discovery itself, which waits for every master — would wait for as long as it stays
 * down. Commands for a master lost later fail at once (no offline queue), which is what the
 * fallbacks expect. {@link failFastOnUnreachableMasters} makes the first case the second: a node
 * whose connection is not ready fails the command at once, while the library keeps connecting to
 * it in the background; once it answers, its slots are served again.
 *
 * Cost: one property read per command (and nothing on the cold path); {@link unreachableSlots}
 * walks the 16384-entry slot map (microseconds), only when readiness asks.
 */

/** The slot map of a cluster, as node-redis exposes it (only the parts read here). */
interface ClusterNode {
  readonly address: string;
  readonly client?: { readonly isReady: boolean } | undefined;
}

interface ClusterSlots {
  nodeClient(node: ClusterNode): Promise<unknown>;
  getClientAndSlotNumber(firstKey: unknown, isReadonly: unknown): Promise<unknown>;
}

export interface ClusterView {
  readonly isOpen: boolean;
  readonly masters: readonly ClusterNode[];
  readonly slots: readonly ({ readonly master: ClusterNode } | undefined)[];
  readonly _slots: ClusterSlots;
}

/** A Redis Cluster has this many slots. */
export const CLUSTER_SLOTS = 16_384;

export class ClusterNodeUnreachableError extends Error {
  override readonly name = 'ClusterNodeUnreachableError';
}

const ready = (node: ClusterNode | undefined): boolean => node?.client?.isReady === true;

/**
 * Makes every command (scripts, keyv's per-slot reads, MULTI) for a node that is not connected now
 * fail at once instead of waiting for its connection; a command before the slot map is known, or
 * for a slot no master serves, fails at once with a clear error too.
 */
export function failFastOnUnreachableMasters(cluster: ClusterView): void {
  const slots = cluster._slots;
  const connect = slots.nodeClient.bind(slots);
  const route = slots.getClientAndSlotNumber.bind(slots);
  slots.nodeClient = (node) => {
    if (ready(node)) return connect(node);
    // The library's own connection attempt goes on (or starts, for a node never asked yet).
    if (node) connect(node).catch(() => undefined);
    return Promise.reject(
      new ClusterNodeUnreachableError(
        `Redis Cluster node ${node?.address ?? '(none known)'} is not connected`,
      ),
    );
  };
  slots.getClientAndSlotNumber = async (firstKey, isReadonly) => {
    if (cluster.masters.length === 0) {
      throw new ClusterNodeUnreachableError('Redis Cluster: no slot map yet');
    }
    try {
      return await route(firstKey, isReadonly);
    } catch (error) {
      // node-redis reads `slots[slot].master` of a slot no master serves.
      if (error instanceof TypeError) {
        throw new ClusterNodeUnreachableError('Redis Cluster: no master serves this slot', {
          cause: error,
        });
      }
      throw error;
    }
  };
}

/** How many slots have no master this process can send a command to now. */
export function unreachableSlots(cluster: ClusterView): number {
  if (!cluster.isOpen) return CLUSTER_SLOTS;
  let count = 0;
  for (let slot = 0; slot < CLUSTER_SLOTS; slot += 1) {
    if (!ready(cluster.slots[slot]?.master)) count += 1;
  }
  return count;
}

/**
 * Whether the first discovery has settled: the slot map is known and every master has either
 * answered or failed a connection attempt (`failed` holds the addresses of nodes that did).
 */
export function discoverySettled(cluster: ClusterView, failed: ReadonlySet<string>): boolean {
  return (
    cluster.masters.length > 0 &&
    cluster.masters.every((master) => ready(master) || failed.has(master.address))
  );
}
