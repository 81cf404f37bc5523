/**
 * The lease policy's arithmetic (docs/budget.md "Across replicas: leases", the design to be implemented): what a
 * replica asks for, what the shared bucket grants, what comes back, how answers correct it. The
 * simulation of 50 replicas × 1,000 credentials runs on these functions
 * (test/unit/scripts/lease-simulation.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LEASE_CONFIG,
  NO_DEMAND,
  atLeaseEnd,
  demandAt,
  heldAfterAnswer,
  leaseAskOf,
  leaseDurationOf,
  maySpend,
  shouldRenew,
  withCall,
} from '../../../../src/upstream/budget/lease-policy.ts';
import {
  correctedShared,
  grantOf,
  isLive,
  leaseDurationCapOf,
  leaseOf,
  settledTokens,
  tokensAtReset,
  type Holder,
  type SharedView,
} from '../../../../src/upstream/budget/lease-grants.ts';

const config = DEFAULT_LEASE_CONFIG;

/** A deterministic generator (mulberry32), so the property loops are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Replicas asking the shared bucket in turn, never spending: how much each ends up holding. Each
 * asks for everything (`ask` large), reporting what it holds and its demand.
 */
function hoard(demands: number[], tokens: number, writeReserve: number, rounds = 20): number[] {
  const held = demands.map(() => 0);
  let left = tokens;
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, demandPerSec] of demands.entries()) {
      const others: Holder[] = demands
        .map((demand, other) => ({ held: held[other] ?? 0, demandPerSec: demand }))
        .filter((_, other) => other !== index && (held[other] ?? 0) > 0);
      const grant = grantOf(
        { tokens: left, writeReserve, fresh: true, others },
        { ask: 10_000, demandPerSec, held: held[index] ?? 0, floor: writeReserve, waiting: 1 },
      );
      held[index] = (held[index] ?? 0) + grant;
      left -= grant;
    }
  }
  return held;
}

