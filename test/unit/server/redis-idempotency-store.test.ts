/**
 * The Redis idempotency store across an outage, on the real Redis: two stores (two replicas), each
 * over a connection that its own switch makes unusable, as a lost Redis is to the store — while the
 * data in Redis stays, as through a network partition or a failover that kept it. Keys are claimed
 * in Redis only; what a request claimed there has to tell Redis when it ends is kept until Redis
 * answers. The version with real kills and gateways is
 * test/integration/server/idempotency-redis-outage.test.ts.
 */
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type {
  DoneRecord,
  IdempotencyStore,
  PendingRecord,
} from '../../../src/server/idempotency/idempotency-store.ts';
import { createRedisIdempotencyStore } from '../../../src/server/idempotency/redis-idempotency-store.ts';
import type { RedisConnection } from '../../../src/redis/redis-connection.ts';
import { testPrefix, testRedisAvailable, useTestRedis } from '../../support/redis.ts';

const logger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const LOCK_MS = 60_000;
const TTL_MS = 600_000;

const pending = (owner: string): PendingRecord => ({ state: 'pending', fingerprint: 'f', owner });
const done = (answer: string, at: number): DoneRecord => ({
  state: 'done',
  fingerprint: 'f',
  status: 200,
  result: { data: { answer } },
  at,
});

/** A replica's store, and the switch that makes Redis unreachable to it. */
interface Replica {
  readonly store: IdempotencyStore;
  reachable: boolean;
}

describe.skipIf(!testRedisAvailable)('idempotency keys while Redis is unreachable', () => {
  const prefix = testPrefix('idem-store');
  const redis = useTestRedis(prefix);
  let made = 0;
  let shared = '';
  /** Two stores sharing a fresh prefix: two replicas, each with its own switch. */
  const replicas = (): [Replica, Replica] => {
    shared = `${prefix}:${(made += 1)}`;
    const make = (): Replica => {
      const replica = { reachable: true };
      const connection: RedisConnection = {
        ...redis.connection(),
        usable: async () => replica.reachable && (await redis.connection().usable()),
      };
      return Object.assign(replica, {
        store: createRedisIdempotencyStore({ connection, prefix: shared, logger }),
      });
    };
    return [make(), make()];
  };
  const claim = (replica: Replica, owner: string) =>
    replica.store.claim('k', pending(owner), LOCK_MS);
  const answerOf = async (replica: Replica) => {
    const held = await claim(replica, 'retry');
    return held?.state === 'done' ? held.result : held;
  };
  const close = (...all: Replica[]) => all.forEach((replica) => replica.store.close());

  it('claims a key nowhere while Redis is unreachable, and the key is free once Redis answers', async () => {
    const [a, b] = replicas();
    a.reachable = false;
    b.reachable = false;
    // Before: each replica claimed the key in its own memory, and both ran the write.
    await expect(claim(a, 'one')).rejects.toThrow(/unreachable/);
    await expect(claim(b, 'two')).rejects.toThrow(/unreachable/);
    a.reachable = true;
    b.reachable = true;
    expect(await claim(a, 'three')).toBeUndefined();
    expect(await claim(b, 'four')).toMatchObject({ state: 'pending', owner: 'three' });
    close(a, b);
  });

  it('keeps the answer of a request that finished while Redis was unreachable, replays it there, and writes it to Redis when Redis answers', async () => {
    const [a, b] = replicas();
    expect(await claim(a, 'one')).toBeUndefined();
    a.reachable = false;
    b.reachable = false;
    await a.store.complete('k', 'one', done('only', 1_000), TTL_MS);
    expect(await answerOf(a)).toEqual({ data: { answer: 'only' } });
    await expect(claim(b, 'two')).rejects.toThrow(/unreachable/);
    a.reachable = true;
    b.reachable = true;
    // Nothing asks A for the key: its background pass writes the answer to Redis, where B reads it.
    // Before that B sees A's pending record and waits, as a duplicate does.
    await expect.poll(() => answerOf(b)).toEqual({ data: { answer: 'only' } });
    close(a, b);
  });

  it('frees, once Redis answers, a key whose request wrote nothing while Redis was unreachable', async () => {
    const [a, b] = replicas();
    expect(await claim(a, 'one')).toBeUndefined();
    a.reachable = false;
    await a.store.release('k', 'one');
    expect(await claim(b, 'two')).toMatchObject({ state: 'pending', owner: 'one' });
    a.reachable = true;
    // Without the release kept for Redis, B would find the key held until its lock expired.
    await expect.poll(() => claim(b, 'three')).toBeUndefined();
    close(a, b);
  });

  it('keeps the earlier answer when Redis lost the key of a request still running and another replica ran it', async () => {
    for (const aFirst of [true, false]) {
      const [a, b] = replicas();
      expect(await claim(a, 'one')).toBeUndefined();
      a.reachable = false;
      await a.store.complete('k', 'one', done('by A', aFirst ? 1_000 : 2_000), TTL_MS);
      // Redis loses the pending record (a restart without its data): B claims the key and runs it.
      await redis.admin().del(`${shared}:idempotency:k`);
      expect(await claim(b, 'two')).toBeUndefined();
      await b.store.complete('k', 'two', done('by B', aFirst ? 2_000 : 1_000), TTL_MS);
      a.reachable = true;
      const earlier = { data: { answer: aFirst ? 'by A' : 'by B' } };
      expect(await answerOf(a)).toEqual(earlier);
      expect(await answerOf(b)).toEqual(earlier);
      close(a, b);
    }
  });
});
