/**
 * Redis for the production tests. Without Redis the Redis tests are skipped locally, but with
 * CI=true they run and fail: CI promises Redis (`.ci/run` starts it), so its absence is a failure.
 */
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { createClient } from 'redis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether Redis accepts a TCP connection within half a second. */
export async function redisReachable(url = REDIS_URL): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** True when the Redis tests must be skipped: no Redis, and not in CI. */
export const skipWithoutRedis = !(await redisReachable()) && process.env.CI !== 'true';

/** A key prefix of its own for one test file, so runs never see each other's keys. */
export const testKeyPrefix = (name: string): string =>
  `wt-${name}-${randomBytes(4).toString('hex')}`.slice(0, 32);

/** Every key and value under a prefix (SCAN, never KEYS), then deletes them. */
export async function drainKeys(prefix: string): Promise<Array<{ key: string; value: string }>> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    const found: Array<{ key: string; value: string }> = [];
    for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
      for (const key of keys) {
        const type = await client.type(key);
        const value =
          type === 'string'
            ? ((await client.get(key)) ?? '')
            : type === 'hash'
              ? JSON.stringify(await client.hGetAll(key))
              : `(${type})`;
        found.push({ key, value });
      }
    }
    if (found.length > 0) await client.del(found.map((entry) => entry.key));
    return found;
  } finally {
    await client.close();
  }
}
