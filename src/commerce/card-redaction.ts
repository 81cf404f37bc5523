/**
 * Card data redaction (docs/commerce.md "Card data"): of a transaction's card, only the brand, the
 * last four digits, the expiry month and year and the entry method are kept — anywhere: in a field,
 * in `raw`, in a log, an error or a cache entry. Card numbers and their hashes, track data, PIN
 * blocks, CV data, 3-D Secure cryptograms, EMV tags, key serial numbers, cardholder names and the
 * billing address never leave the upstream answer.
 *
 * An allow-list, not a deny-list: inside `fundingSource.cardDetail` and
 * `fundingSource.cardVerificationData` every value but the kept ones becomes {@link REDACTED}
 * (keys compare case-insensitively, so a field the upstream adds or re-cases is redacted too), as
 * do the processor's EMV tags; a removed value found anywhere else in the record (a number copied
 * into `notes`) is redacted as well.
 *
 * One redaction, declared on the transaction routes (`commerce.upstream-routes.ts`): the upstream stack runs
 * {@link redactTransactionPage} (or `…Record`) on every answer the moment it is parsed, before the
 * cache stores it (memory or Redis) and before any loader, resolver or mapper sees it. What stays of
 * the card number at rest is its last four digits behind `*` (a truncated PAN), so that the card
 * summary can still be read from a cached answer; {@link presentTransaction} takes the summary out
 * and shows `raw` with the number fully redacted.
 */

import { isRecord } from '../kit/is-record.ts';

/** The card objects redacted by allow-list, from the transaction root. */
const CARD_OBJECTS = [
  ['fundingSource', 'cardDetail'],
  ['fundingSource', 'cardVerificationData'],
] as const;

/** What happens to a value inside a card object, by its lower-cased key. */
const KEEP = 'keep';
/** The card number: truncated to its last four digits. */
const TRUNCATE = 'truncate';
type KeptShape = ReadonlyMap<string, typeof KEEP | typeof TRUNCATE | KeptShape>;

/**
 * What is kept of each card object, by lower-cased key (the number only truncated); an object named
 * here is walked, anything not named goes whole (EMV tags, the address).
 */
const KEPT_IN_CARD_OBJECTS: ReadonlyMap<string, KeptShape> = new Map([
  [
    'carddetail',
    new Map<string, typeof KEEP | typeof TRUNCATE | KeptShape>([
      ['type', KEEP],
      ['expmonth', KEEP],
      ['expyear', KEEP],
      ['entrydetails', new Map([['entrymethod', KEEP]])],
      ['number', TRUNCATE],
    ]),
  ],
  ['cardverificationdata', new Map()],
]);

/**
 * Lower-cased keys, remembered: a redaction reads the same few dozen keys on every record, and
 * lower-casing one that has capitals makes a new string each time. Bounded, for an upstream that
 * invents keys.
 */
const lowerCaseKeys = new Map<string, string>();
function lowerCase(key: string): string {
  let lowered = lowerCaseKeys.get(key);
  if (lowered === undefined) {
    lowered = key.toLowerCase();
    if (lowerCaseKeys.size < 1_024) lowerCaseKeys.set(key, lowered);
  }
  return lowered;
}

/** Outside the card objects: the processor's EMV tags (they carry the PAN and track data). */
const DENIED_ELSEWHERE = [['processorResponse', 'emvTags']] as const;

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

/** A transaction as the domain holds it: the record for `raw`, and its card. */
export interface RedactedTransaction {
  readonly record: Readonly<Record<string, unknown>>;
  readonly card: CardSummary | null;
}

type JsonObject = Record<string, unknown>;

/** A child by name, case-insensitively (the key as the record spells it, too). */
function child(object: JsonObject, name: string): { key: string; value: unknown } | undefined {
  if (name in object) return { key: name, value: object[name] };
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === lower);
  return key === undefined ? undefined : { key, value: object[key] };
}

