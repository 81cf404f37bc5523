/**
 * The scope table of docs/provider.md (`npm run docs:scopes`, checked by `npm run check`): the
 * committed page is what the declarations make, and the check fails on a page that drifted from them
 * (a scope changed by hand, a row gone).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROVIDER_DOC, regenerated, renderScopeReference } from '../../src/scope-reference.ts';

const committed = readFileSync(PROVIDER_DOC, 'utf8');

describe('the scope table of docs/provider.md', () => {
  it('is what the declarations make (npm run docs:scopes:check passes)', async () => {
    expect(await regenerated(committed, PROVIDER_DOC)).toBe(committed);
    const { stdout } = await promisify(execFile)(process.execPath, [
      new URL('../../src/scope-reference.ts', import.meta.url).pathname,
      '--check',
    ]);
    expect(stdout).toContain('docs/provider.md matches the routes and their scopes');
  });

  it('names every field that calls, with its scope', () => {
    const table = renderScopeReference();
    expect(table).toMatch(
      /\| `App\.logs` +\| `GET \/v1\/hosting\/nodejs\/apps\/\{appId\}\/logs` +\| `hosting\.paas\.logs:read` +\|/,
    );
    expect(table).toContain('`Mutation.createOrder`, `Mutation.duplicateOrder`');
  });

  it('is found stale when a scope was changed by hand or a row removed', async () => {
    const row = committed.split('\n').find((line) => line.startsWith('| `App.logs`'))!;
    const edited = committed.replace(
      row,
      row.replace('hosting.paas.logs:read', 'hosting.paas.apps:read'),
    );
    expect(edited).not.toBe(committed);
    expect(await regenerated(edited, PROVIDER_DOC)).toBe(committed);
    const removed = committed.replace(`${row}\n`, '');
    expect(await regenerated(removed, PROVIDER_DOC)).toBe(committed);
  });
});