describe('grantOf: what the shared bucket grants', () => {
  it('never grants more than asked, nor below the asking priority’s floor (random views)', () => {
    const random = seeded(46);
    for (let run = 0; run < 5_000; run += 1) {
      const cap = 1 + Math.floor(random() * 1_000);
      const writeReserve = Math.floor(cap * 0.1);
      const tokens = Math.floor(random() * (cap + 1));
      const floor = [0, writeReserve, Math.floor(cap * 0.2)][Math.floor(random() * 3)] ?? 0;
      const others = Array.from({ length: Math.floor(random() * 50) }, () => ({
        held: Math.floor(random() * 20),
        demandPerSec: random() * 10,
      }));
      const ask = 1 + Math.floor(random() * 200);
      const grant = grantOf(
        { tokens, writeReserve, fresh: random() < 0.9, others },
        {
          ask,
          demandPerSec: random() * 10,
          held: Math.floor(random() * 20),
          floor,
          waiting: Math.floor(random() * 3),
        },
      );
      expect(grant).toBeGreaterThanOrEqual(0);
      expect(grant).toBeLessThanOrEqual(ask);
      expect(tokens - grant).toBeGreaterThanOrEqual(Math.min(tokens, floor));
      expect(Number.isInteger(grant)).toBe(true);
    }
  });

  it('replicas asking in turn never hold together more than was above the reserve', () => {
    const held = hoard([5, 1, 1, 0.2, 3, 8], 600, 60);
    expect(held.reduce((sum, one) => sum + one, 0)).toBeLessThanOrEqual(540);
  });

  it('splits what is above the reserve in proportion to the demand each replica reports', () => {
    // Demands 9 : 1 over 540 above the reserve: 486 and 54, whoever asks first.
    const [busy, quiet] = hoard([9, 1], 600, 60);
    const [quietFirst, busySecond] = hoard([1, 9], 600, 60);
    expect(quiet).toBeGreaterThanOrEqual(50);
    expect(quiet).toBeLessThanOrEqual(60);
    expect(busy).toBeGreaterThanOrEqual(470);
    expect(quietFirst).toBe(quiet);
    expect(busySecond).toBe(busy);
  });

  it('gives a replica of small demand that asks first only its share, not what a busy one needs', () => {
    const grant = grantOf(
      { tokens: 600, writeReserve: 60, fresh: true, others: [{ held: 1, demandPerSec: 20 }] },
      { ask: 500, demandPerSec: 1, held: 0, floor: 60, waiting: 1 },
    );
    // Its share of 541 is 541 / 21 ≈ 25 tokens.
    expect(grant).toBe(25);
  });

  it('shrinks to single tokens near the write reserve, then grants reads nothing', () => {
    const others = Array.from({ length: 9 }, () => ({ held: 1, demandPerSec: 5 }));
    const view = (tokens: number): SharedView => ({
      tokens,
      writeReserve: 60,
      fresh: true,
      others,
    });
    const read = { ask: 50, demandPerSec: 5, held: 0, floor: 60, waiting: 1 };
    // 10 holders: singles below 60 + 2 × 10 tokens.
    expect(grantOf(view(200), read)).toBeGreaterThan(1);
    expect(grantOf(view(81), read)).toBeGreaterThan(1);
    expect(grantOf(view(80), read)).toBe(1);
    expect(grantOf(view(61), read)).toBe(1);
    expect(grantOf(view(60), read)).toBe(0);
    // A write may spend the reserve, one token at a time.
    expect(grantOf(view(60), { ...read, floor: 0 })).toBe(1);
    expect(grantOf(view(1), { ...read, floor: 0 })).toBe(1);
    expect(grantOf(view(0), { ...read, floor: 0 })).toBe(0);
    // There, a renewal ahead of need gets nothing: no replica holds a spare token near the end.
    expect(grantOf(view(200), { ...read, waiting: 0 })).toBeGreaterThan(1);
    expect(grantOf(view(80), { ...read, waiting: 0 })).toBe(0);
  });

  it('takes at most half of what is free in one grant, and one token on a stale view (the probe)', () => {
    const alone = { tokens: 600, writeReserve: 60, fresh: true, others: [] };
    const ask = { ask: 1_000, demandPerSec: 50, held: 0, floor: 60, waiting: 1 };
    expect(grantOf(alone, ask)).toBe(270);
    expect(grantOf({ ...alone, fresh: false }, ask)).toBe(1);
  });

  it('always grants one token to a replica that holds none while one is free above its floor', () => {
    const crowded = Array.from({ length: 49 }, () => ({ held: 10, demandPerSec: 100 }));
    const view = { tokens: 600, writeReserve: 60, fresh: true, others: crowded };
    expect(grantOf(view, { ask: 5, demandPerSec: 0.01, held: 0, floor: 60, waiting: 1 })).toBe(1);
    // Holding some already, past its share: nothing more until it reports spending.
    expect(grantOf(view, { ask: 5, demandPerSec: 0.01, held: 3, floor: 60, waiting: 1 })).toBe(0);
  });
});

describe('leaseOf: how long a lease lasts, and what it keeps', () => {
  const request = {
    ask: 1_000,
    demandPerSec: 2,
    held: 0,
    floor: 60,
    waiting: 1,
    durationMs: 30_000,
  };
  const alone = { tokens: 600, writeReserve: 60, fresh: true, others: [] };

  it('caps a lease at a quarter of the time what is above the reserve lasts at the demand', () => {
    // 90 above the reserve at 7.5 calls/s lasts 12 s: leases of 3 s at most.
    expect(leaseDurationCapOf(90, 7.5)).toBe(3_000);
    expect(leaseDurationCapOf(540, 0)).toBe(config.maxLeaseMs);
    expect(leaseDurationCapOf(540, 1)).toBe(config.maxLeaseMs);
    expect(leaseDurationCapOf(2, 100)).toBe(config.minLeaseMs);
  });

  it('gives a plentiful bucket’s asker the lease its demand asked for', () => {
    const lease = leaseOf(alone, request);
    // 2 calls/s for 30 s: 60, and the call waiting.
    expect(lease).toEqual({
      grant: 61,
      carried: 0,
      returned: 0,
      durationMs: 30_000,
      plentiful: true,
    });
  });

  it('shortens the lease by the bucket’s drain (every replica’s), and its tokens with it', () => {
    // The asker reports 2 calls/s; the bucket drains 180/s: 540 last 3 s, leases 750 ms → 1 s.
    const lease = leaseOf({ ...alone, drainPerSec: 180 }, request);
    expect(lease.durationMs).toBe(config.minLeaseMs);
    expect(lease.grant).toBe(3);
    expect(lease.plentiful).toBe(false);
  });

  it('near the reserve, a renewal keeps only the calls waiting and gives back the rest', () => {
    const crowded = Array.from({ length: 9 }, () => ({ held: 1, demandPerSec: 2 }));
    const near = { tokens: 75, writeReserve: 60, fresh: true, others: crowded };
    expect(leaseOf(near, { ...request, held: 6, waiting: 0 })).toMatchObject({
      grant: 0,
      carried: 0,
      returned: 6,
    });
    expect(leaseOf(near, { ...request, held: 6, waiting: 2 })).toMatchObject({
      grant: 0,
      carried: 2,
      returned: 4,
    });
    expect(leaseOf(near, { ...request, held: 0, waiting: 2 })).toMatchObject({
      grant: 1,
      carried: 0,
      returned: 0,
    });
  });

  it('a renewal that keeps what it holds takes only the rest of what its lease should hold', () => {
    const lease = leaseOf(alone, { ...request, held: 50, waiting: 0 });
    expect(lease).toMatchObject({ carried: 50, returned: 0, grant: 10 });
  });
});

