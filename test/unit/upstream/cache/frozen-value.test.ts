/** Frozen cache values: immutable all the way down, weighed like V8 lays them out, thawed on demand. */
import { describe, expect, it } from 'vitest';
import { freezeDeep, thawed } from '../../../../src/upstream/cache/frozen-value.ts';

describe('freezeDeep', () => {
  it('freezes every object and array inside the value', () => {
    const value = { a: [{ b: 'x' }, [1, 2]], c: { d: null } };
    freezeDeep(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a[0])).toBe(true);
    expect(Object.isFrozen(value.a[1])).toBe(true);
    expect(Object.isFrozen(value.c)).toBe(true);
  });

  it('weighs strings by their characters (two bytes each outside Latin-1), boxes and fields', () => {
    expect(freezeDeep('x'.repeat(100))).toBe(120); // header 16 + 100, aligned to 8
    expect(freezeDeep('€'.repeat(100))).toBe(216); // two bytes a character
    expect(freezeDeep(7)).toBe(0); // a small integer lives in its field
    expect(freezeDeep(0.5)).toBe(16); // a double has its own box
    expect(freezeDeep(true)).toBe(0);
    expect(freezeDeep(null)).toBe(0);
    expect(freezeDeep({ a: 1, b: 2 })).toBe(24 + 2 * 8);
    expect(freezeDeep([1, 2, 3])).toBe(48 + 3 * 8);
    // A record nests its parts' weights: 24 + field + ("abc": 16 + 3 → 24).
    expect(freezeDeep({ s: 'abc' })).toBe(24 + 8 + 24);
  });

  it('weighs a parsed answer above its JSON text (npm run bench checks it against the heap)', () => {
    const text = JSON.stringify(
      Array.from({ length: 50 }, (_, i) => ({
        id: `tx-${i}`,
        amount: { amount: i * 1.25, currency: 'EUR' },
        createdAt: '2026-01-01T00:00:00Z',
      })),
    );
    // Never below the text's own bytes: the bound must not let the heap outgrow it.
    expect(freezeDeep(JSON.parse(text))).toBeGreaterThan(text.length);
  });
});

describe('thawed', () => {
  it('copies a frozen value into one that may be changed, equal to it', () => {
    const value = { a: [{ b: 'x' }], n: 1 };
    freezeDeep(value);
    const copy = thawed(value);
    expect(copy).toEqual(value);
    copy.a[0]!.b = 'y';
    expect(value.a[0]!.b).toBe('x');
  });

  it('returns a value that is not frozen as it is', () => {
    const value = { a: 1 };
    expect(thawed(value)).toBe(value);
  });
});
