/** The fields that asked a loader for a key, as the upstream ledger names them. */
import { describe, expect, it } from 'vitest';
import { createKeyedLoader } from '../../../src/kit/keyed-loader.ts';
import { fieldPath } from '../../../src/upstream/upstream-ledger.ts';

describe('a keyed loader in the ledger', () => {
  it("runs each key's fetch as made for the fields that asked for that key", async () => {
    const seen: Record<string, string[] | undefined> = {};
    const loader = createKeyedLoader(
      async (key: string) => {
        // What the upstream layer reads when the call opens; the array may still grow.
        seen[key] = fieldPath.getStore();
        await new Promise((resolve) => setImmediate(resolve));
        return key.toUpperCase();
      },
      (key) => key,
    );
    const results = await Promise.all([
      fieldPath.run(['apps.0.status'], () => loader.load('a')),
      fieldPath.run(['apps.1.status'], () => loader.load('b')),
      fieldPath.run(['apps.2.status'], () => loader.load('a')),
    ]);
    expect(results).toEqual(['A', 'B', 'A']);
    expect(seen).toEqual({ a: ['apps.0.status', 'apps.2.status'], b: ['apps.1.status'] });
  });

  it('notes nothing when no field path is set (a request that does not list its ledger)', async () => {
    let store: unknown = 'unset';
    const loader = createKeyedLoader(
      async (key: string) => {
        store = fieldPath.getStore();
        return key;
      },
      (key) => key,
    );
    await loader.load('a');
    expect(store).toBeUndefined();
  });
});
