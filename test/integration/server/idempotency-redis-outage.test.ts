/**
 * Idempotency records across a Redis outage and an empty restart (docs/security.md "Idempotent
 * mutations", docs/replicas.md): two replicas share a throwaway Redis (killable-redis.ts) that is
 * killed and started again empty, as a Redis without persistence comes back. Writes are counted at
 * the one simulator both replicas call.
 *
 * Not rerun on the Redis Cluster: it kills its own Redis (the cluster's node loss is
 * test/e2e/upstream/cluster-failover.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createGateway, type Gateway } from '../../../src/server/create-gateway.ts';
import { createLogger } from '../../../src/server/logger.ts';
import { until } from '../../support/clock.ts';
import { createCsr } from '../../support/csr.ts';
import { startKillableRedis, type KillableRedis } from '../../support/killable-redis.ts';
import { testRedisAvailable } from '../../support/redis.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const ORDER = `mutation Order($input: OrderCertificateInput!) {
  orderCertificate(input: $input) { certificateId userErrors { code message path } } }`;
const WRITE = 'POST /v2/certificates';
const BACK_ON_REDIS = 'Redis reachable again';
const OFF_REDIS = 'Redis unreachable: using local fallbacks';
const EPOCH_LOST = 'Redis came back without its data';
const EPOCH_CHECKED = 'Redis epoch checked';

interface Replica {
  readonly logs: string[];
  order(key: string): Promise<{ status: number; replayed: boolean; body: any }>;
  /** How many of its log lines contain `text`. */
  logged(text: string): number;
  close(): Promise<void>;
}

async function startReplica(upstreamUrl: string, env: Record<string, string>): Promise<Replica> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({
    ...env,
    // debug: each epoch check says so (the warning's "once" is counted against later checks).
    LOG_LEVEL: 'debug',
    NODE_ENV: 'test',
    UPSTREAM_URL: upstreamUrl,
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const gateway: Gateway = await createGateway(config, createLogger(config, sink), upstreamUrl);
  const url = await gateway.listen();
  return {
    logs,
    async order(key) {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer demo-token',
          'idempotency-key': key,
        },
        body: JSON.stringify({
          query: ORDER,
          variables: { input: { csr, productType: 'DV_SSL', period: 1 } },
        }),
      });
      return {
        status: res.status,
        replayed: res.headers.get('idempotent-replayed') === 'true',
        body: await res.json(),
      };
    },
    logged: (text) => logs.filter((line) => line.includes(text)).length,
    close: () => gateway.close(),
  };
}

let csr: string;

