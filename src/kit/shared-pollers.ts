/**
 * Shared pollers behind the hosting subscriptions. The upstream has no events, so the gateway polls;
 * the budget (600 requests per window per credential) makes every poll count, hence:
 *
 * - ONE poller per key (credential id + resource) however many subscribers watch it; a subscriber
 *   that joins late gets the latest state at once, without a poll of its own;
 * - backoff: the interval starts at `minIntervalMs`, grows ×1.5 while nothing changes, up to
 *   `maxIntervalMs`, and drops back to the minimum after a change;
 * - each change is pushed once (states are compared by fingerprint);
 * - the poller completes every subscriber at a terminal state, and stops (aborting the poll in
 *   flight) when its last subscriber leaves;
 * - transient failures (timeouts, network, 5xx, rate limiting) back off and retry a few times;
 *   anything else, or too many in a row, is pushed as an error event and ends the watch;
 * - a resource that never settles stops being watched after `maxLifetimeMs`.
 *
 * Polls are ordinary calls through the upstream client (the `poll` function a watch passes in), so
 * they spend the same per-credential budget as every other call.
 */
import type { FastifyBaseLogger } from 'fastify';
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError, UpstreamError } from '../errors/gateway-errors.ts';
import {
  activeLedger,
  createUpstreamLedger,
  emptyLedgerReport,
  type LedgerReport,
} from '../upstream/upstream-ledger.ts';

export interface WatchSpec<T> {
  /** Identity of the poller: credential id + resource kind + ids. */
  readonly key: string;
  /** One read of the resource through the upstream client. */
  readonly poll: (signal: AbortSignal) => Promise<T>;
  readonly isTerminal: (state: T) => boolean;
  /** Equal fingerprints are the same state (pushed once); default: JSON. */
  readonly fingerprint?: (state: T) => string;
}

export type WatchEvent<T> = (
  | { readonly kind: 'state'; readonly state: T }
  | { readonly kind: 'error'; readonly error: unknown }
) & {
  /** The polls this event took (since the previous one): its ledger (docs/ledger.md). */
  readonly upstream?: LedgerReport;
};

export interface PollerOptions {
  readonly minIntervalMs: number;
  readonly maxIntervalMs: number;
  readonly maxLifetimeMs: number;
  /** Consecutive transient failures tolerated before the watch ends with the last error. */
  readonly maxTransientFailures?: number;
  readonly logger?: FastifyBaseLogger;
}

export interface PollerRegistry {
  /** Subscribes to the poller for `spec.key`, starting it if none runs. */
  watch<T>(spec: WatchSpec<T>): AsyncIterableIterator<WatchEvent<T>>;
  /** Pollers running now. */
  readonly size: number;
  /** Ends every watch (shutdown). */
  closeAll(): void;
}

const BACKOFF_FACTOR = 1.5;

/** Seconds a rate-limited poll should wait, when the failure says so. */
function retryAfterMs(error: unknown): number | undefined {
  if (error instanceof UpstreamError && error.retryAfterSec !== undefined) {
    return error.retryAfterSec * 1000;
  }
  if (error instanceof GatewayError && typeof error.details.retryAfterSec === 'number') {
    return error.details.retryAfterSec * 1000;
  }
  return undefined;
}

function isTransient(error: unknown): boolean {
  if (error instanceof UpstreamError) {
    if (error.kind === 'timeout' || error.kind === 'network') return true;
    return error.kind === 'http' && (error.status === 429 || (error.status ?? 0) >= 500);
  }
  return (
    error instanceof GatewayError &&
    (error.code === ErrorCode.RATE_LIMITED || error.code === ErrorCode.UPSTREAM_UNAVAILABLE)
  );
}

/** One subscriber's queue: events in, `next()` out. */
class Subscriber<T> implements AsyncIterableIterator<WatchEvent<T>> {
  readonly #queue: WatchEvent<T>[] = [];
  #waiting: ((result: IteratorResult<WatchEvent<T>>) => void) | undefined;
  #ended = false;

  readonly #leave: (subscriber: Subscriber<T>) => void;

  constructor(leave: (subscriber: Subscriber<T>) => void) {
    this.#leave = leave;
  }

