/**
 * A canary token and a canary secret travel through every store of the production policy — APQ
 * registration, idempotent mutations (refused and stored), limit refusals — and must then be absent
 * from the gateway's logs, from every response, from the metrics, and from the keys and values of
 * those stores in Redis (found with SCAN).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type GqlResult, type Stack } from '../../support/gateway-harness.ts';
import {
  describeWithoutRedis,
  drainKeys,
  REDIS_ENV,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';
import { collectSse } from '../../support/subscription-clients.ts';

const CANARY_TOKEN = `canaryTok-${randomBytes(12).toString('hex')}`;
const CANARY_SECRET = `canary-secret-${randomBytes(12).toString('hex')}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const CHANGE_SECRETS = `mutation Secrets($input: ChangeAppSecretsInput!) {
  changeAppSecrets(input: $input) { secrets { shared { name systemManaged } } userErrors { code message path } } }`;

describe.skipIf(!testRedisAvailable)('canaries', () => {
  const prefix = testPrefix('canary');
  let stack: Stack;
  const responses: GqlResult[] = [];
  let appId: string;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        ...REDIS_ENV,
        REDIS_KEY_PREFIX: prefix,
        CREDENTIAL_HMAC_SECRET: 'canary-test-secret-0123',
      },
    });
    const apps = await stack.gql('{ apps { appId } }');
    appId = apps.body.data.apps[0].appId;
  });
  afterAll(async () => {
    await stack.close();
    await drainKeys(prefix);
  });

  const send = async (
    body: Record<string, unknown>,
    token: string,
    headers: Record<string, string> = {},
  ): Promise<GqlResult> => {
    const res = await stack.http('POST', '/graphql', {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    });
    responses.push(res);
    return res;
  };

  it('travel through APQ, idempotency and limit refusals', async () => {
    // APQ registration and a hash-only run with the canary token (the upstream refuses it).
    const query = `# ${randomUUID()}\n{ certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    await send({ query, extensions }, CANARY_TOKEN);
    await send({ extensions }, CANARY_TOKEN);

    // An idempotent secret change with the canary token (refused upstream: the key is freed) and
    // with a real one (stored for replay), both carrying the canary secret as a variable.
    const variables = {
      input: { appId, additions: [{ name: 'CANARY_API_KEY', value: CANARY_SECRET }] },
    };
    const refused = await send({ query: CHANGE_SECRETS, variables }, CANARY_TOKEN, {
      'idempotency-key': randomUUID(),
    });
    expect(refused.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const key = randomUUID();
    const stored = await send({ query: CHANGE_SECRETS, variables }, 'demo-token', {
      'idempotency-key': key,
    });
    expect(stored.body.data.changeAppSecrets.userErrors).toEqual([]);
    const replayed = await send({ query: CHANGE_SECRETS, variables }, 'demo-token', {
      'idempotency-key': key,
    });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    const conflict = await send(
      { query: CHANGE_SECRETS, variables: { input: { ...variables.input, variant: 'PREVIEW' } } },
      'demo-token',
      { 'idempotency-key': key },
    );
    expect(conflict.status).toBe(409);

    // A limit refusal of an operation carrying the secret.
    const costly = `query($s: ID!) { a: certificateCustomer(customerId: $s) { certificates(first: 100) { edges { node { certificateId domainVerifications { domain } } } } } }`;
    const limited = await send({ query: costly, variables: { s: CANARY_SECRET } }, CANARY_TOKEN);
    expect(limited.body.errors[0].extensions.limit, limited.text).toBe('cost');

    const metrics = await stack.http('GET', '/metrics');
    expect(metrics.status).toBe(200);
    const everything = [
      ...stack.logs,
      ...responses.map((res) => `${JSON.stringify(res.headers)} ${res.text}`),
      metrics.text,
    ].join('\n');
    expect(everything).not.toContain(CANARY_TOKEN);
    expect(everything).not.toContain(CANARY_SECRET);

    const entries = await drainKeys(prefix);
    const ours = entries.filter(
      (entry) =>
        entry.key.startsWith(`${prefix}:persisted:`) ||
        entry.key.startsWith(`${prefix}:idempotency:`),
    );
    // The APQ document and the stored secret change: something was written, and nothing secret.
    expect(ours.length).toBeGreaterThanOrEqual(2);
    for (const entry of entries) {
      expect(entry.key).not.toContain(CANARY_TOKEN);
      expect(entry.key).not.toContain(CANARY_SECRET);
    }
    for (const entry of ours) {
      expect(entry.value).not.toContain(CANARY_TOKEN);
      expect(entry.value).not.toContain(CANARY_SECRET);
    }
  });
});

describeWithoutRedis('a canary in a wrongly typed variable', () => {
  const canary = `canary-value-${randomBytes(12).toString('hex')}`;
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('is refused by name and type, and appears in no response or log line', async () => {
    await stack.resetCounts();
    const scalar = await stack.gql(
      `query($id: ID!, $first: Int) { certificateCustomer(customerId: $id) { certificates(first: $first) { totalCount } } }`,
      { id: 'demo-customer', first: canary },
    );
    expect(scalar.status).toBe(400);
    expect(scalar.body.errors).toEqual([
      expect.objectContaining({
        message: 'Variable "$first" got an invalid value. Expected a value of type "Int".',
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'first' }),
      }),
    ]);

    const nested = await stack.gql(CHANGE_SECRETS, {
      input: { appId: 'app-0001', additions: [{ name: 'K', value: { secret: canary } }] },
    });
    expect(nested.status).toBe(400);
    expect(nested.body.errors[0].message).toBe(
      'Variable "$input" got an invalid value at "input.additions[0].value". Expected a value of type "String!".',
    );
    expect(nested.body.errors[0].extensions.field).toBe('input.additions[0].value');

    const missing = await stack.gql(CHANGE_SECRETS, {
      input: { additions: [{ name: 'K', value: canary }] },
    });
    expect(missing.body.errors[0].message).toMatch(
      /^Variable "\$input" got an invalid value\. Field "appId" of required type "ID!" was not provided\.$/,
    );

    const sse = await collectSse(
      stack.url,
      `subscription($jobId: ID!) { appJob(jobId: $jobId) { status } }`,
      { jobId: { canary } },
    );
    const sseText = JSON.stringify(sse);
    expect(sseText).toContain('BAD_USER_INPUT');

    expect(await stack.upstreamCalls()).toBe(0);
    // The refusals are logged once each, at info, with their code.
    const refusals = stack.logs
      .map((line) => JSON.parse(line) as { level: number; msg: string; errorCodes?: string[] })
      .filter((entry) => entry.msg === 'graphql operation' && entry.errorCodes);
    expect(refusals.map((entry) => [entry.level, entry.errorCodes])).toEqual([
      [30, ['BAD_USER_INPUT']],
      [30, ['BAD_USER_INPUT']],
      [30, ['BAD_USER_INPUT']],
    ]);
    expect(stack.logs.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
    const everything = [...stack.logs, scalar.text, nested.text, missing.text, sseText].join('\n');
    expect(everything).not.toContain(canary);
  });
});
