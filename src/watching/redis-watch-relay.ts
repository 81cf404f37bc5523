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
 * ids) keeps ids out of key names (`redis-keys.ts`). The lease is the Redis room's
 * (`redis-lease.ts`): claim-or-renew and release-if-mine.
 */
import type { WatchAddress, WatchRelay } from './watch-relay.ts';
import type { RedisConnection } from '../redis/redis-connection.ts';
import { redisKeys, watchDigest } from '../redis/redis-keys.ts';
import { claimOrRenewLease, releaseLeaseIfMine } from '../redis/redis-lease.ts';

export interface RedisWatchRelayOptions {
  readonly connection: RedisConnection;
  /** REDIS_KEY_PREFIX. */
  readonly prefix: string;
}

export function createRedisWatchRelay(options: RedisWatchRelayOptions): WatchRelay {
  const { connection, prefix } = options;
  const { client } = connection;
  const leaseKey = (watch: WatchAddress) =>
    redisKeys.watchLease(prefix, watch.credentialId, watchDigest(watch.key));
  const latestKey = (watch: WatchAddress) =>
    redisKeys.watchLatest(prefix, watch.credentialId, watchDigest(watch.key));
  const channel = (watch: WatchAddress) =>
    redisKeys.watchEvents(prefix, watch.credentialId, watchDigest(watch.key));

  return {
    usable: () => connection.usable(),
    claim: (watch, holder, ttlMs) => claimOrRenewLease(client, leaseKey(watch), holder, ttlMs),
    release: (watch, holder) => releaseLeaseIfMine(client, leaseKey(watch), holder),
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
