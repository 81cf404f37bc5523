/**
 * Nothing waits on Redis that is not there. The rule of `cluster-reachability.ts` on a slot map
 * built by hand (node-redis's own shape): a command for a master whose connection is not ready
 * fails at once, while its connection goes on; the slots without a reachable master are counted
 * for `/readyz`. And both connections settle their start-up wait on the first refused connection,
 * not on the connect timeout (the e2e side: test/e2e/upstream/cluster-nodes-down-at-start.test.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  CLUSTER_SLOTS,
  ClusterNodeUnreachableError,
  discoverySettled,
  failFastOnUnreachableMasters,
  unreachableSlots,
  type ClusterView,
} from '../../../src/redis/cluster-reachability.ts';
import { createRedisClusterConnection } from '../../../src/redis/redis-cluster-connection.ts';
import {
  createRedisConnection,
  type RedisConnection,
} from '../../../src/redis/redis-connection.ts';
import { deferred } from '../../support/clock.ts';

/** Ports where nothing listens: every connection is refused at once. */
const DEAD_REDIS_URL = 'redis://127.0.0.1:1';

interface FakeNode {
  readonly address: string;
  client?: { isReady: boolean };
}

/** A two-master cluster: slots 0–8191 on `up`, 8192–16383 on `down` (never connected). */
function fakeCluster() {
  const up: FakeNode = { address: '10.0.0.1:6379', client: { isReady: true } };
  const down: FakeNode = { address: '10.0.0.2:6379' };
  const connecting = deferred<unknown>();
  const asked: string[] = [];
  const slots = Array.from({ length: CLUSTER_SLOTS }, (_, slot) => ({
    master: slot < 8192 ? up : down,
  }));
  const internals = {
    // node-redis: a connected node's client; otherwise the promise of its connection.
    nodeClient(node: FakeNode): Promise<unknown> {
      asked.push(node.address);
      return node.client?.isReady ? Promise.resolve(node.client) : connecting.promise;
    },
    async getClientAndSlotNumber(firstKey: unknown): Promise<unknown> {
      const slot = Number(firstKey);
      return { client: await this.nodeClient(view.slots[slot]!.master), slotNumber: slot };
    },
  };
  const view = { isOpen: true, masters: [up, down], slots, _slots: internals } as ClusterView & {
    slots: ({ master: FakeNode } | undefined)[];
  };
  return { view, up, down, asked, connecting };
}

describe('commands for a master that is not connected', () => {
  it('fail at once, while its connection goes on in the background', async () => {
    const { view, up, down, asked } = fakeCluster();
    failFastOnUnreachableMasters(view);
    // Without the rule this would wait for `connecting`, which the test never settles.
    await expect(view._slots.getClientAndSlotNumber('9000', false)).rejects.toThrow(
      new ClusterNodeUnreachableError(`Redis Cluster node ${down.address} is not connected`),
    );
    expect(asked).toEqual([down.address]);
    await expect(view._slots.getClientAndSlotNumber('10', false)).resolves.toEqual({
      client: up.client,
      slotNumber: 10,
    });
  });

  it('are served again as soon as the node is connected', async () => {
    const { view, down } = fakeCluster();
    failFastOnUnreachableMasters(view);
    down.client = { isReady: true };
    await expect(view._slots.getClientAndSlotNumber('9000', false)).resolves.toMatchObject({
      client: down.client,
    });
  });

  it('fail at once, with a clear error, before the slot map is known or for a slot no master serves', async () => {
    const { view } = fakeCluster();
    failFastOnUnreachableMasters(view);
    view.slots[42] = undefined;
    await expect(view._slots.getClientAndSlotNumber('42', false)).rejects.toThrow(
      'Redis Cluster: no master serves this slot',
    );
    const empty = { ...fakeCluster().view, masters: [] };
    failFastOnUnreachableMasters(empty);
    await expect(empty._slots.getClientAndSlotNumber('1', false)).rejects.toThrow(
      'Redis Cluster: no slot map yet',
    );
  });
});

describe('what readiness reports', () => {
  it('counts the slots whose master cannot be reached (all of them while closed)', () => {
    const { view, down } = fakeCluster();
    expect(unreachableSlots(view)).toBe(8192);
    down.client = { isReady: true };
    expect(unreachableSlots(view)).toBe(0);
    expect(unreachableSlots({ ...view, isOpen: false })).toBe(CLUSTER_SLOTS);
  });

  it('counts the first discovery settled once every master answered or failed once', () => {
    const { view, down } = fakeCluster();
    expect(discoverySettled(view, new Set())).toBe(false);
    expect(discoverySettled(view, new Set([down.address]))).toBe(true);
    expect(discoverySettled({ ...view, masters: [] }, new Set())).toBe(false);
  });
});

describe('the start-up wait of a connection to Redis that is not there', () => {
  const options = {
    connectTimeoutMs: 10_000,
    commandTimeoutMs: 500,
    logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
  };

  /** `usable()` answers before half the connect timeout (the witness) has elapsed. */
  async function answersBeforeTheTimeout(connection: RedisConnection) {
    try {
      const timeout = deferred<'timeout'>();
      const timer = setTimeout(() => timeout.resolve('timeout'), options.connectTimeoutMs / 2);
      const first = await Promise.race([connection.usable(), timeout.promise]);
      clearTimeout(timer);
      expect(first).toBe(false);
      expect(connection.sharedState().state).toBe('unreachable');
    } finally {
      await connection.close();
    }
  }

  it('ends at the first refused connection (one Redis)', async () => {
    await answersBeforeTheTimeout(createRedisConnection({ url: DEAD_REDIS_URL, ...options }));
  }, 10_000);

  it('ends when no root node of a cluster answered', async () => {
    await answersBeforeTheTimeout(
      createRedisClusterConnection({ nodes: ['127.0.0.1:1', '127.0.0.1:2'], ...options }),
    );
  }, 10_000);
});
