/**
 * Card data redaction (docs/graph.md "Card data"): of a transaction's card, only the brand, the
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
 * summary can still be read from a cached answer; `presentTransaction` (transaction-presentation.ts)
 * takes the summary out and shows `raw` with the number fully redacted.
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

export type JsonObject = Record<string, unknown>;

/**
 * The key a child goes by, matched case-insensitively (as the record spells it), or undefined. A key
 * rather than a `{ key, value }` pair: it runs several times per record of every page, and the pairs
 * were garbage.
 */
export function keyOf(object: JsonObject, name: string): string | undefined {
  if (name in object) return name;
  const lower = lowerCase(name);
  for (const candidate in object) if (lowerCase(candidate) === lower) return candidate;
  return undefined;
}

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
    // for…in: no array of keys per object (a parsed JSON object has no inherited enumerables).
    for (const key in value) echoCandidatesIn(value[key], into);
  }
}

/** Whether a string of the record is one an echo is searched in (long enough, not redacted yet). */
const searched = (item: string, minLength: number): boolean =>
  item.length >= minLength && item !== REDACTED;

/** Every searched string inside a value, in order (`into` is reused from record to record). */
function collectSearched(value: unknown, minLength: number, into: string[]): void {
  if (typeof value === 'string') {
    if (searched(value, minLength)) into.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectSearched(item, minLength, into);
  } else if (isRecord(value)) {
    for (const name in value) collectSearched(value[name], minLength, into);
  }
}

/** The searched strings of the record being redacted. */
const searchedScratch: string[] = [];

/** Whether a searched string holds one of the echoes. */
function holdsEcho(item: string, echoes: readonly string[]): boolean {
  for (const echo of echoes) if (item.includes(echo)) return true;
  return false;
}

/** Replaces, in place, every searched string inside an object or array that holds an echo. */
function replaceEchoing(
  holder: Record<string | number, unknown>,
  minLength: number,
  echoes: readonly string[],
): void {
  if (Array.isArray(holder)) {
    for (let i = 0; i < holder.length; i += 1) {
      const item: unknown = holder[i];
      if (typeof item === 'string') {
        if (searched(item, minLength) && holdsEcho(item, echoes)) holder[i] = REDACTED;
      } else if (item !== null && typeof item === 'object') {
        replaceEchoing(item as Record<string | number, unknown>, minLength, echoes);
      }
    }
    return;
  }
  for (const name in holder) {
    const item = holder[name];
    if (typeof item === 'string') {
      if (searched(item, minLength) && holdsEcho(item, echoes)) holder[name] = REDACTED;
    } else if (item !== null && typeof item === 'object') {
      replaceEchoing(item as Record<string | number, unknown>, minLength, echoes);
    }
  }
}

/** The echoes found in the record being redacted. */
const foundScratch: string[] = [];

/**
 * Replaces, in place, every string of the record that contains a removed value. The long strings
 * are joined into one text (a NUL between two) and each echo searched for once in it; only when one
 * is found does a second walk find the strings holding it, looking for the echoes found alone. No
 * object per string: one per string (where it lay, to replace it) was most of a page's redaction.
 */
function scrubEchoes(record: JsonObject, echoes: readonly string[]): void {
  let minLength = Infinity;
  for (const echo of echoes) minLength = Math.min(minLength, echo.length);
  const strings = searchedScratch;
  strings.length = 0;
  collectSearched(record, minLength, strings);
  // Joined once (one flat copy), searched once per echo.
  const text = strings.join('\u0000');
  strings.length = 0;
  const found = foundScratch;
  found.length = 0;
  // A match across two strings (an echo holding a NUL) is no echo: the second walk tells.
  for (const echo of echoes) if (text.includes(echo)) found.push(echo);
  // An echo absent from the joined text is in none of its strings.
  if (found.length > 0) replaceEchoing(record, minLength, found);
  found.length = 0;
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
  for (const key in object) {
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

/**
 * What one record's redaction removed: reused from record to record (a redaction runs to its end
 * synchronously), not one array per record.
 */
const removedScratch: string[] = [];

/** The value of a record's child, matched case-insensitively (undefined when absent). */
function childOf(object: JsonObject, name: string): unknown {
  const key = keyOf(object, name);
  return key === undefined ? undefined : object[key];
}

/** Redacts one transaction record in place. */
function redactRecord(record: JsonObject): void {
  const removed = removedScratch;
  removed.length = 0;
  for (const [parentName, name] of CARD_OBJECTS) {
    const parent = childOf(record, parentName);
    if (!isRecord(parent)) continue;
    const key = keyOf(parent, name);
    const card = key === undefined ? undefined : parent[key];
    if (key === undefined || card === null) continue;
    if (isRecord(card)) {
      redactCard(card, KEPT_IN_CARD_OBJECTS.get(lowerCase(name))!, removed);
    } else if (card !== undefined) {
      echoCandidatesIn(card, removed);
      parent[key] = REDACTED;
    }
  }
  for (const [parentName, name] of DENIED_ELSEWHERE) {
    const parent = childOf(record, parentName);
    if (!isRecord(parent)) continue;
    const key = keyOf(parent, name);
    if (key === undefined || parent[key] == null) continue;
    echoCandidatesIn(parent[key], removed);
    parent[key] = REDACTED;
  }
  if (removed.length > 0) {
    scrubEchoes(record, echoesOf(removed));
  }
  removed.length = 0;
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
