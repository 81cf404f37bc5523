/**
 * The text of a ledger call's `paths` (docs/budget.md): a path as graphql-js gives it, named with
 * its response keys and list indexes, every part of it bounded whatever the document's aliases.
 */
import { describe, expect, it } from 'vitest';
import {
  FieldAskers,
  MAX_LEDGER_PATH_BYTES,
  MAX_PATH_CHARS,
  MAX_PATH_KEY_CHARS,
  pathText,
  pathsOfReport,
  type FieldPath,
} from '../../../src/upstream/ledger-field-paths.ts';

const pathOf = (...keys: (string | number)[]): FieldPath =>
  keys.reduce<FieldPath | undefined>((prev, key) => ({ prev, key }), undefined)!;

describe('a field path in the ledger', () => {
  it('names response keys and list indexes, joined with dots', () => {
    expect(pathText(pathOf('apps', 2, 'runtimeStatus'))).toBe('apps.2.runtimeStatus');
  });

  it('cuts a long alias, and keeps the end of a path too long to name whole', () => {
    const alias = `a${'x'.repeat(5_000)}`;
    expect(pathText(pathOf(alias, 'status'))).toBe(
      `a${'x'.repeat(MAX_PATH_KEY_CHARS - 2)}….status`,
    );
    const deep = pathText(pathOf(...Array.from({ length: 100 }, (_, i) => `f${i}`)));
    expect(deep).toHaveLength(MAX_PATH_CHARS);
    expect(deep.startsWith('…')).toBe(true);
    expect(deep.endsWith('.f98.f99')).toBe(true);
  });

  it('names paths within the room of one report, then counts them', () => {
    const pathsOf = pathsOfReport();
    const long = (i: number) => pathOf(`${i}${'y'.repeat(60)}`, `${i}${'z'.repeat(60)}`, 0, 'a');
    const answers = Array.from({ length: 2_000 }, (_, i) => pathsOf(FieldAskers.of(long(i))));
    const bytes = answers.reduce(
      (sum, { paths }) => sum + paths.reduce((n, text) => n + Buffer.byteLength(text), 0),
      0,
    );
    expect(bytes).toBeLessThanOrEqual(MAX_LEDGER_PATH_BYTES);
    expect(bytes).toBeGreaterThan(MAX_LEDGER_PATH_BYTES - MAX_PATH_CHARS * 3);
    expect(answers[0]).toEqual({ paths: [pathText(long(0))] });
    expect(answers.at(-1)).toEqual({ paths: [], morePaths: 1 });
    expect(pathsOf(undefined)).toEqual({ paths: [] });
  });
});
