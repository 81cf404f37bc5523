import { describe, expect, it } from 'vitest';
import { redactTransactionRecord, REDACTED } from '../../../src/commerce/card-redaction.ts';
import {
  presentTransaction,
  redactTransaction,
} from '../../../src/commerce/transaction-presentation.ts';
import { formatMinorUnits, toMoney } from '../../../src/commerce/commerce.mappers.ts';
import {
  CANARY_CARD_NUMBER,
  CANARY_VALUES,
} from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { generateTransactions } from '../../../src/simulator/fixtures/transactions.fixtures.ts';

const [canary, ...others] = generateTransactions({
  storeId: '11111111-1111-4111-8111-111111111111',
  label: 'unit',
  count: 40,
  until: Date.UTC(2026, 0, 31),
  spacingMs: 3_600_000,
  channels: [
    { channelId: 'c-pos', type: 'POS' },
    { channelId: 'c-web', type: 'ONLINE' },
  ],
  currencies: ['USD', 'JPY', 'KWD'],
  canary: true,
});

describe('redactTransaction', () => {
  it('keeps brand, last four, expiry and entry method, and nothing sensitive', () => {
    const { record, card } = redactTransaction(canary);
    expect(card).toEqual({
      brand: 'VISA',
      last4: '1111',
      expMonth: canary!.fundingSource.cardDetail.expMonth,
      expYear: canary!.fundingSource.cardDetail.expYear,
      entryMethod: 'SWIPE',
    });
    const text = JSON.stringify(record);
    for (const value of CANARY_VALUES) expect(text).not.toContain(value);
    expect(text).not.toContain('CANARY');
    expect(record.transactionId).toBe(canary!.transactionId);
  });

  it('redacts every card of generated transactions (keyed, chip, Interac)', () => {
    for (const transaction of others) {
      const { record } = redactTransaction(transaction);
      const text = JSON.stringify(record);
      const detail = transaction.fundingSource.cardDetail;
      const verification = transaction.fundingSource.cardVerificationData;
      for (const secret of [
        detail.number,
        detail.track1data,
        detail.track2data,
        detail.keySerialNumber,
        detail.interacMacDetail.interacMac,
        verification.cardPin,
        verification.cardPinKeySerialNumber,
        verification.threeDSecureData.cryptogram,
      ]) {
        if (secret) expect(text).not.toContain(secret);
      }
      expect(text).not.toContain('"9F26"');
    }
  });

  it('also removes a card number echoed elsewhere in the record', () => {
    const echoed = structuredClone(canary!);
    echoed.notes = `customer read out ${CANARY_CARD_NUMBER} on the phone`;
    const { record } = redactTransaction(echoed);
    expect(record.notes).toBe(REDACTED);
  });

  it('finds an echo written without the separators of the card field, deep in another field', () => {
    const echoed = structuredClone(canary!) as typeof canary & Record<string, unknown>;
    echoed.fundingSource.cardDetail.number = '4111 1111 1111 1111';
    echoed.legacy = {
      lines: ['ok', { text: 'pan 4111111111111111 seen' }],
      code: 4111111111111111,
    };
    const { record, card } = redactTransaction(echoed);
    expect(card?.last4).toBe('1111');
    expect(record.legacy).toEqual({ lines: ['ok', { text: REDACTED }], code: 4111111111111111 });
  });

  it('finds an echo of a value JSON would escape (quotes, backslashes, line breaks, emoji)', () => {
    for (const odd of [
      'Jo "Ace" O\'Neil',
      'C:\\cards\\7319',
      'line one\nline two',
      'card 🃏 holder',
    ]) {
      const echoed = structuredClone(canary!) as typeof canary & Record<string, unknown>;
      (echoed.fundingSource.cardDetail as unknown as Record<string, unknown>).firstName = odd;
      echoed.notes = `signed by ${odd} at the till`;
      const { record } = redactTransaction(echoed);
      expect(record.notes, odd).toBe(REDACTED);
    }
  });

  it('removes every string that echoes, however many echo and whichever value they echo', () => {
    const echoed = structuredClone(canary!) as typeof canary & Record<string, unknown>;
    const cvv = (echoed.fundingSource.cardVerificationData as unknown as Record<string, unknown>)
      .cvData;
    echoed.notes = `cvv ${String(cvv)}`;
    echoed.legacy = [
      `${CANARY_CARD_NUMBER} twice ${CANARY_CARD_NUMBER}`,
      'nothing secret in this one',
      `again ${CANARY_CARD_NUMBER}`,
    ];
    const { record } = redactTransaction(echoed);
    expect(record.notes).toBe(REDACTED);
    expect(record.legacy).toEqual([REDACTED, 'nothing secret in this one', REDACTED]);
  });

  it('finds a removed value holding a NUL only inside one string, never across two', () => {
    const secret = 'ABCDEFGH\u0000IJKL';
    const withNul = (...strings: string[]) => {
      const record = structuredClone(canary!) as typeof canary & Record<string, unknown>;
      (record.fundingSource.cardDetail as unknown as Record<string, unknown>).firstName = secret;
      record.legacy = strings;
      return redactTransaction(record).record.legacy;
    };
    // Joined with a NUL, these two would read as the secret.
    expect(withNul('xx ABCDEFGH', 'IJKL yy')).toEqual(['xx ABCDEFGH', 'IJKL yy']);
    expect(withNul('xx ABCDEFGH', `in ${secret} here`)).toEqual(['xx ABCDEFGH', REDACTED]);
  });

  it('leaves every other string of a record that echoes nothing as it was', () => {
    const plain = structuredClone(others[0]!) as (typeof others)[number] & Record<string, unknown>;
    plain.notes = 'a note long enough to be searched';
    const { record } = redactTransaction(plain);
    expect(record.notes).toBe(plain.notes);
    expect(record.transactionId).toBe(plain.transactionId);
    expect(record.createdAt).toBe(plain.createdAt);
  });

  it('reads card keys case-insensitively, whatever the upstream spells them', () => {
    const recased = {
      transactionId: 't-1',
      FundingSource: {
        CARDDETAIL: {
          Number: '4111111111111111',
          TYPE: 'VISA',
          ExpMonth: 9,
          expyear: 2030,
          EntryDetails: { EntryMethod: 'SWIPE', iccFallback: true },
          TRACK2DATA: ';4111111111111111=2912101?',
        },
      },
    };
    const { record, card } = redactTransaction(recased);
    const detail = (record.FundingSource as { CARDDETAIL: Record<string, unknown> }).CARDDETAIL;
    expect(detail).toEqual({
      Number: REDACTED,
      TYPE: 'VISA',
      ExpMonth: 9,
      expyear: 2030,
      EntryDetails: { EntryMethod: 'SWIPE', iccFallback: REDACTED },
      TRACK2DATA: REDACTED,
    });
    expect(card).toEqual({
      brand: 'VISA',
      last4: '1111',
      expMonth: 9,
      expYear: 2030,
      entryMethod: 'SWIPE',
    });
  });

  it('reads last four from a number another layer already masked', () => {
    const masked = structuredClone(canary!);
    masked.fundingSource.cardDetail.number = '************1111';
    expect(redactTransaction(masked).card?.last4).toBe('1111');
  });
});