const valueAt = (object: unknown, path: readonly string[]): unknown => {
  let current = object;
  for (const name of path) current = isRecord(current) ? child(current, name)?.value : undefined;
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

/** `4111 1111 1111 1111` → `************1111`; anything that is not a clear number → REDACTED. */
function truncatedNumber(value: string): string {
  const digits = value.replace(/[\s-]/g, '');
  if (/^\d{12,19}$/.test(digits)) return `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`;
  // Already truncated by the upstream (`************1111`): keep it, it holds nothing more.
  return /^[*Xx•]{8,15}\d{4}$/.test(digits) ? digits : REDACTED;
}

/** Every string inside a value long enough to be searched for elsewhere (what was removed). */
function echoCandidatesIn(value: unknown, into: string[]): void {
  if (typeof value === 'string') {
    if (value.length >= MIN_ECHO_LENGTH && value !== REDACTED) into.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) echoCandidatesIn(item, into);
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) echoCandidatesIn(value[key], into);
  }
}

/** A string of the record, where it sits (to replace it) and where it lies in the joined text. */
interface StringSlot {
  readonly value: string;
  readonly holder: Record<string | number, unknown>;
  readonly key: string | number;
  readonly start: number;
  readonly end: number;
}

/** Every string of the record at least `minLength` long (and not already REDACTED), in order. */
function longStringSlots(record: JsonObject, minLength: number): StringSlot[] {
  const slots: StringSlot[] = [];
  let offset = 0;
  const visit = (holder: StringSlot['holder'], key: string | number, item: unknown): void => {
    if (typeof item === 'string') {
      if (item.length >= minLength && item !== REDACTED) {
        slots.push({ value: item, holder, key, start: offset, end: offset + item.length });
        offset += item.length + 1;
      }
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i += 1)
        visit(item as unknown as StringSlot['holder'], i, item[i]);
    } else if (isRecord(item)) {
      // for…in: no array of keys per object (a parsed JSON object has no inherited enumerables).
      for (const name in item) visit(item, name, item[name]);
    }
  };
  for (const name in record) visit(record, name, record[name]);
  return slots;
}

/** The slot holding text position `position` (slots are in order of `start`). */
function slotAt(slots: readonly StringSlot[], position: number): StringSlot {
  let low = 0;
  let high = slots.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (slots[middle]!.start <= position) low = middle;
    else high = middle - 1;
  }
  return slots[low]!;
}

/**
 * Replaces, in place, every string of the record that contains a removed value. One walk collects
 * the long strings and joins them (a NUL between two); then one search per echo runs over that
 * text, and each match names the string it lies in. One search per echo and string, or a second
 * walk to replace, was most of a page's redaction.
 */
function scrubEchoes(record: JsonObject, echoes: readonly string[]): void {
  const slots = longStringSlots(record, Math.min(...echoes.map((echo) => echo.length)));
  if (slots.length === 0) return;
  const text = slots.map((slot) => slot.value).join('\u0000');
  const echoing = new Set<StringSlot>();
  for (const secret of echoes) {
    for (let at = text.indexOf(secret); at !== -1;) {
      const slot = slotAt(slots, at);
      // A match across two strings (an echo holding a NUL) is no echo: search on past its start.
      if (at + secret.length <= slot.end) {
        echoing.add(slot);
        at = text.indexOf(secret, slot.end + 1);
      } else {
        at = text.indexOf(secret, at + 1);
      }
    }
  }
  for (const slot of echoing) slot.holder[slot.key] = REDACTED;
}

/** Card numbers and track data are written with spaces or dashes as often as without. */
const HAS_SEPARATORS = /[\s-]/;
const SEPARATORS = /[\s-]/g;

/**
 * The removed values worth searching for: those long enough not to match by chance (the
 * candidates already are), each also as bare digits when written with spaces or dashes.
 */
function echoesOf(removed: readonly string[]): string[] {
  const echoes: string[] = [];
  const add = (echo: string) => {
    if (!echoes.includes(echo)) echoes.push(echo);
  };
  for (const text of removed) {
    add(text);
    if (!HAS_SEPARATORS.test(text)) continue;
    const compact = text.replace(SEPARATORS, '');
    if (compact.length >= MIN_ECHO_LENGTH && compact !== REDACTED) add(compact);
  }
  return echoes;
}

