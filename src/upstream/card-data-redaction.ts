/**
 * Card data never leaves the gateway (docs/commerce.md "Card data") and never reaches the
 * cache or Redis either: transaction answers pass through {@link redactCardData} before they are
 * stored and before the domain sees them, so a cached answer and a fresh one look the same.
 *
 * What goes (commerce document, cardDetail / cardVerificationData): track 1–3 data, the PIN block,
 * CV data, the 3-D Secure cryptogram, the Interac MAC, the EMV tags that carry the PAN or track
 * data, and the card number — which keeps only its last four digits behind zeros, so that the
 * domain's own redaction (src/commerce/card-redaction.ts) still reads the same last four. Any other
 * string that contains a removed value (a number copied into `notes`) is replaced as a whole.
 * Brand, expiry, entry method and the rest stay for the domain to decide on.
 */

/** EMV tags that hold the PAN or track-equivalent data. */
const SENSITIVE_EMV_TAGS = new Set(['56', '57', '5A', '9F1F', '9F20', '9F6B']);

/** Keys whose value is dropped wherever they appear. */
const DROPPED = new Set([
  'track1data',
  'track2data',
  'track3data',
  'cardpin',
  'cvdata',
  'cryptogram',
  'interacmac',
]);

/** What an echoed secret is replaced by (the domain's redaction uses the same marker). */
export const CARD_DATA_REDACTED = '[REDACTED]';

/** Shorter removed values (a 3-digit CVV) would match unrelated text by chance. */
const MIN_ECHO_LENGTH = 8;

const remember = (value: unknown, removed: string[]): void => {
  if (typeof value === 'string' && value.length > 0) {
    removed.push(value, value.replace(/[\s-]/g, ''));
  }
};

/** `4111 1111 1111 1111` → `0000000000001111`: the last four, nothing of the rest. */
function maskNumber(value: unknown, removed: string[]): unknown {
  if (typeof value !== 'string') return value;
  remember(value, removed);
  const digits = value.replace(/[\s-]/g, '');
  return /^\d{12,19}$/.test(digits) ? `${'0'.repeat(digits.length - 4)}${digits.slice(-4)}` : null;
}

function removeIn(value: unknown, parentKey: string | undefined, removed: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) removeIn(item, parentKey, removed);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const lower = key.toLowerCase();
    if (DROPPED.has(lower)) {
      remember(record[key], removed);
      if (record[key] !== null && record[key] !== undefined) record[key] = null;
    } else if (lower === 'number' && parentKey === 'carddetail') {
      record[key] = maskNumber(record[key], removed);
    } else if (lower === 'emvtags' && typeof record[key] === 'object' && record[key] !== null) {
      const tags = record[key] as Record<string, unknown>;
      for (const tag of Object.keys(tags)) {
        if (SENSITIVE_EMV_TAGS.has(tag.toUpperCase())) {
          remember(tags[tag], removed);
          delete tags[tag];
        }
      }
    } else {
      removeIn(record[key], lower, removed);
    }
  }
}

function scrubEchoes(value: unknown, echoes: readonly string[]): unknown {
  if (typeof value === 'string') {
    return echoes.some((secret) => value.includes(secret)) ? CARD_DATA_REDACTED : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = scrubEchoes(value[i], echoes);
    return value;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = scrubEchoes(record[key], echoes);
  }
  return value;
}

/** Removes card data from a transaction answer (in place: it is the gateway's own parsed copy). */
export function redactCardData<T>(data: T): T {
  const removed: string[] = [];
  removeIn(data, undefined, removed);
  const echoes = [...new Set(removed)].filter((text) => text.length >= MIN_ECHO_LENGTH);
  if (echoes.length > 0) scrubEchoes(data, echoes);
  return data;
}
