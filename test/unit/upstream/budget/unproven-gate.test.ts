/**
 * The gate for tokens the upstream has never answered: one probe per token, a few probes in flight
 * per client address and a few in all, the newest waiting token first, a bounded wait, and free
 * passage once a token has proved itself (here or, through the shared proof, on another replica).
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../../src/errors/error-codes.ts';
import { GatewayError } from '../../../../src/errors/gateway-errors.ts';
import {
  UNPROVEN_CALLS_IN_FLIGHT,
  UNPROVEN_CALLS_PER_CLIENT,
  UNPROVEN_CALLS_WAITING,
  createUnprovenGate,
  type SharedProof,
  type UnprovenGate,
} from '../../../../src/upstream/budget/unproven-gate.ts';

const JUNK_ADDRESS = '203.0.113.7';
const TENANT_ADDRESS = '198.51.100.1';

let n = 0;
const token = () => `unproven-${(n += 1)}`;

/** An entry into the gate whose progress the test can read without awaiting it. */
function enter(
  gate: UnprovenGate,
  address: string | undefined,
  signal?: AbortSignal,
  credential = token(),
) {
  const entry = {
    state: 'waiting' as 'waiting' | 'in' | 'refused',
    error: undefined as unknown,
    leave: undefined as (() => void) | undefined,
    done: undefined as unknown as Promise<void>,
  };
  entry.done = gate.enter(credential, address, signal).then(
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
type Entry = ReturnType<typeof enter>;
const states = (entries: readonly Entry[]) => entries.map((e) => e.state);
const count = (entries: readonly Entry[], state: Entry['state']) =>
  entries.filter((e) => e.state === state).length;

/** Lets every settled promise run its callbacks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('unproven gate', () => {
  it('lets two calls per address in flight; the third waits and goes when one leaves', async () => {
    expect(UNPROVEN_CALLS_PER_CLIENT).toBe(2);
    const gate = createUnprovenGate();
    const entries = [1, 2, 3].map(() => enter(gate, JUNK_ADDRESS));
    await settle();
    expect(states(entries)).toEqual(['in', 'in', 'waiting']);
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
    expect(count(junk, 'in')).toBe(UNPROVEN_CALLS_PER_CLIENT);
    const tenant = [enter(gate, TENANT_ADDRESS), enter(gate, TENANT_ADDRESS)];
    await settle();
    expect(states(tenant)).toEqual(['in', 'in']);
  });

  it('holds probes from every address together to the global cap, whatever addresses they claim', async () => {
    const gate = createUnprovenGate();
    // A new address per call, as a random X-Forwarded-For makes them.
    const junk = Array.from({ length: 64 }, (_, i) => enter(gate, `203.0.113.${i}`));
    await settle();
    expect(count(junk, 'in')).toBe(UNPROVEN_CALLS_IN_FLIGHT);
    expect(count(junk, 'waiting')).toBe(64 - UNPROVEN_CALLS_IN_FLIGHT);
  });

  it('gives the next place to the newest waiting token: a tenant after 70 junk calls goes first', async () => {
    const gate = createUnprovenGate();
    const junk = Array.from({ length: 70 }, () => enter(gate, JUNK_ADDRESS));
    await settle();
    const tenant = enter(gate, JUNK_ADDRESS);
    await settle();
    expect(tenant.state).toBe('waiting');
    junk[0]!.leave!();
    await tenant.done;
    expect(tenant.state).toBe('in');
    // Only the two junk calls that were in flight ever were.
    expect(count(junk, 'in')).toBe(UNPROVEN_CALLS_PER_CLIENT);
  });

  it('refuses the oldest waiting call, with limiter UNPROVEN_TOKENS, beyond the calls that may wait', async () => {
    const gate = createUnprovenGate();
    const entries = Array.from({ length: UNPROVEN_CALLS_PER_CLIENT + UNPROVEN_CALLS_WAITING }, () =>
      enter(gate, JUNK_ADDRESS),
    );
    await settle();
    expect(count(entries, 'refused')).toBe(0);
    const newest = enter(gate, JUNK_ADDRESS);
    await settle();
    expect(newest.state).toBe('waiting');
    const oldestWaiting = entries[UNPROVEN_CALLS_PER_CLIENT]!;
    expect(oldestWaiting.state).toBe('refused');
    expect(oldestWaiting.error).toBeInstanceOf(GatewayError);
    expect(oldestWaiting.error).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { limiter: 'UNPROVEN_TOKENS', retryAfterSec: 1 },
    });
    expect(count(entries, 'refused')).toBe(1);
  });

  it('refuses a waiting call whose signal aborts or whose wait runs out, and takes it out', async () => {
    const gate = createUnprovenGate({ maxWaitMs: 50 });
    const first = [enter(gate, JUNK_ADDRESS), enter(gate, JUNK_ADDRESS)];
    const deadline = new AbortController();
    const aborted = enter(gate, JUNK_ADDRESS, deadline.signal);
    await settle();
    expect(aborted.state).toBe('waiting');
    deadline.abort();
    await aborted.done;
    expect(aborted.state).toBe('refused');
    expect(aborted.error).toMatchObject({
      code: ErrorCode.RATE_LIMITED,
      details: { limiter: 'UNPROVEN_TOKENS' },
    });
    // The wait is bounded: refused once maxWaitMs is over (the event, not a sleep, decides).
    const late = enter(gate, JUNK_ADDRESS);
    await late.done;
    expect(late.error).toMatchObject({ details: { limiter: 'UNPROVEN_TOKENS' } });
    // Neither holds a place: the next one that frees goes to a new call.
    first[1]!.leave!();
    const last = enter(gate, JUNK_ADDRESS);
    await settle();
    expect(last.state).toBe('in');
    // An already aborted signal is refused without waiting.
    const gone = new AbortController();
    gone.abort();
    const stillborn = enter(gate, JUNK_ADDRESS, gone.signal);
    await settle();
    expect(stillborn.state).toBe('refused');
  });

  it('sends one probe per token: its other calls pass once it is proven, or are refused with its 401', async () => {
    const gate = createUnprovenGate();
    const tenant = [1, 2, 3].map(() => enter(gate, TENANT_ADDRESS, undefined, 'tenant'));
    const junk = [1, 2, 3].map(() => enter(gate, JUNK_ADDRESS, undefined, 'junk'));
    await settle();
    expect(states(tenant)).toEqual(['in', 'waiting', 'waiting']);
    expect(states(junk)).toEqual(['in', 'waiting', 'waiting']);
    gate.proven('tenant');
    await settle();
    expect(states(tenant)).toEqual(['in', 'in', 'in']);
    gate.refused('junk');
    await settle();
    expect(states(junk)).toEqual(['in', 'refused', 'refused']);
    expect(junk[1]!.error).toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    // The followers held no place: leaving frees the probes' two.
    tenant[0]!.leave!();
    junk[0]!.leave!();
    const next = [enter(gate, JUNK_ADDRESS), enter(gate, JUNK_ADDRESS)];
    await settle();
    expect(states(next)).toEqual(['in', 'in']);
  });

  it('lets a proven token pass without a place, however full the gate is', async () => {
    const gate = createUnprovenGate();
    const entries = Array.from({ length: 100 }, (_, i) => enter(gate, `203.0.113.${i}`));
    await settle();
    gate.proven('tenant-token');
    const leave = await gate.enter('tenant-token', JUNK_ADDRESS, undefined);
    // Its leaving frees nobody's place (it held none).
    leave();
    await settle();
    expect(count(entries, 'in')).toBe(UNPROVEN_CALLS_IN_FLIGHT);
  });

  it('lets a token another replica proved pass, and tells the others what it proves', async () => {
    const known = new Set(['proven-elsewhere']);
    const shared: SharedProof = {
      has: async (id) => known.has(id),
      remember: (id) => known.add(id),
    };
    const gate = createUnprovenGate({ shared });
    const junk = Array.from({ length: 10 }, () => enter(gate, JUNK_ADDRESS));
    await settle();
    const elsewhere = enter(gate, JUNK_ADDRESS, undefined, 'proven-elsewhere');
    await settle();
    expect(elsewhere.state).toBe('in');
    expect(count(junk, 'in')).toBe(UNPROVEN_CALLS_PER_CLIENT);
    gate.proven('new-here');
    expect(known.has('new-here')).toBe(true);
  });
});