describe('presentTransaction', () => {
  it('reads the card only when the card or the raw view is asked for', () => {
    const held = redactTransactionRecord(structuredClone(canary!)) as Record<string, unknown>;
    const funding = held.fundingSource;
    let cardReads = 0;
    Object.defineProperty(held, 'fundingSource', {
      enumerable: true,
      get: () => {
        cardReads += 1;
        return funding;
      },
    });
    const shown = presentTransaction(held);
    expect(cardReads).toBe(0);
    expect(shown.fields).toBe(held);
    expect(shown.fields.transactionId).toBe(canary!.transactionId);
    expect(cardReads).toBe(0);
    expect(shown.card?.last4).toBe('1111');
    expect(cardReads).toBeGreaterThan(0);
  });

  it('shows the number redacted in the raw view, once, and leaves the held record as it was', () => {
    const held = redactTransactionRecord(structuredClone(canary!)) as NonNullable<typeof canary>;
    const shown = presentTransaction(held);
    const raw = shown.record as unknown as NonNullable<typeof canary>;
    expect(raw.fundingSource.cardDetail.number).toBe(REDACTED);
    expect(shown.record).toBe(raw);
    expect(held.fundingSource.cardDetail.number).toBe('************1111');
  });
});

describe('money', () => {
  it.each([
    [1999, 'USD', '19.99'],
    [5, 'EUR', '0.05'],
    [-1999, 'USD', '-19.99'],
    [1999, 'JPY', '1999'],
    [1999, 'KWD', '1.999'],
    [7, 'KWD', '0.007'],
    [0, 'USD', '0.00'],
  ])('%i %s is %s', (amount, currency, formatted) => {
    expect(formatMinorUnits(amount, currency)).toBe(formatted);
  });

  it('maps an upstream amount and rejects a broken one', () => {
    expect(toMoney({ amount: 1999, currency: 'USD', amountType: 'TOTAL' })).toEqual({
      amount: 1999,
      currency: 'USD',
      formatted: '19.99',
    });
    expect(toMoney({ amount: 19.99, currency: 'USD' })).toBeNull();
    expect(toMoney(null)).toBeNull();
  });
});