  push(event: WatchEvent<T>): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting({ value: event, done: false });
    } else {
      this.#queue.push(event);
    }
  }

  /** No more events: queued ones are still delivered, then the iterator is done. */
  end(): void {
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<WatchEvent<T>>> {
    const event = this.#queue.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  /** The consumer left (client unsubscribed or disconnected). */
  return(): Promise<IteratorResult<WatchEvent<T>>> {
    this.#queue.length = 0;
    this.end();
    this.#leave(this);
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatchEvent<T>> {
    return this;
  }
}

class Poller<T> {
  readonly subscribers = new Set<Subscriber<T>>();
  readonly #abort = new AbortController();
  readonly #startedAt = Date.now();
  #timer: NodeJS.Timeout | undefined;
  #interval: number;
  #failures = 0;
  #latest: WatchEvent<T> | undefined;
  #fingerprint: string | undefined;
  #stopped = false;
  /** The polls since the last event pushed: the next event's ledger. */
  #ledger = createUpstreamLedger();

  private readonly spec: WatchSpec<T>;
  private readonly options: Required<Omit<PollerOptions, 'logger'>> & PollerOptions;
  private readonly onStop: () => void;

  constructor(
    spec: WatchSpec<T>,
    options: Required<Omit<PollerOptions, 'logger'>> & PollerOptions,
    onStop: () => void,
  ) {
    this.spec = spec;
    this.options = options;
    this.onStop = onStop;
    this.#interval = options.minIntervalMs;
  }

  start(): void {
    this.#schedule(0);
  }

  join(): Subscriber<T> {
    const subscriber = new Subscriber<T>((leaving) => this.#leave(leaving));
    this.subscribers.add(subscriber);
    // The state so far, at once: it cost this subscriber no poll.
    if (this.#latest) subscriber.push({ ...this.#latest, upstream: emptyLedgerReport() });
    return subscriber;
  }

  /** Ends the watch for everyone, optionally with a last event. */
  finish(last?: WatchEvent<T>): void {
    if (this.#stopped) return;
    this.#stop();
    const lastEvent = last && { ...last, upstream: this.#ledger.report(null) };
    for (const subscriber of this.subscribers) {
      if (lastEvent) subscriber.push(lastEvent);
      subscriber.end();
    }
    this.subscribers.clear();
  }

  #leave(subscriber: Subscriber<T>): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0) this.#stop();
  }

  #stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
    this.onStop();
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#tick(), delayMs);
  }

  async #tick(): Promise<void> {
    let state: T;
    try {
      state = await activeLedger.run(this.#ledger, () => this.spec.poll(this.#abort.signal));
    } catch (error) {
      if (this.#stopped) return;
      this.#failures += 1;
      const limit = this.options.maxTransientFailures;
      if (isTransient(error) && this.#failures <= limit) {
        const backoff = Math.min(this.#interval * BACKOFF_FACTOR ** this.#failures, 60_000);
        this.options.logger?.warn(
          { watch: this.spec.key.split('\u0000')[1], failures: this.#failures },
          'subscription poll failed; backing off',
        );
        this.#schedule(Math.max(backoff, retryAfterMs(error) ?? 0));
        return;
      }
      this.finish({ kind: 'error', error });
      return;
    }
    if (this.#stopped) return;
    this.#failures = 0;
    const fingerprint = (this.spec.fingerprint ?? JSON.stringify)(state);
    if (fingerprint !== this.#fingerprint) {
      this.#fingerprint = fingerprint;
      this.#latest = { kind: 'state', state, upstream: this.#ledger.report(null) };
      this.#ledger = createUpstreamLedger();
      for (const subscriber of this.subscribers) subscriber.push(this.#latest);
      this.#interval = this.options.minIntervalMs;
    } else {
      this.#interval = Math.min(this.#interval * BACKOFF_FACTOR, this.options.maxIntervalMs);
    }
    if (this.spec.isTerminal(state)) {
      this.finish();
    } else if (Date.now() - this.#startedAt >= this.options.maxLifetimeMs) {
      this.finish({
        kind: 'error',
        error: new GatewayError(
          ErrorCode.UPSTREAM_TIMEOUT,
          `Stopped watching after ${Math.round(this.options.maxLifetimeMs / 1000)} s without a ` +
            'terminal state; query the resource to read where it stands',
        ),
      });
    } else {
      this.#schedule(this.#interval);
    }
  }
}

export function createPollerRegistry(options: PollerOptions): PollerRegistry {
  const settings = {
    maxTransientFailures: 5,
    ...options,
    maxIntervalMs: Math.max(options.minIntervalMs, options.maxIntervalMs),
  };
  const pollers = new Map<string, Poller<unknown>>();

  return {
    watch<T>(spec: WatchSpec<T>): AsyncIterableIterator<WatchEvent<T>> {
      let poller = pollers.get(spec.key) as Poller<T> | undefined;
      if (!poller) {
        const created: Poller<T> = new Poller<T>(spec, settings, () => {
          if (pollers.get(spec.key) === (created as Poller<unknown>)) pollers.delete(spec.key);
        });
        pollers.set(spec.key, created as Poller<unknown>);
        created.start();
        poller = created;
      }
      return poller.join();
    },
    get size() {
      return pollers.size;
    },
    closeAll() {
      for (const poller of [...pollers.values()]) poller.finish();
    },
  };
}
