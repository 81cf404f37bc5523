/**
 * The Redis side of one poll loop per watched resource across replicas (`watch-relay.ts`,
 * `replica-roles.ts`). Per watch, under `<prefix>:watch:{<credential id>}:<digest>`:
 *
 * - `…:lease` — which poller polls (a replica id and a counter), with a TTL the holder renews;
 * - `…:latest` — the last state or error announced (JSON), for replicas that join late or missed it;
 * - the channel `…:events` — each announcement, and the holder's "released".
 *
 * The credential's HMAC id is the hash tag (`{…}`), so a credential's watches share a slot and its
 * keys stay together on a Redis Cluster; the digest (SHA-256 of the poller's key: credential, kind,
 * ids) keeps ids out of key names. Every command touches one key: the lease's compare-and-renew and
 * compare-and-delete are one-key scripts sent whole (EVAL), so no node can lack them.
 */
import { createHash } from 'node:crypto';
import type { WatchAddress, WatchRelay } from './watch-relay.ts';
import type { RedisConnection } from '../redis/redis-connection.ts';

export interface RedisWatchRelayOptions {
  readonly connection: RedisConnection;
  /** REDIS_KEY_PREFIX. */
  readonly prefix: string;
}

/** KEYS[1] the lease; ARGV: the holder, the TTL (ms). Takes a free lease or renews one's own. */
const CLAIM_LUA = `
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/** KEYS[1] the lease; ARGV[1] the holder. Deletes the lease only if it is still the holder's. */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

export function createRedisWatchRelay(options: RedisWatchRelayOptions): WatchRelay {
  const { connection, prefix } = options;
  const { client } = connection;
  const base = (watch: WatchAddress) =>
    `${prefix}:watch:{${watch.credentialId}}:${createHash('sha256').update(watch.key).digest('hex').slice(0, 32)}`;
  const leaseKey = (watch: WatchAddress) => `${base(watch)}:lease`;
  const latestKey = (watch: WatchAddress) => `${base(watch)}:latest`;
  const channel = (watch: WatchAddress) => `${base(watch)}:events`;

  return {
    usable: () => connection.usable(),
    async claim(watch, holder, ttlMs) {
      const held = await client.eval(CLAIM_LUA, {
        keys: [leaseKey(watch)],
        arguments: [holder, String(Math.max(1, Math.round(ttlMs)))],
      });
      return held === 1;
    },
    async release(watch, holder) {
      return (
        (await client.eval(RELEASE_LUA, { keys: [leaseKey(watch)], arguments: [holder] })) === 1
      );
    },
    async announce(watch, message, keepMs) {
      // Sent together, in this order, so that a release the holder sends next goes after both.
      await Promise.all([
        client.set(latestKey(watch), message, {
          expiration: { type: 'PX', value: Math.max(1, Math.round(keepMs)) },
        }),
        connection.publish(channel(watch), message),
      ]);
    },
    publish: (watch, message) => connection.publish(channel(watch), message),
    async latest(watch) {
      return (await client.get(latestKey(watch))) ?? undefined;
    },
    async forget(watch) {
      await client.del(latestKey(watch));
    },
    listen: (watch, listener) => connection.subscribe(channel(watch), listener),
  };
}
