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

export function createSingleflight(copy: <T>(value: T) => T = structuredClone): Singleflight {
  const calls = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, fetch: () => Promise<T>): Promise<T> {
      const running = calls.get(key) as Promise<T> | undefined;
      if (running) return running.then(copy);
      const call = fetch().finally(() => {
        if (calls.get(key) === call) calls.delete(key);
      });
      calls.set(key, call);
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