describe.skipIf(!testRedisAvailable)('idempotency records across a Redis outage', () => {
  let redis: KillableRedis;
  let sim: RunningSimulator;
  let a: Replica;
  let b: Replica;
  const replicas = () => [a, b];

  beforeAll(async () => {
    csr = await createCsr('www.idempotent-outage.example.com');
    redis = await startKillableRedis();
    sim = await startSimulator({ ipLimits: false });
    const env = {
      REDIS_URL: redis.url,
      CREDENTIAL_HMAC_SECRET: 'shared-secret-of-both-replicas',
      REDIS_KEY_PREFIX: 'idem-outage',
    };
    a = await startReplica(sim.url, env);
    b = await startReplica(sim.url, env);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await sim?.close();
    await redis?.stop();
  });
  beforeEach(() => sim.reset());

  const writes = async () => (await sim.stats()).byRoute[WRITE] ?? 0;
  const records = async () => {
    const keys: string[] = [];
    for await (const batch of redis.admin.scanIterator({ MATCH: 'idem-outage:idempotency:*' })) {
      keys.push(...batch);
    }
    return keys;
  };

  /** Waits until each replica has checked the epoch `count` more times. */
  async function epochChecks(count: number): Promise<void> {
    const before = replicas().map((replica) => replica.logged(EPOCH_CHECKED));
    await until(
      () => replicas().every((replica, i) => replica.logged(EPOCH_CHECKED) >= before[i]! + count),
      `${count} more epoch checks on each replica`,
    );
  }

  /** Kills Redis and waits until both replicas know it is gone (they are on their fallbacks). */
  async function killRedis(): Promise<void> {
    const before = replicas().map((replica) => replica.logged(OFF_REDIS));
    await redis.kill();
    await until(
      () => replicas().every((replica, i) => replica.logged(OFF_REDIS) > before[i]!),
      'both replicas off Redis',
    );
  }

  /** Starts Redis again, empty, and waits until both replicas are connected to it again. */
  async function restartRedisEmpty(): Promise<void> {
    const before = replicas().map((replica) => replica.logged(BACK_ON_REDIS));
    await redis.restart();
    await until(
      () => replicas().every((replica, i) => replica.logged(BACK_ON_REDIS) > before[i]!),
      'both replicas back on Redis',
    );
  }

  it('replays, on the same replica after Redis is back, the answer it gave while Redis was down', async () => {
    await killRedis();
    const key = randomUUID();
    const first = await a.order(key);
    expect(first.body.data.orderCertificate.certificateId).toMatch(/^cert-/);
    await restartRedisEmpty();

    const retried = await a.order(key);
    // Before: the retry claimed the key in the Redis that had never seen it and wrote again.
    expect(retried.body.data).toEqual(first.body.data);
    expect(retried.replayed).toBe(true);
    expect(await writes()).toBe(1);
  });

  it('writes a record kept while Redis was down back to Redis, so another replica replays it', async () => {
    await killRedis();
    const key = randomUUID();
    const first = await a.order(key);
    await restartRedisEmpty();
    // Before: what A kept in its memory stayed there; Redis never held the key.
    await until(async () => (await records()).length === 1, 'the record written back to Redis');

    const elsewhere = await b.order(key);
    expect(elsewhere.body.data).toEqual(first.body.data);
    expect(elsewhere.replayed).toBe(true);
    expect(await writes()).toBe(1);
  });

  it('after Redis is back, replays on every replica the first answer of a key both ran while Redis was down', async () => {
    await killRedis();
    const key = randomUUID();
    const first = await a.order(key);
    // B has no way to know A's record while Redis is down: it writes too (docs/replicas.md).
    const second = await b.order(key);
    expect(second.replayed).toBe(false);
    expect(await writes()).toBe(2);
    await restartRedisEmpty();
    await until(async () => (await records()).length === 1, 'the records written back to Redis');

    for (const replica of [b, a, b]) {
      const retried = await replica.order(key);
      expect(retried.body.data).toEqual(first.body.data);
      expect(retried.replayed).toBe(true);
    }
    expect(await writes()).toBe(2);
  });

  it('warns once per replica when Redis comes back empty, and a retry of a key written before runs again', async () => {
    const key = randomUUID();
    const before = (await records()).length;
    const first = await a.order(key);
    expect((await a.order(key)).replayed).toBe(true);
    expect(await records()).toHaveLength(before + 1);
    // Each replica has read the epoch of this Redis (the restarts of the tests above warned already).
    await epochChecks(2);
    const warned = replicas().map((replica) => replica.logged(EPOCH_LOST));

    await killRedis();
    await restartRedisEmpty();
    await until(
      () => replicas().every((replica, i) => replica.logged(EPOCH_LOST) === warned[i]! + 1),
      'each replica warning that Redis lost its data',
    );
    const warning = JSON.parse(a.logs.find((line) => line.includes(EPOCH_LOST))!);
    expect(warning.level).toBe(40);
    expect(warning.msg).toMatch(/appendonly yes/);

    // What docs/redis.md says an empty restart loses: the record is gone, the retry writes again.
    const retried = await b.order(key);
    expect(retried.replayed).toBe(false);
    expect(retried.body.data).not.toEqual(first.body.data);
    expect(await writes()).toBe(2);
    // Once: the next check on each replica finds the new epoch unchanged and says nothing.
    await epochChecks(1);
    expect(replicas().map((replica) => replica.logged(EPOCH_LOST))).toEqual(
      warned.map((count) => count + 1),
    );
  });
});
