/**
 * Persisted operations: automatic persisted queries (in memory, and in Redis shared by replicas)
 * and trusted-documents mode on and off.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createGateway } from '../../../src/server/create-gateway.ts';
import { createLogger } from '../../../src/server/logger.ts';
import { until } from '../../support/clock.ts';
import { startSecondReplica, startStack, type Stack } from '../../support/gateway-harness.ts';
import {
  drainKeys,
  REDIS_ENV,
  testPrefix,
  testRedisAvailable,
  describeWithoutRedis,
} from '../../support/redis.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A document no earlier run registered (APQ stores are shared across runs in Redis). */
const freshQuery = () =>
  `# run ${randomUUID()}\nquery Certs { certificateCustomer(customerId: "demo-customer") { certificates(first: 2) { edges { node { certificateId } } } } }`;

const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describeWithoutRedis('automatic persisted queries (in memory)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.resetCounts());

  it('answers a miss with PersistedQueryNotFound, registers, then runs from the hash alone', async () => {
    const query = freshQuery();
    const hash = sha256(query);
    const miss = await postJson(stack.url, { extensions: persisted(hash) });
    expect(miss.status).toBe(200);
    expect(miss.body.errors[0]).toMatchObject({
      message: 'PersistedQueryNotFound',
      extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
    });
    expect(await stack.upstreamCalls()).toBe(0);

    const registered = await postJson(stack.url, { query, extensions: persisted(hash) });
    expect(registered.body.data.certificateCustomer.certificates.edges).toHaveLength(2);

    const hit = await postJson(stack.url, { extensions: persisted(hash) });
    expect(hit.body.errors).toBeUndefined();
    expect(hit.body.data).toEqual(registered.body.data);

    // Over GET too (a CDN-cacheable URL), with the CSRF preflight header.
    const params = new URLSearchParams({ extensions: JSON.stringify(persisted(hash)) });
    const viaGet = await stack.http('GET', `/graphql?${params}`, {
      headers: { authorization: 'Bearer demo-token', 'apollo-require-preflight': 'true' },
    });
    expect(viaGet.body.data).toEqual(registered.body.data);
  });

  it('refuses a hash that is not the document’s, and registers nothing a limit refused', async () => {
    const query = freshQuery();
    const wrong = await postJson(stack.url, { query, extensions: persisted(sha256('other')) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].message).toMatch(/sha does not match/);

    const costly = `# ${randomUUID()}\n{ certificateCustomer(customerId: "demo-customer") { certificates(first: 900) { edges { node { certificateId } } } } }`;
    const refused = await postJson(stack.url, {
      query: costly,
      extensions: persisted(sha256(costly)),
    });
    // `first: 900` is past the argument's bound, refused before the cost (and before registration).
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'first',
    });
    const after = await postJson(stack.url, { extensions: persisted(sha256(costly)) });
    expect(after.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe.skipIf(!testRedisAvailable)('automatic persisted queries in Redis', () => {
  const prefix = testPrefix('apq');
  const env = {
    ...REDIS_ENV,
    REDIS_KEY_PREFIX: prefix,
    CREDENTIAL_HMAC_SECRET: 'apq-replicas-secret-0123',
  };
  let stack: Stack;
  let replica: Awaited<ReturnType<typeof startSecondReplica>>;
  let replicaUrl: string;
  beforeAll(async () => {
    stack = await startStack({ env });
    replica = await startSecondReplica(stack, env);
    replicaUrl = replica.url;
  });
  afterAll(async () => {
    await replica.close();
    await stack.close();
    await drainKeys(prefix);
  });

  it('registers on one replica and runs from the hash on another', async () => {
    const query = freshQuery();
    const hash = sha256(query);
    expect(
      (await postJson(replicaUrl, { extensions: persisted(hash) })).body.errors[0].message,
    ).toBe('PersistedQueryNotFound');
    const registered = await postJson(stack.url, { query, extensions: persisted(hash) });
    expect(registered.body.errors).toBeUndefined();
    // Apollo registers after answering: the other replica finds the hash once the write is done.
    let hit: Awaited<ReturnType<typeof postJson>> | undefined;
    await until(async () => {
      hit = await postJson(replicaUrl, { extensions: persisted(hash) });
      return hit.body.data !== undefined;
    }, 'the hash registered in Redis');
    expect(hit?.body.data).toEqual(registered.body.data);

    const keys = await drainKeys(prefix);
    const apq = keys.filter((entry) => entry.key.startsWith(`${prefix}:persisted:`));
    expect(apq.map((entry) => entry.key)).toEqual([`${prefix}:persisted:apq:${hash}`]);
    expect(apq[0]!.value).toContain('certificateCustomer');
  });
});

describeWithoutRedis('trusted documents', () => {
  const trustedQuery = '{ viewer { rateLimit { limit remaining } } }';
  const trustedByManifest =
    'query Certs { certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }';
  let dir: string;
  let stack: Stack;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-trusted-'));
    const path = join(dir, 'manifest.json');
    await writeFile(
      path,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [
          { id: sha256(trustedQuery), name: 'Viewer', type: 'query', body: trustedQuery },
          { id: sha256(trustedByManifest), name: 'Certs', type: 'query', body: trustedByManifest },
        ],
      }),
    );
    stack = await startStack({ env: { TRUSTED_DOCUMENTS_PATH: path } });
  });
  afterAll(async () => {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => stack.resetCounts());

  it('runs a trusted document sent as text or as its hash alone', async () => {
    const asText = await stack.gql(trustedQuery);
    expect(asText.body.data.viewer.rateLimit.limit).toBe(600);
    const asHash = await postJson(stack.url, { extensions: persisted(sha256(trustedByManifest)) });
    expect(asHash.body.data.certificateCustomer.certificates.totalCount).toBeGreaterThan(0);
  });

  it('refuses any other document, text or hash, before parsing or calling upstream', async () => {
    const other = await stack.gql(
      '{ certificateCustomer(customerId: "demo-customer") { certificates(first: 5) { totalCount } } }',
    );
    expect(other.status).toBe(403);
    expect(other.body.errors[0].extensions).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'UNTRUSTED_DOCUMENT',
    });
    expect(other.body.errors[0].extensions.requestId).toBeTruthy();

    const query = freshQuery();
    const register = await postJson(stack.url, { query, extensions: persisted(sha256(query)) });
    expect(register.status).toBe(403);
    const unknownHash = await postJson(stack.url, { extensions: persisted(sha256(query)) });
    expect(unknownHash.status).toBe(403);
    // Even a document that differs by whitespace is another document.
    expect((await stack.gql(`${trustedQuery} `)).status).toBe(403);
    // Introspection too: the explorer needs trusted-documents mode off.
    expect((await stack.gql('{ __schema { queryType { name } } }')).status).toBe(403);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('is off by default: any document runs', async () => {
    const open = await startStack();
    try {
      const res = await open.gql('{ viewer { rateLimit { limit } } }');
      expect(res.body.data.viewer.rateLimit.limit).toBe(600);
    } finally {
      await open.close();
    }
  });

  it('refuses to start with a manifest whose hash does not match its document', async () => {
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify({ [sha256('something else')]: trustedQuery }));
    const config = loadConfig({ TRUSTED_DOCUMENTS_PATH: path, LOG_LEVEL: 'silent', PORT: '0' });
    await expect(createGateway(config, createLogger(config), 'http://127.0.0.1:9')).rejects.toThrow(
      /not the SHA-256 of its document/,
    );
  });
});
