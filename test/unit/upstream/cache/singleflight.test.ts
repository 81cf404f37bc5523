import { describe, expect, it } from 'vitest';
import { createSingleflight } from '../../../../src/upstream/cache/singleflight.ts';
import { deferred } from '../../../support/clock.ts';

describe('singleflight', () => {
  it('runs one call for identical keys in flight, and hands each joiner its own copy', async () => {
    const flight = createSingleflight();
    const gate = deferred<{ items: number[] }>();
    let calls = 0;
    const fetch = () => {
      calls += 1;
      return gate.promise;
    };
    const all = [
      flight.run('cred-a:k', fetch),
      flight.run('cred-a:k', fetch),
      flight.run('cred-a:k', fetch),
    ];
    expect(flight.inFlight).toBe(1);
    gate.resolve({ items: [1, 2] });
    const [first, second, third] = await Promise.all(all);
    expect(calls).toBe(1);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    second!.items.push(3);
    expect(third!.items).toEqual([1, 2]);
    expect(flight.inFlight).toBe(0);
  });

  it('never shares between different keys (credentials)', async () => {
    const flight = createSingleflight();
    let calls = 0;
    const fetch = async () => {
      calls += 1;
      return calls;
    };
    await Promise.all([flight.run('cred-a:k', fetch), flight.run('cred-b:k', fetch)]);
    expect(calls).toBe(2);
  });

  it('shares failures, then forgets them', async () => {
    const flight = createSingleflight();
    const gate = deferred<number>();
    const a = flight.run('k', () => gate.promise);
    const b = flight.run('k', () => gate.promise);
    gate.reject(new Error('boom'));
    await expect(a).rejects.toThrow('boom');
    await expect(b).rejects.toThrow('boom');
    await expect(flight.run('k', async () => 7)).resolves.toBe(7);
  });

  it('lets nobody join the calls in flight after forgetAll', async () => {
    const flight = createSingleflight();
    const gate = deferred<string>();
    const old = flight.run('k', () => gate.promise);
    flight.forgetAll();
    const next = flight.run('k', async () => 'after the write');
    gate.resolve('before the write');
    expect(await old).toBe('before the write');
    expect(await next).toBe('after the write');
  });

  it('keeps a call joinable when an older call with its key settles after forgetAll', async () => {
    const flight = createSingleflight();
    const oldGate = deferred<string>();
    const nextGate = deferred<string>();
    const old = flight.run('k', () => oldGate.promise);
    flight.forgetAll();
    let calls = 0;
    const next = flight.run('k', () => {
      calls += 1;
      return nextGate.promise;
    });
    oldGate.resolve('before the write');
    await old;
    // The older call's settling must not drop the newer one.
    expect(flight.inFlight).toBe(1);
    const joiner = flight.run('k', () => {
      calls += 1;
      return Promise.resolve('a second call');
    });
    nextGate.resolve('after the write');
    expect(await next).toBe('after the write');
    expect(await joiner).toBe('after the write');
    expect(calls).toBe(1);
    expect(flight.inFlight).toBe(0);
  });

  it('tells whether a key settled after a mark, however many keys settle after it', async () => {
    const flight = createSingleflight();
    const before = flight.settlements;
    await flight.run('cred-a:k', async () => 'answer');
    expect(flight.settledSince('cred-a:k', before)).toBe(true);
    expect(flight.settledSince('cred-a:other', before)).toBe(false);
    // A mark taken after the settlement: nothing settled since.
    const after = flight.settlements;
    expect(flight.settledSince('cred-a:k', after)).toBe(false);
    // Thousands of other keys later it is still known to have settled after the first mark.
    for (let i = 0; i < 10_000; i += 1) await flight.run(`cred-b:${i}`, async () => i);
    expect(flight.settledSince('cred-a:k', before)).toBe(true);
    // One key settles during a lookup: of ten thousand keys that did not, only those sharing its
    // slot (about 10 000 / 4 096) say they did.
    const mark = flight.settlements;
    await flight.run('cred-d:one', async () => 'one');
    const unsettled = Array.from({ length: 10_000 }, (_, i) => `cred-c:${i}`);
    const sayingSo = unsettled.filter((key) => flight.settledSince(key, mark));
    expect(sayingSo.length).toBeLessThanOrEqual(8);
  });
});
