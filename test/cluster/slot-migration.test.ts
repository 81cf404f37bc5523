/**
 * A slot moving from one master to another under the gateway's connection (the `cluster` project
 * only): the credential's bucket and leases, in that slot, keep working through the move. The
 * cluster client follows the MOVED answer of the old master to the new one, and the lease script
 * runs there (EVAL when that node has never run it), on the keys MIGRATE carried over: nothing of
 * the bucket is lost.
 */
import { describe, expect, it } from 'vitest';
import { createSharedBuckets } from '../../src/upstream/budget/shared-buckets.ts';
import { masterOfSlot, nodeSays } from '../support/redis-cluster-launcher.ts';
import {
  REDIS_CLUSTER_NODES,
  flushScripts,
  silentLogger,
  testPrefix,
  testRedisAvailable,
  useTestRedis,
} from '../support/redis.ts';

const ports = REDIS_CLUSTER_NODES.split(',').map((node) => Number(node.split(':')[1]));
const say = async (port: number, ...args: string[]) => (await nodeSays(port, ...args)).trim();

/** Moves `slot` and its keys from its master to another master (CLUSTER SETSLOT, MIGRATE). */
async function moveSlot(slot: number): Promise<{ from: number; to: number }> {
  const from = await masterOfSlot(ports, slot);
  const roles = await Promise.all(
    ports.map(async (port) => [port, await say(port, 'ROLE')] as const),
  );
  const to = roles.find(([port, role]) => port !== from && role.startsWith('master'))![0];
  const [fromId, toId] = await Promise.all([
    say(from, 'CLUSTER', 'MYID'),
    say(to, 'CLUSTER', 'MYID'),
  ]);
  await say(to, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId);
  await say(from, 'CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId);
  const keys = (await say(from, 'CLUSTER', 'GETKEYSINSLOT', String(slot), '100'))
    .split('\n')
    .filter((key) => key !== '');
  if (keys.length > 0) {
    await say(from, 'MIGRATE', '127.0.0.1', String(to), '', '0', '5000', 'KEYS', ...keys);
  }
  for (const port of [to, from]) await say(port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', toId);
  return { from, to };
}

describe.skipIf(!testRedisAvailable)('a slot moving to another master', () => {
  const prefix = testPrefix('slot-move');
  const redis = useTestRedis(prefix);

  it("follows the credential's bucket to its new master, with what it held", async () => {
    const shared = createSharedBuckets({
      redis: redis.connection(),
      budget: { capacity: 10, windowMs: 600_000 },
      prefix,
      logger: silentLogger,
    });
    const { store } = shared;
    const credentialId = `moving-${prefix}`;
    // The upstream said all 10 are left; the take leases some of them, and spends one.
    await store.correct(credentialId, undefined, { limit: 10, remaining: 10, resetMs: 600_000 });
    const first = await store.take(credentialId, undefined);
    expect(first.allowed).toBe(true);
    const slot = Number(await say(ports[0]!, 'CLUSTER', 'KEYSLOT', `{${credentialId}}`));

    const { from, to } = await moveSlot(slot);
    expect(to).not.toBe(from);
    await flushScripts(redis.admin());

    // The old master answers MOVED; the give-back runs on the new one, on the keys MIGRATE moved:
    // what the lease did not spend comes back, the call it spent stays spent.
    await shared.close();
    // Asked of the new master itself (a node that does not own the slot answers MOVED).
    const tokens = await say(to, 'HGET', `${prefix}:bucket:{${credentialId}}`, 'tokens');
    expect(Math.floor(Number(tokens))).toBe(9);
    expect(await say(to, 'HLEN', `${prefix}:leases:{${credentialId}}`)).toBe('0');
  });
});
