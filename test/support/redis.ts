/**
 * Real Redis for the tests where Redis is the subject (REDIS_URL, default redis://127.0.0.1:6379).
 * A missing Redis fails the files that need it, saying how to start one; only
 * `WEFT_TEST_WITHOUT=redis` skips them (never with CI=true), and the run's summary counts them
 * (`requirements.ts`). Every test uses its own key prefix and deletes its keys afterwards.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  createRedisConnection,
  type RedisConnection,
} from '../../src/upstream/redis-connection.ts';
import { decide, optedOut } from './requirements.ts';

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
 * Whether the Redis tests run: true when Redis answers; false (skip) only with
 * `WEFT_TEST_WITHOUT=redis`; otherwise a missing Redis throws, saying how to start one.
 */
export async function redisForTests(): Promise<boolean> {
  const up = optedOut(process.env).has('redis') ? false : await redisAnswers();
  return decide('redis', up, process.env, `nothing answers at ${REDIS_URL}`) === 'run';
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

/** Every key and value under a prefix (SCAN, never KEYS), then deletes them: for "no secret in Redis". */
export async function drainKeys(prefix: string): Promise<Array<{ key: string; value: string }>> {
  const client = await connectTestRedis();
  try {
    const found: Array<{ key: string; value: string }> = [];
    for (const key of await keysUnder(client, prefix)) {
      const type = await client.type(key);
      const value =
        type === 'string'
          ? ((await client.get(key)) ?? '')
          : type === 'hash'
            ? JSON.stringify(await client.hGetAll(key))
            : type === 'zset'
              ? JSON.stringify(await client.zRange(key, 0, -1))
              : `(${type})`;
      found.push({ key, value });
    }
    if (found.length > 0) await client.del(found.map((entry) => entry.key));
    return found;
  } finally {
    await client.close();
  }
}

/** A gateway connection to the test Redis (as the upstream stack opens it), once it is usable. */
export async function openTestConnection(): Promise<RedisConnection> {
  const connection = createRedisConnection({
    url: REDIS_URL,
    connectTimeoutMs: 1_000,
    commandTimeoutMs: 500,
    logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
  });
  expect(await connection.usable()).toBe(true);
  return connection;
}

/**
 * For a describe block on real Redis: opens a gateway connection (as the upstream stack does) and an
 * admin client before the tests, and deletes everything under `prefix` after them.
 */
export function useTestRedis(prefix: string): {
  connection: () => RedisConnection;
  admin: () => TestRedis;
} {
  let connection: RedisConnection | undefined;
  let admin: TestRedis | undefined;
  beforeAll(async () => {
    connection = await openTestConnection();
    admin = await connectTestRedis();
  });
  afterAll(async () => {
    if (admin) {
      await deleteUnder(admin, prefix);
      await admin.close();
    }
    await connection?.close();
  });
  return { connection: () => connection!, admin: () => admin! };
}
