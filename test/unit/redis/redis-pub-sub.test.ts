/**
 * Publish/subscribe on the gateway's Redis connection, between two connections as two replicas hold
 * them: on one Redis, and (the `cluster` project) on a Redis Cluster, where it is classic pub/sub
 * carried to every node (node-redis moves it off a lost node; it drops sharded ones).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisConnection } from '../../../src/redis/redis-connection.ts';
import { until } from '../../support/clock.ts';
import {
  DEAD_REDIS_URL,
  openTestConnection,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';

describe.skipIf(!testRedisAvailable)('publish and subscribe between replicas', () => {
  const prefix = testPrefix('pubsub');
  let publisher: RedisConnection;
  let subscriber: RedisConnection;
  beforeAll(async () => {
    [publisher, subscriber] = await Promise.all([openTestConnection(), openTestConnection()]);
  });
  afterAll(async () => {
    await Promise.all([publisher?.close(), subscriber?.close()]);
  });

  it('hears on one connection what the other publishes, on each channel its own', async () => {
    // Channels named like the keys they are about: one credential's hash tag each.
    const channels = ['{cred-a}', '{cred-b}', '{cred-c}'].map((tag) => `${prefix}:fetch:${tag}`);
    const heard = new Map<string, string[]>(channels.map((channel) => [channel, []]));
    const stops = await Promise.all(
      channels.map((channel) =>
        subscriber.subscribe(channel, (message) => heard.get(channel)!.push(message)),
      ),
    );
    await Promise.all(channels.map((channel, i) => publisher.publish(channel, `done ${i}`)));
    await until(
      () => [...heard.values()].every((messages) => messages.length === 1),
      'every channel heard its message',
    );
    expect([...heard.values()]).toEqual([['done 0'], ['done 1'], ['done 2']]);
    await Promise.all(stops.map((stop) => stop()));
  });
});

describe('a subscriber connection to a Redis that is not there', () => {
  it('never holds up closing, and closing twice is fine', async () => {
    const { createRedisConnection } = await import('../../../src/redis/redis-connection.ts');
    const pino = (await import('pino')).default;
    const connection = createRedisConnection({
      url: DEAD_REDIS_URL,
      connectTimeoutMs: 100,
      commandTimeoutMs: 100,
      logger: pino({ level: 'silent' }) as never,
    });
    expect(await connection.usable()).toBe(false);
    // Its connection cannot open: the subscribe waits or fails, but closing does not wait for it.
    const subscribing = connection.subscribe('nowhere', () => undefined).catch(() => 'failed');
    const closed = connection.close().then(() => 'closed');
    const first = await Promise.race([
      closed,
      new Promise((resolve) => setTimeout(() => resolve('still closing'), 2_000)),
    ]);
    expect(first).toBe('closed');
    await expect(connection.close()).resolves.toBeUndefined();
    expect(await subscribing).toBe('failed');
  });
});
