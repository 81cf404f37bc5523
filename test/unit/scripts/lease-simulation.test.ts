/**
 * The lease simulation's claims (docs/budget.md "Across replicas: leases"), on a configuration small enough for
 * the unit project: at steady load leases cost at most a quarter of a budget script run per
 * upstream call (today: two); with Redis down while the window is nearly spent, replicas on leases
 * send no call past the window, where today's `REDIS_DOWN_BUDGET_SHARE` fallback does — at the
 * share the docs advise (1 / replicas) and at the default; and replicas of unequal demand are served
 * in the same proportion. The full table: `npm run simulate:leases`.
 */
import { describe, expect, it } from 'vitest';
import { simulate } from '../../../scripts/lease-simulation/simulate.ts';
import type { Scenario } from '../../../scripts/lease-simulation/world.ts';

/** Three replicas, ten credentials, 4 calls a second per replica and credential: the bench's load. */
const steady: Scenario = {
  name: 'steady',
  seed: 46,
  replicas: 3,
  credentials: 10,
  zipfExponent: 0,
  callsPerSec: 120,
  durationMs: 30_000,
  heavyReplicas: 0,
  heavyWeight: 1,
  windowCalls: 1_000_000,
  writeReserveShare: 0.1,
  redisRttMs: 1,
  upstreamRttMs: 100,
};

/**
 * Fifty replicas (ten receive four times the others' share), a hundred credentials with a 100-call
 * window each and a load that would spend 150 in 20 s; Redis unreachable from 10 s for 5 s. (With
 * ten replicas or fewer today's fallback at the advised share does not over-spend here: its local
 * shares round down to nothing late in a window. With fewer credentials, a shared side that both
 * settles and carries over an ended lease does not show.)
 */
const nearlySpent: Scenario = {
  name: 'window nearly spent',
  seed: 46,
  replicas: 50,
  credentials: 100,
  zipfExponent: 0,
  callsPerSec: (100 * 150) / 20,
  durationMs: 20_000,
  heavyReplicas: 10,
  heavyWeight: 4,
  windowCalls: 100,
  writeReserveShare: 0.1,
  redisRttMs: 1,
  upstreamRttMs: 100,
};
const redisDown: Scenario = { ...nearlySpent, outage: { atMs: 10_000, forMs: 5_000 } };

describe('lease simulation (small configuration)', () => {
  it('at steady load, leases cost at most 0.25 budget script runs per upstream call; today 2', () => {
    const today = simulate(steady, { kind: 'today', share: 1 / steady.replicas });
    const leases = simulate(steady, { kind: 'leases' });
    expect(today.scriptRunsPerCall).toBeCloseTo(2, 1);
    expect(leases.sent).toBe(today.sent);
    expect(leases.refused + leases.refusedUnreachable).toBe(0);
    expect(leases.scriptRunsPerCall).toBeLessThanOrEqual(0.25);
    // Most calls go without waiting for Redis at all.
    expect(leases.waitedShare).toBeLessThan(0.1);
  });

  it('with Redis down while the window is nearly spent, leases send nothing past the window', () => {
    const leases = simulate(redisDown, { kind: 'leases' });
    expect(leases.upstream429).toBe(0);
    // Nor into the write reserve: together the replicas spent no more than the bucket had for reads.
    expect(leases.pastReadRoom).toBe(0);
    // Refused by name while Redis is unreachable, not silently dropped: every call is accounted.
    expect(leases.refusedUnreachable).toBeGreaterThan(0);
    expect(leases.sent + leases.refused + leases.refusedUnreachable).toBe(leases.calls);
  });

  it('today’s fallback over-spends in the same scenario, at the advised share and the default', () => {
    const advised = simulate(redisDown, { kind: 'today', share: 1 / redisDown.replicas });
    const defaulted = simulate(redisDown, { kind: 'today', share: 0.25 });
    expect(advised.upstream429).toBeGreaterThan(0);
    expect(advised.pastReadRoom).toBeGreaterThan(advised.upstream429);
    expect(defaulted.upstream429).toBeGreaterThan(advised.upstream429);
    // Without the outage neither design sends a call past the window.
    expect(simulate(nearlySpent, { kind: 'today', share: 0.25 }).upstream429).toBe(0);
    expect(simulate(nearlySpent, { kind: 'leases' }).pastReadRoom).toBe(0);
  });

  it('serves replicas of unequal demand in the same proportion, and leaves little room unspent', () => {
    const leases = simulate(nearlySpent, { kind: 'leases' });
    expect(Math.abs(leases.heavyServed - leases.lightServed)).toBeLessThan(0.05);
    // 100 credentials × 90 reads above the write reserve: at most 2 % held where nobody needed it.
    expect(leases.unspentWhileRefused).toBeLessThanOrEqual(180);
  });

  it('is deterministic: the same seed gives the same outcome', () => {
    expect(simulate(redisDown, { kind: 'leases' })).toEqual(
      simulate(redisDown, { kind: 'leases' }),
    );
  });
});
