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
 * the cache by then. So the singleflight also tells which keys settled lately, counted in
 * settlements rather than time: a caller notes the count before its lookup and asks after a miss.
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
   * Whether a call with this key settled after `settlements` was `mark` (false once more than
   * {@link RECENT_KEYS} other keys have settled since: then the caller fetches, as without it).
   */
  settledSince(key: string, mark: number): boolean;
}

/** Keys whose settlement is remembered, in each of two generations. */
export const RECENT_KEYS = 1024;

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
  // Two generations, the older dropped whole: bounded without a timer or a scan.
  let recent = new Map<string, number>();
  let older = new Map<string, number>();
  const settled = (key: string) => {
    settlements += 1;
    if (recent.size >= RECENT_KEYS) {
      older = recent;
      recent = new Map();
    }
    recent.set(key, settlements);
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
      return (recent.get(key) ?? older.get(key) ?? 0) > mark;
    },
  };
}
