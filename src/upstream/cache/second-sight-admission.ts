/**
 * Second-sight admission for the upstream cache: an answer whose call carries a free filter (a value
 * the client picks from an unbounded set, such as a date a user types: `freeFilters` in the route's
 * cache rule) is stored only when the same key was already asked for once. A varied filter is
 * rarely asked twice, and keeping each of its pages (a transaction page is ~38 KB of JSON, ~50 KB
 * on the heap) until the LRU pushes it out was most of a single read's CPU: the page survives two
 * scavenges, is promoted, and dies in the old generation (docs/performance.md "Decisions").
 *
 * The same screen asked twice still costs one upstream call: the first answer, not stored here, is
 * still replayable by the whole-response cache (its tags and freshness are recorded as if stored),
 * which answers the repeat; only another screen reading the same page pays it a second time, and
 * then keeps it (docs/budget.md "Cache").
 *
 * Bounded: a fixed table of 32-bit fingerprints, one slot per fingerprint's low bits (64 KiB,
 * allocated once). A key whose slot another key took since is seen as new again (it is stored on
 * its next sight); a fingerprint collision admits a key on its first sight, as if there were no
 * rule. Neither changes an answer; both only move when a page is kept.
 *
 * Cost: one pass of FNV-1a over the key (~0.1 µs) on a free-filter read's miss, nothing on any other
 * read; it never waits, so it adds no latency to a cold screen.
 */

/** Slots of the table: 2^14 recent keys at 4 bytes each. */
const SLOT_BITS = 14;
const SLOT_MASK = (1 << SLOT_BITS) - 1;

export interface SecondSightAdmission {
  /**
   * Records a sight of `key`; true when it was already seen (its answer is then worth storing).
   */
  seenBefore(key: string): boolean;
}

/** FNV-1a over the key's UTF-16 code units: the keys are already digests, any spread will do. */
function fingerprint(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // 0 marks an empty slot.
  return hash === 0 ? 1 : hash;
}

export function createSecondSightAdmission(): SecondSightAdmission {
  const slots = new Int32Array(1 << SLOT_BITS);
  return {
    seenBefore(key) {
      const print = fingerprint(key);
      const slot = print & SLOT_MASK;
      if (slots[slot] === print) return true;
      slots[slot] = print;
      return false;
    },
  };
}
