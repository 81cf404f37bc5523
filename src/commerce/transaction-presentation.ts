/**
 * A redacted transaction record as the graph shows it (docs/graph.md "Card data"): the card
 * summary (brand, last four, expiry, entry method) and the `raw` view, in which even the truncated
 * number that stays at rest reads {@link REDACTED}. The redaction itself runs earlier, in the
 * upstream stack (`card-redaction.ts`); this file only reads what it left.
 */

import { isRecord } from '../kit/is-record.ts';
import { keyOf, REDACTED, redactTransactionRecord, type JsonObject } from './card-redaction.ts';

/** The card as the graph shows it. */
export interface CardSummary {
  readonly brand: string | null;
  readonly last4: string | null;
  readonly expMonth: number | null;
  readonly expYear: number | null;
  readonly entryMethod: string | null;
}

/** A transaction as the domain holds it: the record for `raw`, and its card. */
export interface RedactedTransaction {
  readonly record: Readonly<Record<string, unknown>>;
  readonly card: CardSummary | null;
  /**
   * The redacted record as the upstream stack holds it (the card number truncated, not removed):
   * for reading its other fields without copying it; only `record` and `card` show the card.
   */
  readonly fields: Readonly<Record<string, unknown>>;
}

const valueAt = (object: unknown, path: readonly string[]): unknown => {
  let current = object;
  for (const name of path) {
    if (!isRecord(current)) return undefined;
    const key = keyOf(current, name);
    current = key === undefined ? undefined : current[key];
  }
  return current;
};

const stringAt = (object: unknown, ...path: string[]): string | null => {
  const value = valueAt(object, path);
  return typeof value === 'string' ? value : null;
};

const intAt = (object: unknown, ...path: string[]): number | null => {
  const value = valueAt(object, path);
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
};

/** Brand, last four, expiry, entry method; null when the record has no card detail. */
function cardSummary(record: JsonObject): CardSummary | null {
  const detail = valueAt(record, ['fundingSource', 'cardDetail']);
  if (!isRecord(detail)) return null;
  const number = stringAt(detail, 'number')?.replace(/[\s-]/g, '');
  return {
    brand: stringAt(detail, 'type'),
    // A truncated number has meaningful last four; an encrypted or redacted one does not.
    last4: number && /^[\d*Xx•]{8,15}\d{4}$/.test(number) ? number.slice(-4) : null,
    expMonth: intAt(detail, 'expMonth'),
    expYear: intAt(detail, 'expYear'),
    entryMethod: stringAt(detail, 'entryDetails', 'entryMethod'),
  };
}

/** The `raw` view of a redacted record: the truncated number too reads {@link REDACTED}. */
function rawView(redacted: JsonObject): JsonObject {
  const fundingKey = keyOf(redacted, 'fundingSource');
  const funding = fundingKey === undefined ? undefined : redacted[fundingKey];
  if (fundingKey === undefined || !isRecord(funding)) return redacted;
  const detailKey = keyOf(funding, 'cardDetail');
  const detail = detailKey === undefined ? undefined : funding[detailKey];
  if (detailKey === undefined || !isRecord(detail)) return redacted;
  const numberKey = keyOf(detail, 'number');
  if (numberKey === undefined || detail[numberKey] == null) return redacted;
  return {
    ...redacted,
    [fundingKey]: { ...funding, [detailKey]: { ...detail, [numberKey]: REDACTED } },
  };
}

/**
 * A transaction as the graph shows it, worked out when first read: most screens select neither the
 * card nor `raw`, and a page's ten copies and summaries were garbage on every read.
 */
class ShownTransaction implements RedactedTransaction {
  readonly fields: JsonObject;
  #record: JsonObject | undefined;
  #card: CardSummary | null | undefined;

  constructor(redacted: JsonObject) {
    this.fields = redacted;
  }

  get record(): JsonObject {
    return (this.#record ??= rawView(this.fields));
  }

  get card(): CardSummary | null {
    if (this.#card === undefined) this.#card = cardSummary(this.fields);
    return this.#card;
  }
}

/**
 * A redacted record (one {@link redactTransactionPage} has seen) as the graph shows it: its card summary,
 * and a `raw` view in which even the truncated number reads {@link REDACTED} (copied along that
 * path only; the cached record is not changed). Both are worked out on first read.
 */
export function presentTransaction(redacted: unknown): RedactedTransaction {
  return new ShownTransaction(isRecord(redacted) ? redacted : {});
}

/** Redaction and presentation of one upstream record, on a copy (for callers outside the stack). */
export const redactTransaction = (input: unknown): RedactedTransaction =>
  presentTransaction(redactTransactionRecord(structuredClone(input)));
