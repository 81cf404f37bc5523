/**
 * Time the test controls, so no test waits on a fixed delay to decide an order or to let time pass.
 *
 * - `manualClock`: for code that takes a clock (`now`, and `sleep` where it waits): time moves only
 *   when the test calls `advance`, and a `sleep` ends when the clock passes its end.
 * - `fakeProcessDate`: for the in-process gateway and simulator of the integration tests. Their
 *   components take `Date.now` as their default clock when they are built, so a fake `Date`
 *   installed before the stack starts is every component's clock. It stands still until the test
 *   moves it with `advance`, so an age or a window is exactly what the test made it. Timers
 *   (`setTimeout`) and `performance.now` stay real.
 * - `until`: polls a condition with a deadline (a condition, not a delay, decides when to go on).
 * - `deferred`: a promise the test settles, to decide which of two things happens first.
 */
import { vi } from 'vitest';

export interface ManualClock {
  now(): number;
  /** Moves time forward and ends every sleep that is due, in the order they end. */
  advance(ms: number): Promise<void>;
  /**
   * A sleep on this clock: it ends when `advance` passes its end, or (unresolved, no longer
   * counted as sleeping) when `signal` aborts.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Sleeps not yet ended. */
  readonly sleeping: number;
}

export function manualClock(start = Date.now()): ManualClock {
  let at = start;
  const sleepers: { until: number; wake: () => void }[] = [];
  return {
    now: () => at,
    async advance(ms) {
      at += ms;
      sleepers.sort((a, b) => a.until - b.until);
      while (sleepers.length > 0 && (sleepers[0]?.until ?? Infinity) <= at) {
        sleepers.shift()?.wake();
        // Let the woken code run before the next sleeper wakes.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    },
    sleep(ms, signal) {
      return new Promise<void>((wake) => {
        const sleeper = { until: at + ms, wake };
        sleepers.push(sleeper);
        signal?.addEventListener(
          'abort',
          () => {
            const index = sleepers.indexOf(sleeper);
            if (index >= 0) sleepers.splice(index, 1);
          },
          { once: true },
        );
      });
    },
    get sleeping() {
      return sleepers.length;
    },
  };
}

export interface FakeProcessDate {
  /** Moves `Date` forward (timers are not fired: they are real). */
  advance(ms: number): void;
  restore(): void;
}

/**
 * Replaces `Date` in this process with one that only `advance` moves. Install it before building
 * what should read it (components keep the `Date.now` they were built with), and restore it after.
 */
export function fakeProcessDate(): FakeProcessDate {
  vi.useFakeTimers({ toFake: ['Date'] });
  return {
    advance: (ms) => vi.setSystemTime(Date.now() + ms),
    restore: () => vi.useRealTimers(),
  };
}

/** Polls `condition` until it holds, failing with `what` after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
