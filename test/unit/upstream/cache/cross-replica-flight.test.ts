/**
 * One fetch across replicas, on real Redis: each "replica" is its own gateway connection (its own
 * subscriber), the shared cache is a map. The leader's fetch is held by the test, so the order of
 * claim, wait and answer is the test's, not the scheduler's.
 */
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createCrossReplicaFlight,
  type CrossReplicaFlight,
  type FlightRequest,
} from '../../../../src/upstream/cache/cross-replica-flight.ts';
import {
  createRedisConnection,
  type RedisConnection,
} from '../../../../src/redis/redis-connection.ts';
import { deferred, until } from '../../../support/clock.ts';
import {
  DEAD_REDIS_URL,
  keysUnder,
  openTestConnection,
  testPrefix,
  testRedisAvailable,
  useTestRedis,
} from '../../../support/redis.ts';

const CREDENTIAL = 'c0ffee00c0ffee00c0ffee00c0ffee00';

describe.skipIf(!testRedisAvailable)('cross-replica flight', () => {
  const prefix = testPrefix('flight');
  const redis = useTestRedis(prefix);
  const opened: Array<{ flight: CrossReplicaFlight; connection: RedisConnection }> = [];
  afterAll(async () => {
    for (const { flight, connection } of opened) {
      await flight.close();
      await connection.close();
    }
  });

  /** A replica: its own connection and flight, listening before it is handed out. */
  async function replica(leaseMs = 2_000): Promise<CrossReplicaFlight> {
    const connection = await openTestConnection();
    const flight = createCrossReplicaFlight({ redis: connection, prefix, leaseMs });
    opened.push({ flight, connection });
    await until(() => flight.listening, 'the flight channel subscribed');
    return flight;
  }

  let keys = 0;
  /** A fresh key, its shared "cache", and a fetch that counts its calls. */
  function flightFor(answer = 'the answer') {
    keys += 1;
    const key = `${CREDENTIAL}:app:digest${keys}`;
    const shared = new Map<string, string>();
    const calls: number[] = [];
    const request = (
      fetch: (deadlineMs: number) => Promise<{ value: string; stored: boolean }> = async () => {
        shared.set(key, answer);
        return { value: answer, stored: true };
      },
      deadlineMs = 10_000,
    ): FlightRequest<string> => ({
      credentialId: CREDENTIAL,
      key,
      deadlineMs,
      fetch: (ms) => {
        calls.push(ms);
        return fetch(ms);
      },
      reread: async () => shared.get(key),
    });
    return { key, shared, calls, request };
  }

  it('makes one fetch for three replicas; the other two read its stored answer', async () => {
    const [a, b, c] = await Promise.all([replica(), replica(), replica()]);
    const { request, calls, shared, key } = flightFor();
    const release = deferred();
    const leading = a!.run(
      request(async () => {
        await release.promise;
        shared.set(key, 'the answer');
        return { value: 'the answer', stored: true };
      }),
    );
    await until(() => calls.length === 1, 'the leader fetching');
    const joined = [b!.run(request()), c!.run(request())];
    await until(() => b!.waiting === 1 && c!.waiting === 1, 'both others waiting');
    release.resolve();
    const results = await Promise.all([leading, ...joined]);
    expect(calls).toHaveLength(1);
    expect(results.map((r) => [r.value, r.fromPeer])).toEqual([
      ['the answer', false],
      ['the answer', true],
      ['the answer', true],
    ]);
    // The lease is keyed by the credential's hash tag and says only how the flight ended.
    const leases = await keysUnder(redis.admin(), `${prefix}:flight`);
    expect(leases).toContain(`${prefix}:flight:{${CREDENTIAL}}:${key}`);
    expect(await redis.admin().get(`${prefix}:flight:{${CREDENTIAL}}:${key}`)).toBe('done:stored');
  });

  it('answers a replica that asks just after the leader finished from the cache, without waiting', async () => {
    const [a, b] = await Promise.all([replica(60_000), replica(60_000)]);
    const { request, calls } = flightFor();
    await a!.run(request());
    const started = performance.now();
    const late = await b!.run(request());
    expect(late).toEqual({ value: 'the answer', fromPeer: true });
    expect(calls).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(1_000); // not the 60 s lease
  });

  it('keeps the lease while a slow leader fetches: the others wait past several leases, then read', async () => {
    const LEASE = 150;
    const [a, b] = await Promise.all([replica(LEASE), replica(LEASE)]);
    const { request, calls, shared, key } = flightFor();
    const release = deferred();
    const leading = a!.run(
      request(async () => {
        await release.promise;
        shared.set(key, 'slow answer');
        return { value: 'slow answer', stored: true };
      }),
    );
    await until(() => calls.length === 1, 'the leader fetching');
    const waitedFrom = performance.now();
    const joined = b!.run(request());
    // Four leases pass while the leader still fetches: its renewals keep the other one waiting.
    await until(() => performance.now() - waitedFrom > 4 * LEASE, 'four leases');
    expect(calls).toHaveLength(1);
    release.resolve();
    expect((await joined).value).toBe('slow answer');
    expect((await leading).value).toBe('slow answer');
    expect(calls).toHaveLength(1);
  });

  it('fetches after the lease lapses when the leader died without a word, within the deadline', async () => {
    const LEASE = 300;
    const b = await replica(LEASE);
    const { request, calls, key } = flightFor();
    // A replica that took the lease and died: nobody renews it, nobody publishes.
    await redis.admin().set(`${prefix}:flight:{${CREDENTIAL}}:${key}`, 'dead-replica', {
      expiration: { type: 'PX', value: LEASE },
    });
    const started = performance.now();
    const result = await b.run(request(undefined, 5_000));
    const waited = performance.now() - started;
    expect(result).toEqual({ value: 'the answer', fromPeer: false });
    expect(calls).toHaveLength(1);
    expect(waited).toBeGreaterThanOrEqual(LEASE - 20);
    expect(waited).toBeLessThan(2_500); // at most half the 5 s deadline
  });

  it('stops waiting at half the deadline and fetches with what is left of it', async () => {
    const b = await replica(60_000);
    const { request, calls, key } = flightFor();
    // A holder that keeps renewing longer than the caller can wait.
    await redis.admin().set(`${prefix}:flight:{${CREDENTIAL}}:${key}`, 'stuck-replica', {
      expiration: { type: 'PX', value: 60_000 },
    });
    const started = performance.now();
    const result = await b.run(request(undefined, 600));
    const took = performance.now() - started;
    expect(result.fromPeer).toBe(false);
    expect(calls).toHaveLength(1);
    expect(calls[0]!).toBeLessThanOrEqual(310);
    expect(calls[0]!).toBeGreaterThan(0);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(600);
  });

  for (const [what, outcome] of [
    ['failed', () => Promise.reject(new Error('upstream 503'))],
    ['not cacheable', async () => ({ value: 'uncacheable', stored: false })],
  ] as const) {
    it(`lets the others fetch for themselves at once when the leader's answer was ${what}`, async () => {
      const [a, b] = await Promise.all([replica(60_000), replica(60_000)]);
      const { request, calls } = flightFor('own answer');
      const release = deferred();
      const leading = a!.run(
        request(async () => {
          await release.promise;
          return outcome();
        }),
      );
      await until(() => calls.length === 1, 'the leader fetching');
      const started = performance.now();
      const joined = b!.run(request());
      await until(() => b!.waiting === 1, 'the other waiting');
      release.resolve();
      await leading.catch(() => undefined);
      expect(await joined).toEqual({ value: 'own answer', fromPeer: false });
      expect(calls).toHaveLength(2);
      expect(performance.now() - started).toBeLessThan(5_000); // not the 60 s lease
    });
  }
});

describe('cross-replica flight without Redis', () => {
  it('fetches at once, alone, when Redis is unreachable', async () => {
    const connection = createRedisConnection({
      url: DEAD_REDIS_URL,
      connectTimeoutMs: 200,
      commandTimeoutMs: 100,
      logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
    });
    const flight = createCrossReplicaFlight({
      redis: connection,
      prefix: testPrefix('dead'),
      leaseMs: 2_000,
    });
    try {
      let calls = 0;
      const started = performance.now();
      const result = await flight.run({
        credentialId: CREDENTIAL,
        key: `${CREDENTIAL}:app:x`,
        deadlineMs: 10_000,
        fetch: async () => {
          calls += 1;
          return { value: 'fetched', stored: true };
        },
        reread: async () => undefined,
      });
      expect(result).toEqual({ value: 'fetched', fromPeer: false });
      expect(calls).toBe(1);
      expect(flight.listening).toBe(false);
      expect(performance.now() - started).toBeLessThan(100);
    } finally {
      await flight.close();
      await connection.close();
    }
  });
});
