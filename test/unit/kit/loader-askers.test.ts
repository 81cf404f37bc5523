/** The fields that asked a loader for a key, as the upstream ledger names them. */
import { describe, expect, it } from 'vitest';
import { createKeyedLoader } from '../../../src/kit/keyed-loader.ts';
import { fieldPath } from '../../../src/upstream/upstream-ledger.ts';
import {
  FieldAskers,
  MAX_PATHS_PER_CALL,
  pathText,
  type FieldPath,
} from '../../../src/upstream/ledger-field-paths.ts';

/** `apps.<index>.status` as graphql-js builds it. */
const statusOf = (index: number): FieldPath => ({
  prev: { prev: { prev: undefined, key: 'apps' }, key: index },
  key: 'status',
});

const named = (askers: FieldAskers | undefined) => askers && askers.paths.map(pathText);

describe('a keyed loader in the ledger', () => {
  it("runs each key's fetch as made for the fields that asked for that key", async () => {
    const seen: Record<string, string[] | undefined> = {};
    const loader = createKeyedLoader(
      async (key: string) => {
        // What the upstream layer reads when the call opens.
        seen[key] = named(fieldPath.getStore());
        await new Promise((resolve) => setImmediate(resolve));
        return key.toUpperCase();
      },
      (key) => key,
    );
    const results = await Promise.all([
      fieldPath.run(FieldAskers.of(statusOf(0)), () => loader.load('a')),
      fieldPath.run(FieldAskers.of(statusOf(1)), () => loader.load('b')),
      fieldPath.run(FieldAskers.of(statusOf(2)), () => loader.load('a')),
    ]);
    expect(results).toEqual(['A', 'B', 'A']);
    expect(seen).toEqual({ a: ['apps.0.status', 'apps.2.status'], b: ['apps.1.status'] });
  });

  it('names each field once and counts the fields past the first few', async () => {
    let asked: FieldAskers | undefined;
    const loader = createKeyedLoader(
      async (key: string) => {
        asked = fieldPath.getStore();
        return key;
      },
      (key) => key,
    );
    const fields = Array.from({ length: 30 }, (_, index) => FieldAskers.of(statusOf(index)));
    // The first field asks three times (e.g. loadMany with the key twice): named once.
    const asks = [fields[0]!, fields[0]!, ...fields, fields[0]!];
    await Promise.all(asks.map((askers) => fieldPath.run(askers, () => loader.load('a'))));
    expect(named(asked)).toEqual(
      Array.from({ length: MAX_PATHS_PER_CALL }, (_, index) => `apps.${index}.status`),
    );
    expect(asked!.more).toBe(30 - MAX_PATHS_PER_CALL);
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

describe('a keyed loader', () => {
  it('answers each key when its own call does, not when the slowest of its batch does', async () => {
    let releaseSlow!: () => void;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const loader = createKeyedLoader(
      async (key: string) => {
        if (key === 'slow') await slow;
        if (key === 'bad') throw new Error('no such key');
        return key.toUpperCase();
      },
      (key) => key,
    );
    const settled = new Set<string>();
    const load = (key: string) => {
      const answer = loader.load(key);
      answer.then(
        () => settled.add(key),
        () => settled.add(key),
      );
      return answer;
    };
    const slowAnswer = load('slow');
    const badAnswer = load('bad');
    const fastAnswer = load('fast');
    // One batch: once its calls have run (a few turns of the event loop), the fast and the failed
    // keys are answered while the slow one is still out.
    for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect([...settled].sort()).toEqual(['bad', 'fast']);
    expect(await fastAnswer).toBe('FAST');
    await expect(badAnswer).rejects.toThrow('no such key');
    releaseSlow();
    expect(await slowAnswer).toBe('SLOW');
  });
});