/** Redacts, in place, every leaf of a card object that is not kept; remembers what went. */
function redactCard(object: JsonObject, kept: KeptShape, removed: string[]): void {
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (value === null || value === undefined) continue;
    const rule = kept.get(lowerCase(key));
    if (rule === KEEP) continue;
    // An object holding a kept value is walked; any other goes whole (EMV tags, the address).
    if (rule instanceof Map) {
      if (isRecord(value)) {
        redactCard(value, rule, removed);
        continue;
      }
    } else if (rule === TRUNCATE && typeof value === 'string') {
      const truncated = truncatedNumber(value);
      // A number the upstream already truncated is kept as it is, so it is no secret to search for.
      if (truncated !== value.replace(SEPARATORS, '') && value.length >= MIN_ECHO_LENGTH) {
        removed.push(value);
      }
      object[key] = truncated;
      continue;
    }
    if (value !== REDACTED) echoCandidatesIn(value, removed);
    object[key] = REDACTED;
  }
}

/** Redacts one transaction record in place. */
function redactRecord(record: JsonObject): void {
  const removed: string[] = [];
  for (const [parentName, name] of CARD_OBJECTS) {
    const parent = valueAt(record, [parentName]);
    const card = isRecord(parent) ? child(parent, name) : undefined;
    if (!isRecord(parent) || card === undefined || card.value === null) continue;
    if (isRecord(card.value)) {
      redactCard(card.value, KEPT_IN_CARD_OBJECTS.get(name.toLowerCase())!, removed);
    } else if (card.value !== undefined) {
      echoCandidatesIn(card.value, removed);
      parent[card.key] = REDACTED;
    }
  }
  for (const [parentName, name] of DENIED_ELSEWHERE) {
    const parent = valueAt(record, [parentName]);
    const target = isRecord(parent) ? child(parent, name) : undefined;
    if (!isRecord(parent) || target === undefined || target.value == null) continue;
    echoCandidatesIn(target.value, removed);
    parent[target.key] = REDACTED;
  }
  if (removed.length > 0) {
    scrubEchoes(record, echoesOf(removed));
  }
}

/** The transaction list route's redaction: every record of `items`, in place. */
export function redactTransactionPage(answer: unknown): unknown {
  if (isRecord(answer) && Array.isArray(answer.items)) {
    for (const item of answer.items) if (isRecord(item)) redactRecord(item);
  }
  return answer;
}

/** The single-transaction route's redaction, in place. */
export function redactTransactionRecord(answer: unknown): unknown {
  if (isRecord(answer)) redactRecord(answer);
  return answer;
}

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

/**
 * A redacted record (one {@link redactTransactionPage} has seen) as the graph shows it: its card summary,
 * and a `raw` view in which even the truncated number reads {@link REDACTED} (copied along that
 * path only; the cached record is not changed).
 */
export function presentTransaction(redacted: unknown): RedactedTransaction {
  if (!isRecord(redacted)) return { record: {}, card: null };
  const card = cardSummary(redacted);
  const funding = child(redacted, 'fundingSource');
  const detail = isRecord(funding?.value) ? child(funding.value, 'cardDetail') : undefined;
  const number = isRecord(detail?.value) ? child(detail.value, 'number') : undefined;
  if (!funding || !detail || !number || number.value === null || number.value === undefined) {
    return { record: redacted, card };
  }
  const record = {
    ...redacted,
    [funding.key]: {
      ...(funding.value as JsonObject),
      [detail.key]: { ...(detail.value as JsonObject), [number.key]: REDACTED },
    },
  };
  return { record, card };
}

/** Redaction and presentation of one upstream record, on a copy (for callers outside the stack). */
export const redactTransaction = (input: unknown): RedactedTransaction =>
  presentTransaction(redactTransactionRecord(structuredClone(input)));
