/** Transaction answers lose their card data before they can reach the cache or Redis. */
import { describe, expect, it } from 'vitest';
import { redactCardData } from '../../../src/upstream/card-data-redaction.ts';
import { redactTransaction } from '../../../src/commerce/card-redaction.ts';
import {
  CANARY_CARD_NUMBER,
  CANARY_VALUES,
  generateTransactions,
} from '../../../src/simulator/fixtures/transactions.fixtures.ts';

const page = () => ({
  items: generateTransactions({
    storeId: '11111111-1111-4111-8111-111111111111',
    label: 'unit',
    count: 40,
    until: Date.parse('2025-01-01T00:00:00Z'),
    spacingMs: 3_600_000,
    channels: [{ channelId: '33333333-3333-4333-8333-333333333333', type: 'POS' }],
    currencies: ['USD'],
    canary: true,
  }),
  totalItems: 40,
});

describe('card data redaction (cache layer)', () => {
  it('leaves no card number, track data, PIN, CV data or cryptogram anywhere', () => {
    const text = JSON.stringify(redactCardData(page()));
    for (const canary of CANARY_VALUES) expect(text).not.toContain(canary);
    expect(text).not.toContain(CANARY_CARD_NUMBER.slice(0, 12));
  });

  it('removes echoes of a removed value elsewhere in the record', () => {
    const record = page().items[0] as unknown as Record<string, unknown>;
    record.notes = `customer read ${CANARY_CARD_NUMBER} over the phone`;
    const redacted = redactCardData({ items: [record] });
    expect(JSON.stringify(redacted)).not.toContain(CANARY_CARD_NUMBER);
    expect((redacted.items[0] as { notes: string }).notes).toBe('[REDACTED]');
  });

  it('keeps what the commerce domain shows: its card summary is the same as on the raw record', () => {
    const raw = page();
    const cached = redactCardData(page());
    raw.items.forEach((item, i) => {
      expect(redactTransaction(cached.items[i]).card).toEqual(redactTransaction(item).card);
    });
    expect(redactTransaction(cached.items[0]).card?.last4).toBe(CANARY_CARD_NUMBER.slice(-4));
  });
});
