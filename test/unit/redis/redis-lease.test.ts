/** A lease in Redis, held by one replica at a time: claimed, renewed and released by its holder only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisConnection } from '../../../src/redis/redis-connection.ts';
import { hashTag } from '../../../src/redis/redis-keys.ts';
import {
  claimLease,
  claimLeaseOrReadHolder,
  claimOrRenewLease,
  markLease,
  releaseLeaseIfMine,
  renewLease,
  renewLeaseIfMine,
} from '../../../src/redis/redis-lease.ts';
import { openTestConnection, testPrefix, testRedisAvailable } from '../../support/redis.ts';

describe.skipIf(!testRedisAvailable)('a lease in Redis', () => {
  const prefix = testPrefix('lease');
  let redis: RedisConnection;
  let count = 0;
  /** A fresh lease key, under a credential's hash tag as the product's are. */
  const leaseKey = () => `${prefix}:lease:${hashTag('cred-a')}:${(count += 1)}`;
  beforeAll(async () => {
    redis = await openTestConnection();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('goes to the first claimer only; the others read its holder', async () => {
    const key = leaseKey();
    expect(await claimLeaseOrReadHolder(redis.client, key, 'replica-a', 5_000)).toBeNull();
    expect(await claimLeaseOrReadHolder(redis.client, key, 'replica-b', 5_000)).toBe('replica-a');
    expect(await claimLease(redis.client, key, 'replica-b', 5_000)).toBe(false);
    expect(await claimLease(redis.client, leaseKey(), 'replica-b', 5_000)).toBe(true);
  });

  it('is renewed and released by its holder, not by another', async () => {
    const key = leaseKey();
    expect(await claimOrRenewLease(redis.client, key, 'replica-a', 200)).toBe(true);
    expect(await claimOrRenewLease(redis.client, key, 'replica-b', 200)).toBe(false);
    expect(await claimOrRenewLease(redis.client, key, 'replica-a', 5_000)).toBe(true);
    expect(await redis.client.pTTL(key)).toBeGreaterThan(200);
    expect(await renewLeaseIfMine(redis.client, key, 'replica-b', 60_000)).toBe(false);
    expect(await redis.client.pTTL(key)).toBeLessThanOrEqual(5_000);
    expect(await renewLeaseIfMine(redis.client, key, 'replica-a', 60_000)).toBe(true);
    expect(await redis.client.pTTL(key)).toBeGreaterThan(5_000);
    expect(await releaseLeaseIfMine(redis.client, key, 'replica-b')).toBe(false);
    expect(await releaseLeaseIfMine(redis.client, key, 'replica-a')).toBe(true);
    expect(await redis.client.get(key)).toBeNull();
  });

  it('passes to the next claimer once its holder stops renewing it', async () => {
    const key = leaseKey();
    expect(await claimLease(redis.client, key, 'replica-a', 50)).toBe(true);
    await renewLease(redis.client, key, 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await claimOrRenewLease(redis.client, key, 'replica-b', 5_000)).toBe(true);
  });

  it('left as a marker, is read by the next claimer as its holder', async () => {
    const key = leaseKey();
    expect(await claimLeaseOrReadHolder(redis.client, key, 'replica-a', 5_000)).toBeNull();
    await markLease(redis.client, key, 'done:stored', 5_000);
    expect(await claimLeaseOrReadHolder(redis.client, key, 'replica-b', 5_000)).toBe('done:stored');
  });
});
