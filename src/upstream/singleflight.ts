/**
 * Cross-request singleflight: while an upstream read is in flight, identical reads join it instead
 * of making their own call. The key always starts with the credential's HMAC id, so different
 * credentials never share a call (and never see each other's answers). Joiners get their own copy
 * of the answer, so no request can change what another one reads.
 */
export interface Singleflight {
  /** Runs `fetch` unless a call with this key is in flight; then waits for that one. */
  run<T>(key: string, fetch: () => Promise<T>): Promise<T>;
  /** Calls in flight now. */
  readonly inFlight: number;
  /** Stops new callers from joining the calls in flight (after a write made them stale). */
  forgetAll(): void;
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
}

export function createSingleflight(copy: <T>(value: T) => T = structuredClone): Singleflight {
  const calls = new Map<string, Flight>();
  return {
    run<T>(key: string, fetch: () => Promise<T>): Promise<T> {
      const running = calls.get(key)?.call as Promise<T> | undefined;
      if (running) return running.then(copy);
      // The callback runs once the call settles, after `flight` below exists.
      const call = fetch().finally(() => {
        flight.call = undefined;
        if (calls.get(key) === flight) calls.delete(key);
      });
      const flight: Flight = { call };
      calls.set(key, flight);
      return call;
    },
    get inFlight() {
      return calls.size;
    },
    forgetAll() {
      calls.clear();
    },
  };
}
