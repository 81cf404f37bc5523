/**
 * Idempotency keys across a Redis outage and an empty restart (docs/security.md "Idempotent
 * mutations", docs/replicas.md): two replicas share a throwaway Redis (killable-redis.ts) that is
 * killed — nothing listens on its port then — and started again empty, as a Redis without
 * persistence comes back. Upstream calls are counted at the one simulator both replicas call.
 *
 * Not rerun on the Redis Cluster: it kills its own Redis (the cluster's node loss is
 * test/e2e/upstream/cluster-failover.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createGateway, type Gateway } from '../../../src/server/create-gateway.ts';
import { createLogger } from '../../../src/server/logger.ts';
import { deferred, until, type Deferred } from '../../support/clock.ts';
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
const WAITING_FOR_STORE = 'idempotency key not claimed: waiting for the store';
/**
 * How long a keyed mutation waits for Redis before it is refused: past the replicas' reconnection
 * to a restarted Redis (their backoff reaches 2 s), short enough for the refusals tested here.
 */
const WAIT_MS = 5_000;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly replayed: boolean;
  readonly body: any;
}

interface Replica {
  readonly logs: string[];
  /** An order, with an `Idempotency-Key` unless `key` is undefined. */
  order(key: string | undefined): Promise<Answer>;
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
          ...(key === undefined ? {} : { 'idempotency-key': key }),
        },
        body: JSON.stringify({
          query: ORDER,
          variables: { input: { csr, productType: 'DV_SSL', period: 1 } },
        }),
      });
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        replayed: res.headers.get('idempotent-replayed') === 'true',
        body: await res.json(),
      };
    },
    logged: (text) => logs.filter((line) => line.includes(text)).length,
    close: () => gateway.close(),
  };
}

let csr: string;

describe.skipIf(!testRedisAvailable)('idempotency keys across a Redis outage', () => {
  let redis: KillableRedis;
  let sim: RunningSimulator;
  let a: Replica;
  let b: Replica;
  const replicas = () => [a, b];
  /** While set, the simulator holds every arriving request until it is resolved. */
  let hold: Deferred<void> | undefined;
  /** Requests that arrived at the simulator (its own `/__sim/` calls apart). */
  let arrivals = 0;

  beforeAll(async () => {
    csr = await createCsr('www.idempotent-outage.example.com');
    redis = await startKillableRedis();
    sim = await startSimulator({
      ipLimits: false,
      onArrival: () => {
        arrivals += 1;
        return hold?.promise;
      },
    });
    const env = {
      REDIS_URL: redis.url,
      CREDENTIAL_HMAC_SECRET: 'shared-secret-of-both-replicas',
      REDIS_KEY_PREFIX: 'idem-outage',
      IDEMPOTENCY_WAIT_MS: String(WAIT_MS),
    };
    a = await startReplica(sim.url, env);
    b = await startReplica(sim.url, env);
  }, 60_000);
  afterAll(async () => {
    hold?.resolve();
    await Promise.all([a?.close(), b?.close()]);
    await sim?.close();
    await redis?.stop();
  });
  beforeEach(() => sim.reset());
  /** Whether a test killed Redis and has not started it again (a failed one leaves it so). */
  let redisDown = false;
  afterEach(async () => {
    hold?.resolve();
    hold = undefined;
    if (redisDown) await restartRedisEmpty();
  });

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
    redisDown = true;
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
    redisDown = false;
    await until(
      () => replicas().every((replica, i) => replica.logged(BACK_ON_REDIS) > before[i]!),
      'both replicas back on Redis',
    );
  }

  /** The answer refused by name: 503, nothing sent, retry with the same key. */
  function expectRefused(answer: Answer): void {
    expect(answer.status).toBe(503);
    expect(answer.retryAfter).toBe('1');
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors[0].extensions).toMatchObject({
      code: 'IDEMPOTENCY_UNAVAILABLE',
      retryAfterSec: 1,
    });
    expect(answer.body.errors[0].message).toMatch(/nothing was sent.*same Idempotency-Key/);
  }

  it('refuses a keyed mutation while Redis is unreachable, sending nothing upstream; one without a key is left to the budget', async () => {
    await killRedis();
    const key = randomUUID();
    // Before: each replica claimed the key in its own memory, and both wrote.
    const answers = await Promise.all([a.order(key), b.order(key)]);
    expect((await sim.stats()).total).toBe(0);
    answers.forEach(expectRefused);

    // Not refused for its key (there is none): the budget decides, and a replica that holds no
    // lease of the shared budget while Redis is gone sends nothing (docs/replicas.md).
    const unkeyed = await a.order(undefined);
    expect(unkeyed.status).toBe(200);
    expect(unkeyed.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'SHARED_BUDGET',
    });
    expect(await writes()).toBe(0);
    await restartRedisEmpty();
  });

  it('waits for Redis, asking again, and runs a keyed mutation once Redis takes its claim; then every replica replays it', async () => {
    await killRedis();
    const key = randomUUID();
    const waiting = a.logged(WAITING_FOR_STORE);
    const answer = a.order(key);
    await until(() => a.logged(WAITING_FOR_STORE) > waiting, 'the order waiting for Redis');
    expect(await writes()).toBe(0);
    await restartRedisEmpty();

    // Refused at once instead, the order would have been answered 503 before Redis came back.
    const ran = await answer;
    expect(ran.status).toBe(200);
    expect(ran.replayed).toBe(false);
    expect(ran.body.data.orderCertificate.certificateId).toMatch(/^cert-/);
    for (const replica of [b, a]) {
      const retried = await replica.order(key);
      expect(retried.replayed).toBe(true);
      expect(retried.body.data).toEqual(ran.body.data);
    }
    expect(await writes()).toBe(1);
  });

  it('keeps the answer of an order running when Redis died: replays it there, refuses it elsewhere, and writes it to Redis when Redis is back', async () => {
    const key = randomUUID();
    arrivals = 0;
    hold = deferred();
    const answer = a.order(key);
    await until(() => arrivals === 1, 'the order at the upstream');
    await killRedis();
    hold.resolve();
    const first = await answer;
    expect(first.body.data.orderCertificate.certificateId).toMatch(/^cert-/);

    const again = await a.order(key);
    expect(again.replayed).toBe(true);
    expect(again.body.data).toEqual(first.body.data);
    expectRefused(await b.order(key));
    expect(await writes()).toBe(1);

    await restartRedisEmpty();
    // Before it is written back, B would find the key free in the empty Redis and write again.
    await until(async () => (await records()).length === 1, 'the answer written back to Redis');
    const elsewhere = await b.order(key);
    expect(elsewhere.replayed).toBe(true);
    expect(elsewhere.body.data).toEqual(first.body.data);
    expect(await writes()).toBe(1);
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

    // What docs/replicas.md says an empty restart loses: the record is gone, the retry runs again.
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