describe('settledTokens: what a lease gives back', () => {
  it('gives back what the holder did not spend, never more than it was granted', () => {
    expect(settledTokens(10, 4, true)).toBe(4);
    expect(settledTokens(10, 0, true)).toBe(0);
    expect(settledTokens(10, 12, true)).toBe(10);
  });

  it('gives back an ended lease’s tokens in its own window, nothing after the window’s end', () => {
    expect(settledTokens(10, 4, false)).toBe(0);
  });

  it('counts a lease among the live holders until its end and the grace, not after', () => {
    expect(isLive(5_000, 5_000 + config.graceMs)).toBe(true);
    expect(isLive(5_000, 5_001 + config.graceMs)).toBe(false);
  });

  it('keeps shared tokens + held constant through grant and settlement (the sum invariant)', () => {
    let tokens = 600;
    const grant = grantOf(
      { tokens, writeReserve: 60, fresh: true, others: [] },
      { ask: 40, demandPerSec: 10, held: 0, floor: 60, waiting: 1 },
    );
    tokens -= grant;
    let held = grant;
    held -= 15; // spent
    tokens += settledTokens(grant, held, true);
    expect(tokens).toBe(600 - 15);
  });

  it('at the window’s end refills the bucket less the leases still held', () => {
    expect(tokensAtReset(600, 40)).toBe(560);
    expect(tokensAtReset(10, 40)).toBe(0);
  });
});

describe('correctedShared: RateLimit-* with leases outstanding', () => {
  it('lowers the shared tokens to Remaining less the reporter’s outstanding (spent behind Weft’s back)', () => {
    // 40 remaining at the upstream; the reporter holds 5 and has 2 in flight: 33 at most.
    expect(
      correctedShared({ tokens: 90, cap: 600 }, { remaining: 40, reporterOutstanding: 7 }),
    ).toEqual({ tokens: 33, cap: 600 });
    expect(
      correctedShared({ tokens: 90, cap: 600 }, { remaining: 5, reporterOutstanding: 7 }),
    ).toEqual({
      tokens: 0,
      cap: 600,
    });
  });

  it('does not drain the bucket while replicas spend their leases and report the answers', () => {
    // Three replicas hold leases and spend them; nobody else uses the credential. Every answer is
    // reported, with the reporter's held and in-flight tokens: the shared tokens never move.
    const window = 600;
    let shared = { tokens: window, cap: window };
    const held = [0, 0, 0];
    let counted = 0;
    for (const [replica] of held.entries()) {
      held[replica] = 30;
      shared = { ...shared, tokens: shared.tokens - 30 };
    }
    for (let call = 0; call < 60; call += 1) {
      const replica = call % 3;
      held[replica] = (held[replica] ?? 0) - 1;
      counted += 1;
      shared = correctedShared(shared, {
        remaining: window - counted,
        reporterOutstanding: held[replica] ?? 0,
      });
      expect(shared.tokens).toBe(window - 90);
    }
  });

  it('never raises the shared tokens; a lower limit lowers the capacity', () => {
    expect(
      correctedShared({ tokens: 50, cap: 600 }, { remaining: 500, reporterOutstanding: 0 }),
    ).toEqual({ tokens: 50, cap: 600 });
    expect(
      correctedShared({ tokens: 500, cap: 600 }, { limit: 300, reporterOutstanding: 0 }),
    ).toEqual({
      tokens: 300,
      cap: 300,
    });
  });

  it('lowers what a replica holds to what the answer allows after its own calls in flight', () => {
    expect(heldAfterAnswer(10, 3, 1)).toBe(2);
    expect(heldAfterAnswer(10, 50, 1)).toBe(10);
    expect(heldAfterAnswer(10, 0, 4)).toBe(0);
  });
});

