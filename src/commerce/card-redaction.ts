/**
 * Card data redaction (docs/commerce.md "Card data"): card numbers, track data, PIN
 * blocks, CV data, 3-D Secure cryptograms, EMV tags and key serial numbers never leave the gateway —
 * not in a field, not in `raw`, not in a log, an error or a cache entry. The transactions API calls
 * {@link redactTransaction} on every record the moment the upstream answer arrives, so no loader,
 * resolver or mapper ever holds the sensitive values; the card summary (brand, last four, expiry,
 * entry method) is taken out first.
 */

/**
 * Paths from the transaction root whose values are replaced by {@link REDACTED}: an explicit deny
 * list over the fields the commerce document names (keys compare case-insensitively, in case the
 * upstream's casing drifts). Cardholder names and the PAN sequence number go too: the card shows
 * brand, last four, expiry and entry method only.
 */
export const CARD_DENY_LIST: readonly string[] = [
  'fundingSource.cardDetail.number',
  'fundingSource.cardDetail.numberHashed',
  'fundingSource.cardDetail.track1data',
  'fundingSource.cardDetail.track2data',
  'fundingSource.cardDetail.track3data',
  'fundingSource.cardDetail.serviceCode',
  'fundingSource.cardDetail.sequenceNumber',
  'fundingSource.cardDetail.keySerialNumber',
  'fundingSource.cardDetail.emvTags',
  'fundingSource.cardDetail.interacMacDetail',
  'fundingSource.cardDetail.legacyData',
  'fundingSource.cardDetail.firstName',
  'fundingSource.cardDetail.lastName',
  'fundingSource.cardVerificationData.cardPin',
  'fundingSource.cardVerificationData.cardPinKeySerialNumber',
  'fundingSource.cardVerificationData.cvData',
  'fundingSource.cardVerificationData.threeDSecureData.cryptogram',
  'processorResponse.emvTags',
];

/** What a redacted value becomes (present values only; null stays null). */
export const REDACTED = '[REDACTED]';

/**
 * Removed values at least this long are also searched for everywhere else in the record (a card
 * number copied into `notes` or a legacy field); shorter ones (a 3-digit CVV) would match by chance.
 */
const MIN_ECHO_LENGTH = 8;

/** The card as the graph shows it. */
export interface CardSummary {
  readonly brand: string | null;
  readonly last4: string | null;
  readonly expMonth: number | null;
  readonly expYear: number | null;
  readonly entryMethod: string | null;
}

/** A transaction record after redaction, with its card summary. */
export interface RedactedTransaction {
  readonly record: Readonly<Record<string, unknown>>;
  readonly card: CardSummary | null;
}

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A child by name, case-insensitively (the key as the record spells it, too). */
function child(object: JsonObject, name: string): { key: string; value: unknown } | undefined {
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === lower);
  return key === undefined ? undefined : { key, value: object[key] };
}

const stringAt = (object: unknown, ...path: string[]): string | null => {
  let current = object;
  for (const name of path) current = isObject(current) ? child(current, name)?.value : undefined;
  return typeof current === 'string' ? current : null;
};

const intAt = (object: unknown, ...path: string[]): number | null => {
  let current = object;
  for (const name of path) current = isObject(current) ? child(current, name)?.value : undefined;
  return typeof current === 'number' && Number.isInteger(current) ? current : null;
};

/** Brand, last four, expiry, entry method; null when the record has no card detail. */
function cardSummary(record: JsonObject): CardSummary | null {
  const detail = isObject(record.fundingSource)
    ? child(record.fundingSource, 'cardDetail')?.value
    : undefined;
  if (!isObject(detail)) return null;
  const number = stringAt(detail, 'number')?.replace(/[\s-]/g, '');
  return {
    brand: stringAt(detail, 'type'),
    // A clear-text number, or one masked but for its last four (`************1111`), has meaningful
    // last four; an encrypted one does not.
    last4: number && /^[\d*Xx•]{8,15}\d{4}$/.test(number) ? number.slice(-4) : null,
    expMonth: intAt(detail, 'expMonth'),
    expYear: intAt(detail, 'expYear'),
    entryMethod: stringAt(detail, 'entryDetails', 'entryMethod'),
  };
}

/** Every string inside a value (to remember what was removed). */
function stringsIn(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((item) => stringsIn(item, into));
  else if (isObject(value)) Object.values(value).forEach((item) => stringsIn(item, into));
}

/** Deep copy of a JSON value in which any string containing a removed value is redacted. */
function scrubEchoes(value: unknown, removed: readonly string[]): unknown {
  if (typeof value === 'string') {
    return removed.some((secret) => value.includes(secret)) ? REDACTED : value;
  }
  if (Array.isArray(value)) return value.map((item) => scrubEchoes(item, removed));
  if (isObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, scrubEchoes(item, removed)]),
    );
  }
  return value;
}

/**
 * Redacts one upstream transaction record. Returns a new object; the input is not used afterwards
 * by the caller (the API drops it).
 */
export function redactTransaction(input: unknown): RedactedTransaction {
  if (!isObject(input)) return { record: {}, card: null };
  const card = cardSummary(input);
  const record = structuredClone(input);
  const removed: string[] = [];
  for (const path of CARD_DENY_LIST) {
    const names = path.split('.');
    let parent: unknown = record;
    for (const name of names.slice(0, -1)) {
      parent = isObject(parent) ? child(parent, name)?.value : undefined;
    }
    if (!isObject(parent)) continue;
    const target = child(parent, names.at(-1) as string);
    if (target === undefined || target.value === null) continue;
    stringsIn(target.value, removed);
    parent[target.key] = REDACTED;
  }
  // A number written with spaces or dashes is also searched for as bare digits.
  const compact = removed.map((text) => text.replace(/[\s-]/g, ''));
  const echoes = [...new Set([...removed, ...compact])].filter(
    (text) => text.length >= MIN_ECHO_LENGTH && text !== REDACTED,
  );
  return {
    record: echoes.length > 0 ? (scrubEchoes(record, echoes) as JsonObject) : record,
    card,
  };
}
