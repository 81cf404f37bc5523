/**
 * A lease in Redis: one key whose value names its holder until its TTL passes, so that of the
 * replicas sharing Redis one at a time does a thing — fetches a missed cache entry for the others
 * (the cross-replica flight), runs a keyed mutation (idempotency), polls a watched resource (the
 * watch relay). A holder that dies stops renewing, and its lease passes to whoever claims next.
 *
 * Every command touches the lease's key alone, so a lease works on a Redis Cluster whatever its
 * key; a lease about one credential carries the credential's hash tag (`redis-keys.ts`) to sit in
 * its slot. The compare-and-renew and compare-and-delete are one-key scripts sent whole (`EVAL`),
 * so no node can lack them. The key names no token or request value: the caller builds it from
 * `redis-keys.ts`; the holder is a replica's random name or a record the caller owns.
 */
import type { RedisClient } from './redis-connection.ts';

/** KEYS[1] the lease; ARGV: the holder, the TTL (ms). Takes a free lease or renews one's own. */
const CLAIM_OR_RENEW = `
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

/** KEYS[1] the lease; ARGV: the holder, the TTL (ms). Renews the lease only if it is the holder's. */
const RENEW_IF_MINE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

/** KEYS[1] the lease; ARGV[1] the holder. Deletes the lease only if it is still the holder's. */
const RELEASE_IF_MINE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** A TTL as Redis takes it: whole milliseconds, at least one. */
const ttlArgument = (ttlMs: number): string => String(Math.max(1, Math.round(ttlMs)));

/** Runs one of the scripts above on the lease for this holder: whether it held or took it. */
async function asHolder(
  client: RedisClient,
  script: string,
  key: string,
  holder: string,
  ttlMs?: number,
): Promise<boolean> {
  const args = ttlMs === undefined ? [holder] : [holder, ttlArgument(ttlMs)];
  return (await client.eval(script, { keys: [key], arguments: args })) === 1;
}

/** `SET` options that take the lease only if nobody holds it. */
const ifFree = (ttlMs: number) =>
  ({ condition: 'NX', expiration: { type: 'PX', value: ttlMs } }) as const;

/** Takes the lease if nobody holds it (`SET NX PX`): whether this holder now holds it. */
export async function claimLease(
  client: RedisClient,
  key: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  return (await client.set(key, holder, ifFree(ttlMs))) === 'OK';
}

/**
 * Takes the lease if nobody holds it, in one round trip (`SET NX PX GET`): null when this holder
 * now holds it, else what the lease holds — another holder, or a marker one left
 * ({@link markLease}).
 */
export async function claimLeaseOrReadHolder(
  client: RedisClient,
  key: string,
  holder: string,
  ttlMs: number,
): Promise<string | null> {
  return (await client.set(key, holder, { ...ifFree(ttlMs), GET: true })) as string | null;
}

/** Takes a free lease or renews this holder's own: whether this holder holds it now. */
export const claimOrRenewLease = (
  client: RedisClient,
  key: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> => asHolder(client, CLAIM_OR_RENEW, key, holder, ttlMs);

/** Renews the lease if this holder still holds it: whether it did. */
export const renewLeaseIfMine = (
  client: RedisClient,
  key: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> => asHolder(client, RENEW_IF_MINE, key, holder, ttlMs);

/**
 * Renews the lease whoever holds it (`PEXPIRE`): for a holder whose lease nobody else can take
 * while it renews, one command without a script.
 */
export async function renewLease(client: RedisClient, key: string, ttlMs: number): Promise<void> {
  await client.pExpire(key, ttlMs);
}

/** Gives the lease up if this holder still holds it: whether it did. */
export const releaseLeaseIfMine = (
  client: RedisClient,
  key: string,
  holder: string,
): Promise<boolean> => asHolder(client, RELEASE_IF_MINE, key, holder);

/**
 * Replaces the lease by a marker for `ttlMs`: who claims meanwhile reads it as the holder
 * ({@link claimLeaseOrReadHolder}) and learns how the last holder's turn ended.
 */
export async function markLease(
  client: RedisClient,
  key: string,
  marker: string,
  ttlMs: number,
): Promise<void> {
  await client.set(key, marker, { expiration: { type: 'PX', value: ttlMs } });
}
