/**
 * Publish/subscribe on the gateway's Redis connection, between two connections as two replicas hold
 * them: on one Redis, and (the `cluster` project) on a Redis Cluster, where it is classic pub/sub
 * carried to every node (docs/redis.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisConnection } from '../../../src/upstream/redis-connection.ts';
import { until } from '../../support/clock.ts';
import { openTestConnection, testPrefix, testRedisAvailable } from '../../support/redis.ts';

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
