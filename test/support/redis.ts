/**
 * Real Redis for the tests where Redis is the subject (REDIS_URL, default redis://127.0.0.1:6379).
 * Locally a missing Redis skips those tests; with CI=true it fails them, so CI cannot go green
 * without having run them. Every test uses its own key prefix and deletes its keys afterwards.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export type TestRedis = ReturnType<typeof createClient>;

/** A port nothing listens on (for "Redis is down" tests). */
export const DEAD_REDIS_URL = 'redis://127.0.0.1:1';

/** Whether Redis answers at REDIS_URL (half a second to connect). */
export async function redisAnswers(): Promise<boolean> {
  const client = createClient({
    url: REDIS_URL,
    socket: { connectTimeout: 500, reconnectStrategy: false },
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/**
 * Whether the Redis tests run: true when Redis answers; false (skip) when it does not, unless
 * CI=true, where a missing Redis throws.
 */
export async function redisForTests(): Promise<boolean> {
  const up = await redisAnswers();
  if (!up && process.env.CI === 'true') {
    throw new Error(`Redis is required in CI (CI=true) but does not answer at ${REDIS_URL}`);
  }
  return up;
}

export const testRedisAvailable = await redisForTests();

/** A fresh key prefix (`REDIS_KEY_PREFIX`) for one test file. */
export const testPrefix = (name: string): string =>
  `wt-${name}-${randomBytes(4).toString('hex')}`.slice(0, 32);

export async function connectTestRedis(): Promise<TestRedis> {
  const client = createClient({ url: REDIS_URL });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Every key under a prefix (SCAN, never KEYS). */
export async function keysUnder(client: TestRedis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
    keys.push(...batch);
  }
  return keys;
}

export async function deleteUnder(client: TestRedis, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  if (keys.length > 0) await client.del(keys);
}
