/**
 * Makes a JSON value immutable and tells what it weighs on the heap — for the in-memory cache,
 * which hands the same object to every reader instead of a parsed copy of a stored string.
 *
 * Frozen, a shared answer cannot be changed by one request under another (a write throws in strict
 * code). The weight is an estimate of V8's own layout on 64-bit builds (a tagged field is 8 bytes),
 * so that the cache's byte bound bounds what the entries hold on the heap, not the length of the
 * text they came from. It errs high, never low, so that the bound holds on the heap too
 * (`npm run bench` prints the estimate against the heap used).
 */

/** Map, properties and elements pointers; each in-object property one more field. */
const OBJECT_HEADER = 24;
/** The JSArray (map, properties, elements, length) and its backing store's map and length. */
const ARRAY_HEADER = 48;
/** Map, hash and length. */
const STRING_HEADER = 16;
const FIELD = 8;
/** A number that does not fit a small integer lives in its own box. */
const HEAP_NUMBER = 16;

const aligned = (bytes: number): number => (bytes + 7) & ~7;

/** Two bytes per character once one is outside Latin-1. */
// eslint-disable-next-line no-control-regex -- the whole range outside Latin-1, by definition
const WIDE = /[^\u0000-\u00ff]/;

function stringBytes(text: string): number {
  return aligned(STRING_HEADER + (WIDE.test(text) ? 2 * text.length : text.length));
}

const isSmallInteger = (n: number): boolean =>
  Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;

/** Freezes `value` and everything it holds; returns its estimated heap bytes. */
export function freezeDeep(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      return isSmallInteger(value) ? 0 : HEAP_NUMBER;
    case 'object':
      break;
    default:
      return 0; // booleans, undefined: shared constants
  }
  if (value === null) return 0;
  let bytes: number;
  if (Array.isArray(value)) {
    bytes = ARRAY_HEADER + FIELD * value.length;
    for (const item of value) bytes += freezeDeep(item);
  } else {
    const record = value as Record<string, unknown>;
    bytes = OBJECT_HEADER;
    for (const key in record) bytes += FIELD + freezeDeep(record[key]);
  }
  Object.freeze(value);
  return bytes;
}

/**
 * A private, changeable copy of a frozen JSON value (a value not frozen is returned as it is): for
 * code that annotates what it is given, such as stitching's merging of subgraph results.
 */
export function thawed<T>(value: T): T {
  return Object.isFrozen(value) ? structuredClone(value) : value;
}
