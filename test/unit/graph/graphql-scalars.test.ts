/**
 * The scalars the graph loads from their own files (src/graph/graphql-scalars.ts) are the ones
 * graphql-scalars' entry point exports, and loading them loads no other scalar. An upgrade that
 * moves one of these files fails here.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DateTimeResolver, JSONResolver } from '../../../src/graph/graphql-scalars.ts';

describe('the scalars loaded by themselves', () => {
  it('are the objects graphql-scalars exports', () => {
    const entry = createRequire(import.meta.url)('graphql-scalars') as Record<string, unknown>;
    expect(DateTimeResolver).toBe(entry.DateTimeResolver);
    expect(JSONResolver).toBe(entry.JSONResolver);
    expect(DateTimeResolver.name).toBe('DateTime');
    expect(JSONResolver.name).toBe('JSON');
  });

  it('load neither the entry point nor another scalar', () => {
    const module = new URL('../../../src/graph/graphql-scalars.ts', import.meta.url).href;
    const script = [
      `await import(${JSON.stringify(module)});`,
      `const { createRequire } = await import('node:module');`,
      `const files = Object.keys(createRequire(import.meta.url).cache);`,
      `const own = files.filter((f) => f.includes('/graphql-scalars/'));`,
      `console.log(JSON.stringify(own.map((f) => f.replace(/.*\\/graphql-scalars\\//, '')).sort()));`,
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual([
      'cjs/error.js',
      'cjs/scalars/iso-date/DateTime.js',
      'cjs/scalars/iso-date/formatter.js',
      'cjs/scalars/iso-date/validator.js',
      'cjs/scalars/json/JSON.js',
      'cjs/scalars/json/utils.js',
    ]);
  });
});