describe('the replica: spending, asking, renewing', () => {
  it('spends, with Redis unreachable or not, exactly what it holds within its lease and no more', () => {
    let lease = { held: 7, endsAt: 10_000, sharedLeft: 100 };
    let spent = 0;
    while (maySpend(lease, 5_000, 60)) {
      lease = { ...lease, held: lease.held - 1 };
      spent += 1;
    }
    expect(spent).toBe(7);
    expect(maySpend({ held: 7, endsAt: 10_000, sharedLeft: 100 }, 10_000, 0)).toBe(false);
  });

  it('lets a low priority spend a held token only while its own floor stays untouched', () => {
    // 60 reserve for writes, 90 for background, 120 for the explorer (of 600).
    const lease = { held: 5, endsAt: 10_000, sharedLeft: 90 };
    expect(maySpend(lease, 0, 60)).toBe(true);
    expect(maySpend(lease, 0, 90)).toBe(true);
    expect(maySpend({ ...lease, held: 1 }, 0, 90)).toBe(true);
    expect(maySpend({ ...lease, sharedLeft: 85, held: 5 }, 0, 90)).toBe(false);
    expect(maySpend(lease, 0, 120)).toBe(false);
  });

  it('sizes a lease to cover callsPerLease calls, within its bounds', () => {
    expect(leaseDurationOf(8)).toBe(1_000);
    expect(leaseDurationOf(2)).toBe(4_000);
    expect(leaseDurationOf(0.01)).toBe(config.maxLeaseMs);
    expect(leaseDurationOf(0)).toBe(config.maxLeaseMs);
    expect(leaseDurationOf(1_000)).toBe(config.minLeaseMs);
    expect(leaseAskOf({ demandPerSec: 2, redisRttMs: 1, held: 3, waiting: 1 })).toEqual({
      ask: 6,
      durationMs: 4_000,
    });
    expect(leaseAskOf({ demandPerSec: 0, redisRttMs: 1, held: 0, waiting: 1 }).ask).toBe(1);
  });

  it('renews before running dry (a few Redis round trips ahead), or near the lease’s end', () => {
    const view = { demandPerSec: 100, redisRttMs: 20, held: 10, waiting: 0 };
    // 4 round trips of 20 ms at 100 calls/s: 8 calls ahead.
    expect(shouldRenew(view, 10_000, 0)).toBe(false);
    expect(shouldRenew({ ...view, held: 8 }, 10_000, 0)).toBe(true);
    expect(shouldRenew(view, 10_000, 9_920)).toBe(true);
    expect(shouldRenew({ ...view, demandPerSec: 0 }, 10_000, 9_990)).toBe(false);
    // Renewed while half a lease's calls (4) come within the longest lease (30 s): ≥ 0.134/s.
    expect(atLeaseEnd(0.14, 1, true)).toBe('renew');
    expect(atLeaseEnd(0.13, 5, true)).toBe('give-back');
    expect(atLeaseEnd(0.13, 1, true)).toBe('lapse');
    // Not while the budget runs low: a lapsed token would be out of reach until the holder's next run.
    expect(atLeaseEnd(0.13, 1, false)).toBe('give-back');
  });

  it('counts several tokens at once in a drain (the shared side’s demand)', () => {
    const drain = withCall(NO_DEMAND, 0, config, 10);
    expect(drain.perSec).toBeCloseTo(1, 6);
  });

  it('estimates a steady demand from the calls themselves, and forgets it in silence', () => {
    let demand = NO_DEMAND;
    for (let at = 0; at <= 60_000; at += 200) demand = withCall(demand, at); // 5 calls/s
    expect(demandAt(demand, 60_000)).toBeGreaterThan(4.5);
    expect(demandAt(demand, 60_000)).toBeLessThan(5.5);
    expect(demandAt(demand, 60_000 + 3 * config.demandTauMs)).toBeLessThan(0.3);
  });
});
