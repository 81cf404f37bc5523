/**
 * The gate for tokens the upstream has never answered: a few calls in flight per client address,
 * a bounded queue behind them, and free passage once a token has proved itself.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/error-codes.ts';
import { GatewayError } from '../../../src/errors/gateway-errors.ts';
import {
  UNPROVEN_CALLS_PER_CLIENT,
  UNPROVEN_QUEUE_PER_CLIENT,
  createUnprovenGate,
  type UnprovenGate,
} from '../../../src/upstream/unproven-gate.ts';

const JUNK_ADDRESS = '203.0.113.7';
const TENANT_ADDRESS = '198.51.100.1';

let n = 0;
const token = () => `unproven-${(n += 1)}`;

/** An entry into the gate whose progress the test can read without awaiting it. */
function enter(gate: UnprovenGate, address: string | undefined, signal?: AbortSignal) {
  const entry = {
    state: 'waiting' as 'waiting' | 'in' | 'refused',
    error: undefined as unknown,
    leave: undefined as (() => void) | undefined,
    done: undefined as unknown as Promise<void>,
  };
  entry.done = gate.enter(token(), address, signal).then(
    (leave) => {
      entry.state = 'in';
      entry.leave = leave;
    },
    (error: unknown) => {
      entry.state = 'refused';
      entry.error = error;
    },
  );
  return entry;
}

/** Lets every settled promise run its callbacks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('unproven gate', () => {
  it('lets two calls per address in flight; the third waits and goes when one leaves', async () => {
    expect(UNPROVEN_CALLS_PER_CLIENT).toBe(2);
    const gate = createUnprovenGate();
    const entries = [1, 2, 3].map(() => enter(gate, JUNK_ADDRESS));
    await settle();
    expect(entries.map((e) => e.state)).toEqual(['in', 'in', 'waiting']);
    entries[1]!.leave!();
    await entries[2]!.done;
    expect(entries[2]!.state).toBe('in');
    // Leaving twice frees one place, not two.
    entries[1]!.leave!();
    const fourth = enter(gate, JUNK_ADDRESS);
    await settle();
    expect(fourth.state).toBe('waiting');
    entries[0]!.leave!();
    await fourth.done;
    expect(fourth.state).toBe('in');
  });

  it("never holds another address's calls for the first one's", async () => {
    const gate = createUnprovenGate();
    const junk = Array.from({ length: 10 }, () => enter(gate, JUNK_ADDRESS));
    await settle();
    expect(junk.filter((e) => e.state === 'in')).toHaveLength(UNPROVEN_CALLS_PER_CLIENT);
    const tenant = [enter(gate, TENANT_ADDRESS), enter(gate, TENANT_ADDRESS)];
    await settle();
    expect(tenant.map((e) => e.state)).toEqual(['in', 'in']);
  });

  it('refuses at once, with limiter UNPROVEN_TOKENS, beyond the queue of an address', async () => {
    const gate = createUnprovenGate();
    const admitted = UNPROVEN_CALLS_PER_CLIENT + UNPROVEN_QUEUE_PER_CLIENT;
    const entries = Array.from({ length: admitted }, () => enter(gate, JUNK_ADDRESS));
    await settle();
    expect(entries.filter((e) => e.state === 'refused')).toHaveLength(0);
    const beyond = enter(gate, JUNK_ADDRESS);
    await settle();
    expect(beyond.state).toBe('refused');
    expect(beyond.error).toBeInstanceOf(GatewayError);
    expect(beyond.error).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { limiter: 'UNPROVEN_TOKENS', retryAfterSec: 1 },
    });
    // Once a call leaves and the first queued one takes its place, the queue has room again.
    entries[0]!.leave!();
    await settle();
    expect(entries[UNPROVEN_CALLS_PER_CLIENT]!.state).toBe('in');
    const next = enter(gate, JUNK_ADDRESS);
    await settle();
    expect(next.state).toBe('waiting');
  });

  it('refuses a queued call whose signal aborts, and takes it out of the queue', async () => {
    const gate = createUnprovenGate();
    const first = [enter(gate, JUNK_ADDRESS), enter(gate, JUNK_ADDRESS)];
    const deadline = new AbortController();
    const aborted = enter(gate, JUNK_ADDRESS, deadline.signal);
    const after = enter(gate, JUNK_ADDRESS);
    await settle();
    expect(aborted.state).toBe('waiting');
    deadline.abort();
    await aborted.done;
    expect(aborted.state).toBe('refused');
    expect(aborted.error).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { limiter: 'UNPROVEN_TOKENS' },
    });
    // The place that frees goes to the call behind it, not to the one that left the queue.
    first[0]!.leave!();
    await after.done;
    expect(after.state).toBe('in');
    // And the aborted call holds no place: the next one that frees goes to a new call.
    first[1]!.leave!();
    const last = enter(gate, JUNK_ADDRESS);
    await settle();
    expect(last.state).toBe('in');
    // An already aborted signal is refused without queueing.
    const late = new AbortController();
    late.abort();
    const stillborn = enter(gate, JUNK_ADDRESS, late.signal);
    await settle();
    expect(stillborn.state).toBe('refused');
  });

  it('lets a proven token pass without a place, however full its address is', async () => {
    const gate = createUnprovenGate();
    const admitted = UNPROVEN_CALLS_PER_CLIENT + UNPROVEN_QUEUE_PER_CLIENT;
    const entries = Array.from({ length: admitted }, () => enter(gate, JUNK_ADDRESS));
    await settle();
    const tenant = 'tenant-token';
    gate.proven(tenant);
    const leave = await gate.enter(tenant, JUNK_ADDRESS, undefined);
    // Its leaving frees nobody's place (it held none).
    leave();
    await settle();
    expect(entries.filter((e) => e.state === 'in')).toHaveLength(UNPROVEN_CALLS_PER_CLIENT);
    expect(entries.filter((e) => e.state === 'waiting')).toHaveLength(UNPROVEN_QUEUE_PER_CLIENT);
  });
});
