/**
 * Cross-request singleflight: while an upstream read is in flight, identical reads join it instead
 * of making their own call. The key always starts with the credential's HMAC id, so different
 * credentials never share a call (and never see each other's answers). Joiners get their own copy
 * of the answer, so no request can change what another one reads. A call not sent yet is dropped
 * only once every request that waits for it is gone (`call-interest.ts`): the fetch gets a signal
 * that says so.
 *
 * A read that missed the cache may find no call in flight only because the one it would have
 * joined settled while its lookup was on its way (a Redis round trip under load): the answer is in
 * the cache by then. So the singleflight also tells whether a key settled lately, counted in
 * settlements rather than time: a caller notes the count before its lookup and asks after a miss.
 * The count is stamped in a fixed table by a hash of the key, not kept with the key: holding every
 * settled key would promote each one to the old generation. A stamp is only ever raised, so a key
 * that settled is never missed; two keys sharing a slot cost the caller one more lookup.
 */
import { sharedInterest, type SharedInterest } from '../call-interest.ts';

export interface Singleflight {
  /**
   * Runs `fetch` unless a call with this key is in flight; then waits for that one. `gone`: the
   * caller's request went away (absent: the caller waits for good); `fetch` gets the signal that
   * aborts once every caller waiting for the call is gone.
   */
  run<T>(
    key: string,
    fetch: (unwanted: AbortSignal | undefined) => Promise<T>,
    gone?: AbortSignal,
  ): Promise<T>;
  /** Calls in flight now. */
  readonly inFlight: number;
  /** Stops new callers from joining the calls in flight (after a write made them stale). */
  forgetAll(): void;
  /** Calls settled so far: noted before a cache lookup, for {@link Singleflight.settledSince}. */
  readonly settlements: number;
  /**
   * Whether a call with this key settled after `settlements` was `mark`: never false when one did;
   * rarely true when none did (another key settled in its slot of the table).
   */
  settledSince(key: string, mark: number): boolean;
}

/** Slots of the settlement table (a power of two): 32 KiB. */
const SETTLEMENT_SLOTS = 4096;

/** FNV-1a of a key, masked to a slot of the settlement table. */
function slotOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash & (SETTLEMENT_SLOTS - 1);
}

/**
 * A call in flight, as the map holds it: emptied when the call settles. The map lives as long as
 * the process and its keys keep changing, so V8 keeps replacing its table; a replaced table in the
 * old generation is garbage that only a full collection frees, and until then every young value
 * still in its slots — the calls in flight when it was replaced — survives each scavenge and is
 * promoted with the answer it resolved to, scavenge after scavenge (docs/performance.md). An
 * emptied box is all a stale slot keeps.
 */
interface Flight {
  call: Promise<unknown> | undefined;
  interest: SharedInterest | undefined;
}

export function createSingleflight(copy: <T>(value: T) => T = structuredClone): Singleflight {
  const calls = new Map<string, Flight>();
  let settlements = 0;
  const stamps = new Float64Array(SETTLEMENT_SLOTS);
  const settled = (key: string) => {
    settlements += 1;
    stamps[slotOf(key)] = settlements;
  };
  return {
    run<T>(
      key: string,
      fetch: (unwanted: AbortSignal | undefined) => Promise<T>,
      gone?: AbortSignal,
    ): Promise<T> {
      const joined = calls.get(key);
      const running = joined?.call as Promise<T> | undefined;
      // A call dropped because its callers left is not joined: it ends with CLIENT_GONE.
      if (running && !joined!.interest?.signal?.aborted) {
        joined!.interest?.join(gone);
        return running.then(copy);
      }
      const interest = sharedInterest(gone);
      // The callback runs once the call settles, after `flight` below exists.
      const call = fetch(interest.signal).finally(() => {
        interest.end();
        flight.call = undefined;
        flight.interest = undefined;
        if (calls.get(key) === flight) calls.delete(key);
        settled(key);
      });
      const flight: Flight = { call, interest };
      calls.set(key, flight);
      return call;
    },
    get inFlight() {
      return calls.size;
    },
    forgetAll() {
      calls.clear();
    },
    get settlements() {
      return settlements;
    },
    settledSince(key, mark) {
      return stamps[slotOf(key)]! > mark;
    },
  };
}
