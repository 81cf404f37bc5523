/**
 * Second-sight admission: which keys of free-filter reads have been asked for before, in a bounded
 * table (its use by the cache: cached-upstream-client.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { createSecondSightAdmission } from '../../../../src/upstream/cache/second-sight-admission.ts';

describe('second-sight admission', () => {
  it('answers false on a key’s first sight and true from its second on, per key', () => {
    const admission = createSecondSightAdmission();
    expect(admission.seenBefore('cred:transaction:aaaa')).toBe(false);
    expect(admission.seenBefore('cred:transaction:bbbb')).toBe(false);
    expect(admission.seenBefore('cred:transaction:aaaa')).toBe(true);
    expect(admission.seenBefore('cred:transaction:aaaa')).toBe(true);
    expect(admission.seenBefore('cred:transaction:bbbb')).toBe(true);
  });

  it('remembers a bounded number of keys: the oldest are forgotten, never an error', () => {
    const admission = createSecondSightAdmission();
    admission.seenBefore('first');
    // Far more keys than the table holds: each takes some slot, so "first" loses its own.
    for (let i = 0; i < 200_000; i += 1) admission.seenBefore(`key-${i}`);
    expect(admission.seenBefore('first')).toBe(false);
    expect(admission.seenBefore('first')).toBe(true);
  });
});
