/**
 * Card data at rest: the transaction routes' declared redaction runs in the upstream stack before
 * the cache, so what a cache entry holds (read back from the memory store and from Redis) has no
 * card number, hash,
 * track data, PIN, CV data, cryptogram, key serial number, EMV tag or cardholder name — and the card
 * summary the graph shows is still whole.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { redactTransactionPage, REDACTED } from '../../../src/commerce/card-redaction.ts';
import {
  presentTransaction,
  redactTransaction,
} from '../../../src/commerce/transaction-presentation.ts';
import { COMMERCE_ROUTES } from '../../../src/commerce/commerce.upstream-routes.ts';
import { upstreamRoutes } from '../../../src/graph/upstream-routes.ts';
import { createCacheKeyer } from '../../../src/upstream/cache/cache-key.ts';
import { createCachePolicy } from '../../../src/upstream/cache/cache-policy.ts';
import { createCachedUpstreamClient } from '../../../src/upstream/cache/cached-upstream-client.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import { createRedactingClient } from '../../../src/upstream/redacting-client.ts';
import { createRouteLookup } from '../../../src/upstream/route-lookup.ts';
import { createUpstreamCache } from '../../../src/upstream/cache/upstream-cache.ts';
import { createSingleflight } from '../../../src/upstream/cache/singleflight.ts';
import type { UpstreamCall } from '../../../src/upstream/upstream-call.ts';
import type { UpstreamClient } from '../../../src/upstream/upstream-call.ts';
import {
  CANARY_CARD_NUMBER,
  CANARY_VALUES,
  generateTransactions,
} from '../../../src/simulator/fixtures/transactions.fixtures.ts';
import {
  connectTestRedis,
  deleteUnder,
  keysUnder,
  openTestConnection,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';

const STORE = '11111111-1111-4111-8111-111111111111';
const page = () => ({
  items: generateTransactions({
    storeId: STORE,
    label: 'unit',
    count: 40,
    until: Date.parse('2025-01-01T00:00:00Z'),
    spacingMs: 3_600_000,
    channels: [
      { channelId: '33333333-3333-4333-8333-333333333333', type: 'POS' },
      { channelId: '44444444-4444-4444-8444-444444444444', type: 'ONLINE' },
    ],
    currencies: ['USD'],
    canary: true,
  }),
  totalItems: 40,
});

/** The values of every card of a page that must not be held anywhere. */
function sensitiveValuesOf(answer: ReturnType<typeof page>): string[] {
  const values: string[] = [createHash('sha256').update(CANARY_CARD_NUMBER).digest('hex')];
  for (const item of answer.items) {
    const detail = item.fundingSource.cardDetail;
    const verification = item.fundingSource.cardVerificationData;
    values.push(
      detail.number,
      detail.numberHashed,
      detail.firstName,
      detail.lastName,
      ...(detail.track1data ? [detail.track1data] : []),
      ...(detail.track2data ? [detail.track2data] : []),
      ...(detail.keySerialNumber ? [detail.keySerialNumber] : []),
      ...(detail.interacMacDetail.interacMac ? [detail.interacMacDetail.interacMac] : []),
      ...(verification.cardPin ? [verification.cardPin] : []),
      ...(verification.cardPinKeySerialNumber ? [verification.cardPinKeySerialNumber] : []),
      ...(verification.threeDSecureData.cryptogram
        ? [verification.threeDSecureData.cryptogram]
        : []),
      ...(verification.cardHolderBillingAddress.addressLine1
        ? [verification.cardHolderBillingAddress.addressLine1]
        : []),
    );
  }
  // Names short enough to occur by chance in other text are checked field by field instead.
  return values.filter((value) => value.length >= 8);
}

/** Where the stack's cache keeps its entries: the process's memory or Redis. */
type Store = 'memory' | 'redis';

/**
 * The stack's redaction and cache over a fake upstream answering the generated page (list route)
 * or its canary record (by-id route); `cached()` reads back every entry the store holds, as text.
 */
async function stack(store: Store) {
  let upstreamCalls = 0;
  const original = page();
  const inner: UpstreamClient = {
    async request<T>(call: UpstreamCall) {
      upstreamCalls += 1;
      const answer =
        call.route === COMMERCE_ROUTES.transaction
          ? structuredClone(original.items[0])
          : structuredClone(original);
      return { status: 200, data: answer as T, headers: {}, rateLimit: undefined };
    },
    probe: async () => true,
    close: async () => undefined,
  };
  const routes = upstreamRoutes();
  const memory = new Map<string, unknown>();
  const prefix = testPrefix('card-at-rest');
  const redis = store === 'redis' ? await connectTestRedis() : undefined;
  const connection = store === 'redis' ? await openTestConnection() : undefined;
  const cache = createUpstreamCache({
    store: connection
      ? { type: 'redis', connection, prefix }
      : { type: 'memory', maxBytes: 8 << 20 },
    tagTtlMs: 60_000,
  });
  const client = createRouteLookup(
    createCachedUpstreamClient({
      inner: createRedactingClient(inner),
      cache: {
        ...cache,
        // Every entry as the store receives it (the memory store keeps it as this object).
        store: async (key, answer, ttlMs) => {
          memory.set(key, answer);
          await cache.store(key, answer, ttlMs);
        },
      },
      policy: createCachePolicy(routes),
      keyOf: createCacheKeyer('unit-test-secret-0123456789'),
      singleflight: createSingleflight(),
      staleMaxAgeMs: 60_000,
      logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
    }),
    routes,
  );
  const credential = createCredentialFactory('unit-test-secret-0123456789')('demo-token');
  const read = <T>(route: string) =>
    client.request<T>({
      method: 'GET',
      route,
      params: { storeId: STORE, transactionId: original.items[0]!.transactionId },
      query: { page: 1, pageSize: 40 },
      credential,
    });
  return {
    original,
    read,
    calls: () => upstreamCalls,
    /** Every stored entry: what Redis holds (keys and values) or what was handed to memory. */
    async cached(): Promise<string> {
      if (!redis) return JSON.stringify([...memory]);
      const keys = await keysUnder(redis, prefix);
      const values = await Promise.all(keys.map(async (key) => (await redis.get(key)) ?? ''));
      return `${keys.join('\n')}\n${values.join('\n')}`;
    },
    async close() {
      if (redis) {
        await deleteUnder(redis, prefix);
        await redis.close();
      }
      await connection?.close();
    },
  };
}

