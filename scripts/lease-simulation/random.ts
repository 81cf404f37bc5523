/**
 * Seeded randomness for the lease simulation: the same seed gives the same run, on every machine.
 */

/** mulberry32: small, fast, and good enough for arrivals and choices. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The wait until the next event of a Poisson process of `perMs` events per ms. */
export const exponential = (random: () => number, perMs: number): number =>
  -Math.log(1 - random()) / perMs;

/** Picks an index in proportion to `weights` (binary search in their running sums). */
export function weightedPicker(weights: readonly number[]): (random: () => number) => number {
  const sums: number[] = [];
  let total = 0;
  for (const weight of weights) sums.push((total += weight));
  return (random) => {
    const target = random() * total;
    let low = 0;
    let high = sums.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((sums[middle] ?? 0) > target) high = middle;
      else low = middle + 1;
    }
    return low;
  };
}

/** Zipf weights of `count` ranks with exponent `s` (rank 1 the most frequent); s = 0: uniform. */
export const zipfWeights = (count: number, s: number): number[] =>
  Array.from({ length: count }, (_, rank) => 1 / (rank + 1) ** s);
