/**
 * The pool the upstream transport loads by itself (src/upstream/http/undici-pool.ts) is undici's own:
 * the same classes its entry point exports, with the request API on the pool. An undici upgrade
 * that moves one of these files fails here.
 */
import { execFileSync } from 'node:child_process';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Pool, errors } from '../../../../src/upstream/http/undici-pool.ts';

describe('the upstream pool loaded by itself', () => {
  it('is the Pool and the error classes undici exports', () => {
    expect(Pool).toBe(undici.Pool);
    expect(errors).toBe(undici.errors);
    expect(errors.HeadersTimeoutError).toBe(undici.errors.HeadersTimeoutError);
  });

  it('has the request API without the entry point, and loads neither copy of undici', () => {
    // A process of its own: here undici's entry point is loaded already (above).
    const module = new URL('../../../../src/upstream/http/undici-pool.ts', import.meta.url).href;
    const script = [
      `const { Pool } = await import(${JSON.stringify(module)});`,
      `const pool = new Pool('http://127.0.0.1:9');`,
      `const bundled = process.moduleLoadList.some((m) => m.includes('deps/undici'));`,
      `const { createRequire } = await import('node:module');`,
      `const cache = createRequire(import.meta.url).cache;`,
      `const entry = Object.keys(cache).some((file) => file.endsWith('/undici/index.js'));`,
      `console.log(JSON.stringify({ request: typeof pool.request, bundled, entry }));`,
      `await pool.close();`,
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ request: 'function', bundled: false, entry: false });
  });
});