/** Every leaf of the card objects that is a value (not null, not redacted), by path. */
function cardValuesOf(record: unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const walk = (value: unknown, path: string) => {
    if (value === null || value === REDACTED) return;
    if (typeof value === 'object') {
      for (const [key, inner] of Object.entries(value as object)) walk(inner, `${path}.${key}`);
    } else values[path] = value;
  };
  const funding = (record as { fundingSource: Record<string, unknown> }).fundingSource;
  walk(funding.cardDetail, 'cardDetail');
  walk(funding.cardVerificationData, 'cardVerificationData');
  return values;
}

/** Asserts no card value but brand, last four, expiry and entry method is in `text`. */
function expectNoCardData(text: string, original: ReturnType<typeof page>): void {
  for (const value of [...sensitiveValuesOf(original), ...CANARY_VALUES]) {
    expect(text).not.toContain(value);
  }
  expect(text.toLowerCase()).not.toContain('canary');
}

const stores: Store[] = testRedisAvailable ? ['memory', 'redis'] : ['memory'];

describe.each(stores)('card data at rest in the %s cache', (store) => {
  it('a cached transaction page holds no card data, and the card summary survives', async () => {
    const s = await stack(store);
    try {
      const fresh = await s.read<ReturnType<typeof page>>(COMMERCE_ROUTES.transactions);
      const cached = await s.read<ReturnType<typeof page>>(COMMERCE_ROUTES.transactions);
      expect(s.calls()).toBe(1); // the second read is the cache entry itself
      expectNoCardData(await s.cached(), s.original);
      cached.data.items.forEach((item, i) => {
        // Brand, truncated number, expiry and entry method: nothing else of the card is kept.
        expect(Object.keys(cardValuesOf(item)).sort()).toEqual(
          [
            'cardDetail.entryDetails.entryMethod',
            'cardDetail.expMonth',
            'cardDetail.expYear',
            'cardDetail.number',
            'cardDetail.type',
          ].sort(),
        );
        expect(item.fundingSource.cardDetail.number).toMatch(/^\*+\d{4}$/);
        const detail = item.fundingSource.cardDetail as unknown as Record<string, unknown>;
        for (const field of ['numberHashed', 'firstName', 'lastName', 'serviceCode', 'emvTags']) {
          expect([null, REDACTED]).toContain(detail[field]);
        }
        expect(presentTransaction(item).card).toEqual(redactTransaction(s.original.items[i]).card);
      });
      expect(presentTransaction(cached.data.items[0]).card?.last4).toBe(
        CANARY_CARD_NUMBER.slice(-4),
      );
      expect(fresh.data).toEqual(cached.data); // a fresh answer and a cached one look the same
    } finally {
      await s.close();
    }
  });

  it('a cached single transaction holds no card data either', async () => {
    const s = await stack(store);
    try {
      await s.read(COMMERCE_ROUTES.transaction);
      await s.read(COMMERCE_ROUTES.transaction);
      expect(s.calls()).toBe(1);
      const text = await s.cached();
      expect(text).toContain(s.original.items[0]!.transactionId);
      expectNoCardData(text, s.original);
    } finally {
      await s.close();
    }
  });
});

describe('card redaction', () => {
  it('keeps only the last four of a clear number at rest, and shows none of it in raw', () => {
    const answer = redactTransactionPage(page()) as ReturnType<typeof page>;
    const number = answer.items[0]!.fundingSource.cardDetail.number;
    expect(number).toMatch(/^\*{8,15}\d{4}$/);
    const shown = presentTransaction(answer.items[0]).record as {
      fundingSource: { cardDetail: { number: string } };
    };
    expect(shown.fundingSource.cardDetail.number).toBe(REDACTED);
    // Presenting does not change the cached record.
    expect(answer.items[0]!.fundingSource.cardDetail.number).toBe(number);
  });

  it('replaces a card number echoed elsewhere in a record', () => {
    const answer = page();
    (answer.items[0] as unknown as Record<string, unknown>).notes =
      `customer read ${CANARY_CARD_NUMBER} over the phone`;
    redactTransactionPage(answer);
    expect((answer.items[0] as unknown as { notes: string }).notes).toBe(REDACTED);
  });
});
