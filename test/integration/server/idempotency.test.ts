/**
 * Idempotent mutations: sequential, concurrent and conflicting uses of one `Idempotency-Key`,
 * counted as upstream writes at the simulator — in memory and in Redis shared by two replicas.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { deferred } from '../../support/clock.ts';
import { startSecondReplica, startStack, type Stack } from '../../support/gateway-harness.ts';
import { createCsr } from '../../support/csr.ts';
import {
  drainKeys,
  REDIS_ENV,
  testPrefix,
  testRedisAvailable,
  describeWithoutRedis,
} from '../../support/redis.ts';

const ORDER = `mutation Order($input: OrderCertificateInput!) {
  orderCertificate(input: $input) { certificateId userErrors { code message path } } }`;
const WRITE = 'POST /v2/certificates';

let csr: string;
beforeAll(async () => {
  csr = await createCsr('www.idempotent.example.com');
});

const order = (stack: Stack, key: string | undefined, period = 1, token = 'demo-token') =>
  stack.gql(
    ORDER,
    { input: { csr, productType: 'DV_SSL', period } },
    { token, headers: key === undefined ? {} : { 'idempotency-key': key } },
  );

describeWithoutRedis('idempotency in memory', () => {
  let stack: Stack;
  /** Holds the simulator's answer to an arriving request while a test sets it. */
  let hold: ((request: { method: string; url: string }) => unknown) | undefined;
  beforeAll(async () => {
    stack = await startStack({ sim: { onArrival: (request) => hold?.(request) } });
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.resetCounts());

  it('replays a retried mutation without a second upstream write', async () => {
    const key = randomUUID();
    const first = await order(stack, key);
    const second = await order(stack, key);
    expect(first.body.data.orderCertificate.certificateId).toMatch(/^cert-/);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await stack.upstreamCalls(WRITE)).toBe(1);
  });

  it('makes a concurrent duplicate wait for the first and share its result', async () => {
    // Upstream latency keeps the first request running while its duplicates arrive.
    stack.sim.simulator.configure({ latencyMs: 300 });
    onTestFinished(() => stack.sim.simulator.configure({ latencyMs: 0 }));
    const key = randomUUID();
    const [a, b, c] = await Promise.all([order(stack, key), order(stack, key), order(stack, key)]);
    const ids = [a, b, c].map((res) => res.body.data.orderCertificate.certificateId);
    expect(new Set(ids).size).toBe(1);
    expect(await stack.upstreamCalls(WRITE)).toBe(1);
  });

  it('answers CONFLICT when the key is reused for a different request', async () => {
    const key = randomUUID();
    await order(stack, key, 1);
    const other = await order(stack, key, 2);
    expect(other.status).toBe(409);
    expect(other.body.data).toBeUndefined();
    expect(other.body.errors[0].extensions).toMatchObject({
      code: 'CONFLICT',
      reason: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(other.body.errors[0].extensions.requestId).toBeTruthy();
    expect(await stack.upstreamCalls(WRITE)).toBe(1);
  });

  it('answers CONFLICT to a concurrent different request with the key', async () => {
    const key = randomUUID();
    const writing = deferred();
    const release = deferred();
    hold = ({ method, url }) => {
      if (method !== 'POST' || url.split('?')[0] !== '/v2/certificates') return undefined;
      writing.resolve();
      return release.promise;
    };
    try {
      const first = order(stack, key, 1);
      // The first request holds the key: its upstream write has arrived and is not answered yet.
      await writing.promise;
      const other = await order(stack, key, 3);
      expect(other.status).toBe(409);
      release.resolve();
      expect((await first).body.data.orderCertificate.certificateId).toMatch(/^cert-/);
      expect(await stack.upstreamCalls(WRITE)).toBe(1);
    } finally {
      hold = undefined;
      release.resolve();
    }
  });

  it('keys by credential: another token with the same key is another request', async () => {
    const key = randomUUID();
    await order(stack, key, 1, 'demo-token');
    const other = await order(stack, key, 1, 'demo-other');
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await stack.upstreamCalls(WRITE)).toBe(2);
  });

  it('writes every time without the header, and ignores it on queries', async () => {
    await order(stack, undefined);
    await order(stack, undefined);
    expect(await stack.upstreamCalls(WRITE)).toBe(2);
    const key = randomUUID();
    const read = '{ viewer { rateLimit { limit } } }';
    await stack.gql(read, undefined, { headers: { 'idempotency-key': key } });
    const again = await stack.gql(read, undefined, { headers: { 'idempotency-key': key } });
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it('frees the key when nothing was written, so the retry runs', async () => {
    const key = randomUUID();
    const refused = await order(stack, key, 1, 'demo-readonly');
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const retried = await order(stack, key, 1, 'demo-readonly');
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await stack.upstreamCalls(WRITE)).toBe(2);
  });

  it('refuses a malformed key before any upstream call', async () => {
    const res = await order(stack, 'has spaces in it');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe.skipIf(!testRedisAvailable)('idempotency in Redis, shared by two replicas', () => {
  const prefix = testPrefix('idem');
  const env = {
    ...REDIS_ENV,
    REDIS_KEY_PREFIX: prefix,
    CREDENTIAL_HMAC_SECRET: 'shared-secret-of-both-replicas',
  };
  let a: Stack;
  let replica: Awaited<ReturnType<typeof startSecondReplica>>;
  let replicaUrl: string;
  beforeAll(async () => {
    a = await startStack({ sim: { latencyMs: 300 }, env });
    // A second replica on the same upstream (one simulator counts every write) and the same Redis.
    replica = await startSecondReplica(a, env);
    replicaUrl = replica.url;
  });
  afterAll(async () => {
    await replica.close();
    await a.close();
    await drainKeys(prefix);
  });

  it('replays across replicas and lets a duplicate on the other replica wait', async () => {
    await a.resetCounts();
    const key = randomUUID();
    const viaReplica = (period: number) =>
      fetch(`${replicaUrl}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer demo-token',
          'idempotency-key': key,
        },
        body: JSON.stringify({
          query: ORDER,
          variables: { input: { csr, productType: 'DV_SSL', period } },
        }),
      });
    const [first, duplicate] = await Promise.all([order(a, key), viaReplica(1)]);
    const duplicateBody = (await duplicate.json()) as any;
    expect(first.body.data.orderCertificate.certificateId).toMatch(/^cert-/);
    expect(duplicateBody.data).toEqual(first.body.data);
    const later = await order(a, key);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(await a.upstreamCalls(WRITE)).toBe(1);

    const conflict = await viaReplica(2);
    expect(conflict.status).toBe(409);
    expect(await a.upstreamCalls(WRITE)).toBe(1);

    const keys = await drainKeys(prefix);
    const records = keys.filter((entry) => entry.key.startsWith(`${prefix}:idempotency:`));
    expect(records).toHaveLength(1);
    // Neither the client's key nor any variable is stored: a hash of the one, a fingerprint of the other.
    expect(records[0]!.key).not.toContain(key);
    expect(records[0]!.value).not.toContain(csr.split('\n')[1]!);
  });
});
