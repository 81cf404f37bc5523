/**
 * The replays one credential holds: storing one more than RESPONSE_CACHE_MAX_PER_CREDENTIAL forgets
 * its oldest (in the order stored), in memory and in Redis alike, and storing never stops.
 */
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  createHeldReplays,
  type HeldReplays,
} from '../../../src/server/response-cache/held-replays.ts';
import type { RedisConnection } from '../../../src/redis/redis-connection.ts';
import {
  keysUnder,
  testPrefix,
  testRedisAvailable,
  useTestRedis,
  describeWithoutRedis,
} from '../../support/redis.ts';

const logger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const MINUTE = 60_000;

/** The same behaviour, whichever store keeps the order. */
function holdsInStoreOrder(make: (max: number) => HeldReplays) {
  it('forgets the oldest once one more than the bound is stored, and never refuses to store', async () => {
    const held = make(2);
    expect(await held.hold('cred-a', 'k1', MINUTE)).toEqual([]);
    expect(await held.hold('cred-a', 'k2', MINUTE)).toEqual([]);
    expect(await held.hold('cred-a', 'k3', MINUTE)).toEqual(['k1']);
    for (let n = 4; n < 50; n += 1) {
      expect(await held.hold('cred-a', `k${n}`, MINUTE)).toEqual([`k${n - 2}`]);
    }
  });

  it('moves a key stored again to the end of the order', async () => {
    const held = make(2);
    await held.hold('cred-b', 'dashboard', MINUTE);
    await held.hold('cred-b', 'search-1', MINUTE);
    expect(await held.hold('cred-b', 'dashboard', MINUTE)).toEqual([]);
    expect(await held.hold('cred-b', 'search-2', MINUTE)).toEqual(['search-1']);
  });

  it('counts each credential on its own', async () => {
    const held = make(1);
    expect(await held.hold('cred-c', 'k1', MINUTE)).toEqual([]);
    expect(await held.hold('cred-d', 'k1', MINUTE)).toEqual([]);
    expect(await held.hold('cred-c', 'k2', MINUTE)).toEqual(['k1']);
  });
}

describeWithoutRedis('held replays in memory', () => {
  holdsInStoreOrder((max) =>
    createHeldReplays({ max, redis: undefined, prefix: 'unused', logger }),
  );
});

describeWithoutRedis(
  'held replays in memory, for a bound past the room kept for all credentials',
  () => {
    it("still keeps the one credential's whole list", async () => {
      const max = 200_001;
      const held = createHeldReplays({ max, redis: undefined, prefix: 'unused', logger });
      for (let n = 0; n < max; n += 1) await held.hold('cred-big', `k${n}`, MINUTE);
      expect(await held.hold('cred-big', 'one-more', MINUTE)).toEqual(['k0']);
    });
  },
);

describe('held replays when Redis is down', () => {
  const down = {
    client: {},
    usable: async () => false,
  } as unknown as RedisConnection;
  holdsInStoreOrder((max) => createHeldReplays({ max, redis: down, prefix: 'unused', logger }));
});

describe.skipIf(!testRedisAvailable)('held replays in Redis', () => {
  const prefix = testPrefix('held');
  const redis = useTestRedis(prefix);
  let made = 0;
  // A fresh prefix per case: the cases reuse credential names.
  holdsInStoreOrder((max) =>
    createHeldReplays({
      max,
      redis: redis.connection(),
      prefix: `${prefix}:${(made += 1)}`,
      logger,
    }),
  );

  it('is shared by replicas, and lives as long as its longest-lived replay', async () => {
    const replica = () =>
      createHeldReplays({ max: 2, redis: redis.connection(), prefix: `${prefix}:shared`, logger });
    const [one, two] = [replica(), replica()];
    await one.hold('cred-e', 'long', 10 * MINUTE);
    await two.hold('cred-e', 'short', 1_000);
    expect(await one.hold('cred-e', 'third', 1_000)).toEqual(['long']);
    const [key] = await keysUnder(redis.admin(), `${prefix}:shared`);
    expect(key).toBe(`${prefix}:shared:replays:{cred-e}`);
    expect(await redis.admin().pTTL(key!)).toBeGreaterThan(9 * MINUTE);
  });
});
