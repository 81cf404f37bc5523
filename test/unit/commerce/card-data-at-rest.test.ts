/**
 * Card data at rest: the transaction routes' declared redaction runs in the upstream stack before
 * the cache, so what a cache entry holds (read back here as a cache hit) has no card number, hash,
 * track data, PIN, CV data, cryptogram, key serial number, EMV tag or cardholder name — and the card
 * summary the graph shows is still whole.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import {
  presentTransaction,
  redactTransaction,
  redactTransactionPage,
  REDACTED,
} from '../../../src/commerce/card-redaction.ts';
import { COMMERCE_ROUTES } from '../../../src/commerce/commerce.routes.ts';
import { upstreamRoutes } from '../../../src/graph/upstream-routes.ts';
import { createCacheKeyer } from '../../../src/upstream/cache-key.ts';
import { createCachePolicy } from '../../../src/upstream/cache-policy.ts';
import { createCachedUpstreamClient } from '../../../src/upstream/cached-upstream-client.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import { createRedactingClient } from '../../../src/upstream/redacting-client.ts';
import { createResponseCache } from '../../../src/upstream/response-cache.ts';
import { createSingleflight } from '../../../src/upstream/singleflight.ts';
import type { UpstreamResponse } from '../../../src/upstream/upstream-call.ts';
import type { UpstreamClient } from '../../../src/upstream/upstream-client.ts';
import {
  CANARY_CARD_NUMBER,
  CANARY_VALUES,
  generateTransactions,
} from '../../../src/simulator/fixtures/transactions.fixtures.ts';

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
    );
  }
  // Names short enough to occur by chance in other text are checked field by field instead.
  return values.filter((value) => value.length >= 8);
}

/** The stack's cache, redaction and a fake upstream answering the generated page. */
function stack() {
  let upstreamCalls = 0;
  const inner: UpstreamClient = {
    async request<T>() {
      upstreamCalls += 1;
      return { status: 200, data: page() as T, headers: {}, rateLimit: undefined };
    },
    probe: async () => true,
    close: async () => undefined,
  };
  const routes = upstreamRoutes();
  const client = createCachedUpstreamClient({
    inner: createRedactingClient(inner, routes),
    cache: createResponseCache({ store: { type: 'memory', maxBytes: 8 << 20 }, tagTtlMs: 60_000 }),
    policy: createCachePolicy(routes),
    keyOf: createCacheKeyer('unit-test-secret-0123456789'),
    singleflight: createSingleflight(),
    staleMaxAgeMs: 60_000,
    logger: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
  });
  const credential = createCredentialFactory('unit-test-secret-0123456789')('demo-token');
  const read = () =>
    client.request<ReturnType<typeof page>>({
      method: 'GET',
      route: COMMERCE_ROUTES.transactions,
      params: { storeId: STORE },
      query: { page: 1, pageSize: 40 },
      credential,
    });
  return { read, calls: () => upstreamCalls };
}

describe('card data at rest', () => {
  it('a cached transaction page holds no card data, and the card summary survives', async () => {
    const { read, calls } = stack();
    const fresh: UpstreamResponse<ReturnType<typeof page>> = await read();
    const cached = await read();
    expect(calls()).toBe(1); // the second read is the cache entry itself
    const original = page();
    const text = JSON.stringify(cached.data);
    for (const value of [...sensitiveValuesOf(original), ...CANARY_VALUES]) {
      expect(text).not.toContain(value);
    }
    cached.data.items.forEach((item, i) => {
      const detail = item.fundingSource.cardDetail as unknown as Record<string, unknown>;
      for (const field of ['numberHashed', 'firstName', 'lastName', 'serviceCode', 'emvTags']) {
        expect([null, REDACTED]).toContain(detail[field]);
      }
      expect(presentTransaction(item).card).toEqual(redactTransaction(original.items[i]).card);
    });
    expect(presentTransaction(cached.data.items[0]).card?.last4).toBe(CANARY_CARD_NUMBER.slice(-4));
    expect(fresh.data).toEqual(cached.data); // a fresh answer and a cached one look the same
  });

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
