/**
 * The Redis idempotency store across an outage, on the real Redis: two stores (two replicas) over
 * connections that a switch makes unusable, as a lost Redis is to the store (it then keeps records
 * in memory). What each store holds and answers is read after the switch is back on, in an order
 * the test sets. The throwaway-Redis version with real kills and gateways is
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
import type { RedisConnection } from '../../../src/upstream/redis-connection.ts';
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

describe.skipIf(!testRedisAvailable)('idempotency records kept while Redis was unreachable', () => {
  const prefix = testPrefix('idem-store');
  const redis = useTestRedis(prefix);
  let reachable = true;
  /** The real connection, unusable while `reachable` is false (the store then uses its memory). */
  const switched = (): RedisConnection => ({
    ...redis.connection(),
    usable: async () => reachable && (await redis.connection().usable()),
  });
  let made = 0;
  /** Two stores sharing a fresh prefix: two replicas. */
  const replicas = (): [IdempotencyStore, IdempotencyStore] => {
    const shared = `${prefix}:${(made += 1)}`;
    const make = () =>
      createRedisIdempotencyStore({ connection: switched(), prefix: shared, logger });
    return [make(), make()];
  };
  /** Runs one request's claim and completion on `store`; the claim must be free. */
  const run = async (store: IdempotencyStore, key: string, record: DoneRecord) => {
    const owner = `owner-${record.at}`;
    expect(await store.claim(key, pending(owner), LOCK_MS)).toBeUndefined();
    await store.complete(key, owner, record, TTL_MS);
  };
  const answerOf = async (store: IdempotencyStore, key: string) => {
    const held = await store.claim(key, pending('retry'), LOCK_MS);
    return held?.state === 'done' ? held.result : held;
  };

  it('replays, after Redis answers again, the answer it kept in memory, and another replica replays it too', async () => {
    const [a, b] = replicas();
    reachable = false;
    await run(a, 'k', done('first', 1_000));
    reachable = true;
    // Before: A claimed the key again in Redis, which had never seen it: the mutation ran twice.
    expect(await answerOf(a, 'k')).toEqual({ data: { answer: 'first' } });
    expect(await answerOf(b, 'k')).toEqual({ data: { answer: 'first' } });
    a.close();
    b.close();
  });

  it('keeps the earlier answer of a key both replicas ran while Redis was unreachable, whichever writes it back first', async () => {
    for (const laterFirst of [true, false]) {
      const [a, b] = replicas();
      reachable = false;
      await run(a, 'k', done('earlier', 1_000));
      await run(b, 'k', done('later', 2_000));
      reachable = true;
      const order = laterFirst ? [b, a, b] : [a, b, a];
      // The first to be asked writes its own answer back and replays it; from the earlier answer's
      // write-back on, every replica replays the earlier answer.
      const answers = [];
      for (const store of order) answers.push(await answerOf(store, 'k'));
      expect(answers.slice(1)).toEqual([
        { data: { answer: 'earlier' } },
        { data: { answer: 'earlier' } },
      ]);
      a.close();
      b.close();
    }
  });

  it('completes in memory a claim made there, and writes it to Redis when Redis is back by then', async () => {
    const [a, b] = replicas();
    reachable = false;
    expect(await a.claim('k', pending('one'), LOCK_MS)).toBeUndefined();
    reachable = true;
    // The request ends after Redis came back: a duplicate on A still waits for it meanwhile.
    expect(await a.claim('k', pending('two'), LOCK_MS)).toMatchObject({ state: 'pending' });
    await a.complete('k', 'one', done('only', 1_000), TTL_MS);
    expect(await answerOf(b, 'k')).toEqual({ data: { answer: 'only' } });
    a.close();
    b.close();
  });

  it('frees a key claimed in memory when its request wrote nothing, after Redis is back too', async () => {
    const [a, b] = replicas();
    reachable = false;
    expect(await a.claim('k', pending('one'), LOCK_MS)).toBeUndefined();
    reachable = true;
    await a.release('k', 'one');
    expect(await a.claim('k', pending('two'), LOCK_MS)).toBeUndefined();
    await a.release('k', 'two');
    expect(await b.claim('k', pending('three'), LOCK_MS)).toBeUndefined();
    a.close();
    b.close();
  });
});
