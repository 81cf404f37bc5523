/**
 * REDIS_URL mode against a real Redis: what lands in Redis (never a token, a secret value or card
 * data), the connection closed on shutdown, and the Redis-down policy (a replica spends only the
 * tokens it holds: never "unlimited"), tested against a port where no Redis listens.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import {
  CANARY_CARD_NUMBER,
  CANARY_VALUES,
} from '../../../src/simulator/fixtures/transactions.fixtures.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import {
  DEAD_REDIS_ENV,
  REDIS_ENV,
  connectTestRedis,
  connectionsNamed,
  deleteUnder,
  keysUnder,
  testPrefix,
  testRedisAvailable,
  type TestRedis,
} from '../../support/redis.ts';

const SECRET = 'redis-mode-test-secret-0123456789';
const CANARY_TOKEN = 'canary-token-3d9f0b7e5a';
const detail = (n: number) =>
  `{ certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "cert-${String(n).padStart(4, '0')}") { certificateId csr } } }`;

describe.skipIf(!testRedisAvailable)('Redis mode', () => {
  const prefix = testPrefix('redis-mode');
  let admin: TestRedis;
  let stack: Stack;
  beforeAll(async () => {
    admin = await connectTestRedis();
    stack = await startStack({
      sim: { rateLimit: 10_000 },
      env: { ...REDIS_ENV, REDIS_KEY_PREFIX: prefix, CREDENTIAL_HMAC_SECRET: SECRET },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await deleteUnder(admin, prefix);
    await admin.close();
  });

  it('keeps cache entries and buckets in Redis, with no token, secret or card data in keys or values', async () => {
    const EAB = `{ certificateCustomer(customerId: "demo-customer") { acmeExternalAccountBinding { hmacKey } } }`;
    await stack.gql(detail(1));
    const hmacKey = (await stack.gql(EAB)).body.data.certificateCustomer.acmeExternalAccountBinding
      .hmacKey as string;
    await stack.gql(detail(1), undefined, { token: CANARY_TOKEN }); // unknown token: 401, still keyed
    // Transactions (with the canary card) through the same client every domain uses.
    const credential = createCredentialFactory(SECRET)('demo-token');
    await stack.gateway.upstream.request({
      method: 'GET',
      route: '/v2/commerce/stores/{storeId}/transactions',
      params: { storeId: COMMERCE_IDS.storeA },
      query: { page: 1, pageSize: 5, transactionIds: [COMMERCE_IDS.canaryTransaction] },
      credential,
    });

    const keys = await keysUnder(admin, prefix);
    expect(
      keys.some((k) => k.startsWith(`${prefix}:cache::${credential.id}:certificate-detail:`)),
    ).toBe(true);
    expect(keys.some((k) => k.startsWith(`${prefix}:cache::${credential.id}:transaction:`))).toBe(
      true,
    );
    expect(keys).toContain(`${prefix}:bucket:{${credential.id}}`);
    // Replays held per credential are a sorted set of response-cache keys.
    expect(keys).toContain(`${prefix}:replays:{${credential.id}}`);
    const valueOf = async (k: string) => {
      const type = await admin.type(k);
      if (type === 'hash') return JSON.stringify(await admin.hGetAll(k));
      if (type === 'zset') return JSON.stringify(await admin.zRange(k, 0, -1));
      return (await admin.get(k)) ?? '';
    };
    const values = await Promise.all(keys.map(valueOf));
    const everything = `${keys.join('\n')}\n${values.join('\n')}`;
    // Nor the card's unsalted hash (the number is recoverable from it) or the cardholder's name.
    const cardHash = createHash('sha256').update(CANARY_CARD_NUMBER).digest('hex');
    for (const secret of ['demo-token', CANARY_TOKEN, hmacKey, cardHash, ...CANARY_VALUES]) {
      expect(everything).not.toContain(secret);
    }
    expect(everything.toLowerCase()).not.toContain('canary');
    expect(stack.logs.join('\n')).not.toContain(CANARY_TOKEN);
  });

  it('reports the shared bucket in viewer.rateLimit: what no replica holds, and what they hold unspent', async () => {
    const viewer = await stack.gql('{ viewer { rateLimit { limit remaining } } }');
    const id = createCredentialFactory(SECRET)('demo-token').id;
    const bucket = await admin.hGetAll(`${prefix}:bucket:{${id}}`);
    const leases = Object.values(await admin.hGetAll(`${prefix}:leases:{${id}}`));
    // Redis records the lease this replica holds ("held end demand": held as granted, the calls
    // spent since its last run included).
    expect(leases).toHaveLength(1);
    const recorded = Number(leases[0]!.split(' ')[0]);
    const { remaining } = viewer.body.data.viewer.rateLimit;
    // The window (600) less every call this replica made for the token (all the calls above but
    // the unknown token's, refused 401): what the bucket has free and what the lease has not spent
    // yet — no more than Redis records, nothing of the window lost.
    expect(remaining).toBe(600 - ((await stack.upstreamCalls()) - 1));
    expect(remaining).toBeLessThanOrEqual(Math.floor(Number(bucket.tokens)) + recorded);
    expect(remaining).toBeGreaterThan(Math.floor(Number(bucket.tokens)));
  });

  it('closes its Redis connections on shutdown', async () => {
    const named = () => connectionsNamed(admin, `${prefix}-gateway`);
    // Commands (to the node, or to each master of the cluster), and the subscriber listening on
    // the cross-replica flight channel.
    expect(await named()).toBeGreaterThanOrEqual(2);
    await stack.close();
    expect(await named()).toBe(0);
    stack = undefined as unknown as Stack;
  });
});

describe('Redis unreachable', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      sim: { rateLimit: 10_000 },
      env: {
        ...DEAD_REDIS_ENV,
        REDIS_CONNECT_TIMEOUT_MS: '200',
        UPSTREAM_RATE_LIMIT: '40',
        // One more ask after the first (every 250 ms), then the refusal.
        UPSTREAM_BUCKET_WAIT_MS: '400',
        CREDENTIAL_HMAC_SECRET: SECRET,
      },
    });
  });
  afterAll(() => stack.close());

  it('spends only what it holds (nothing): reads and writes refused by name, never unlimited', async () => {
    const read = await stack.gql(detail(1));
    expect(read.body.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'SHARED_BUDGET',
      retryAfterSec: 1,
    });
    expect(read.body.errors[0].message).toMatch(/shares with the other replicas cannot be reached/);
    const write = await stack.gql(
      `mutation { updateApp(input: { appId: "app-0001", name: "never-sent" }) { userErrors { code } } }`,
    );
    expect(write.body.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'SHARED_BUDGET',
    });
    expect(await stack.upstreamCalls()).toBe(0);
    expect(
      stack.logs.filter((line) => line.includes('token leases: Redis unavailable')),
    ).toHaveLength(1);
  });
});
