/**
 * One watch's poll loop: polls at `minIntervalMs`, backs off ×1.5 while nothing changes up to
 * `maxIntervalMs`, and is back at the minimum after a change; a failed poll is waited out, longer
 * each time, while the failure policy tolerates it (`transient-failures.ts`). A resource that never
 * settles stops being watched after `maxLifetimeMs`. Each poll runs under the ledger of the next
 * event, which the watch takes with each new state.
 *
 * The loop can pause (another replica polls) and start again (this one takes over), and halts for
 * good when the watch stops; either aborts the poll in flight.
 */
import type { FastifyBaseLogger } from 'fastify';
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import {
  activeLedger,
  createUpstreamLedger,
  type LedgerReport,
} from '../upstream/upstream-ledger.ts';
import { TransientFailures } from './transient-failures.ts';
import type { WatchSpec } from './watch-spec.ts';

export interface PollSettings {
  readonly minIntervalMs: number;
  readonly maxIntervalMs: number;
  readonly maxLifetimeMs: number;
  /** Consecutive transient failures tolerated before the watch ends with the last error. */
  readonly maxTransientFailures: number;
  readonly logger?: FastifyBaseLogger | undefined;
}

/** The watch a loop polls for. */
export interface PollListener<T> {
  /** Whether the watch is over: a poll that ends after it is dropped. */
  stopped(): boolean;
  /**
   * A poll answered: whether its state is new. `ledger` hands over the polls since the previous
   * event (taken for a new state only). A terminal state ends the watch.
   */
  answered(state: T, fingerprint: string, terminal: boolean, ledger: () => LedgerReport): boolean;
  /** The watch ends with `error`, and the polls since the previous event. */
  failed(error: unknown, upstream: LedgerReport): void;
}

const BACKOFF_FACTOR = 1.5;
const MAX_FAILURE_BACKOFF_MS = 60_000;

export class PollLoop<T> {
  readonly #startedAt = Date.now();
  /** Aborts the poll in flight when polling pauses or halts. */
  #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  #interval: number;
  readonly #failures: TransientFailures;
  /** The polls since the last event pushed: the next event's ledger. */
  #ledger = createUpstreamLedger();

  readonly #spec: WatchSpec<T>;
  readonly #settings: PollSettings;
  readonly #watch: PollListener<T>;

  constructor(spec: WatchSpec<T>, settings: PollSettings, watch: PollListener<T>) {
    this.#spec = spec;
    this.#settings = settings;
    this.#watch = watch;
    this.#interval = settings.minIntervalMs;
    this.#failures = new TransientFailures(settings.maxTransientFailures);
  }

  /** Polls after `delayMs`, then on (unless it polls already). */
  start(delayMs: number): void {
    if (this.#polling) return;
    this.#polling = true;
    this.#interval = this.#settings.minIntervalMs;
    this.#schedule(delayMs);
  }

  /** Polls no more until started again. */
  pause(): void {
    if (!this.#polling) return;
    this.#polling = false;
    clearTimeout(this.#timer);
    this.#abort.abort();
    this.#abort = new AbortController();
  }

  /** The watch stopped. */
  halt(): void {
    clearTimeout(this.#timer);
    this.#abort.abort();
  }

  #schedule(delayMs: number): void {
    if (this.#watch.stopped() || !this.#polling) return;
    this.#timer = setTimeout(() => void this.#tick(), delayMs);
  }

  async #tick(): Promise<void> {
    const { signal } = this.#abort;
    let state: T;
    try {
      state = await activeLedger.run(this.#ledger, () => this.#spec.poll(signal));
    } catch (error) {
      if (this.#watch.stopped() || signal.aborted) return;
      this.#failed(error);
      return;
    }
    if (this.#watch.stopped() || signal.aborted) return;
    this.#failures.reset();
    const fingerprint = (this.#spec.fingerprint ?? JSON.stringify)(state);
    const terminal = this.#spec.isTerminal(state);
    const changed = this.#watch.answered(state, fingerprint, terminal, () => this.#takeLedger());
    this.#interval = changed
      ? this.#settings.minIntervalMs
      : Math.min(this.#interval * BACKOFF_FACTOR, this.#settings.maxIntervalMs);
    if (terminal) return;
    if (Date.now() - this.#startedAt >= this.#settings.maxLifetimeMs) {
      this.#watch.failed(
        new GatewayError(
          ErrorCode.UPSTREAM_TIMEOUT,
          `Stopped watching after ${Math.round(this.#settings.maxLifetimeMs / 1000)} s without a ` +
            'terminal state; query the resource to read where it stands',
        ),
        this.#ledger.report(null),
      );
      return;
    }
    this.#schedule(this.#interval);
  }

  #failed(error: unknown): void {
    const tolerated = this.#failures.tolerate(error);
    if (!tolerated) {
      this.#watch.failed(error, this.#ledger.report(null));
      return;
    }
    const backoff = Math.min(
      this.#interval * BACKOFF_FACTOR ** tolerated.inRow,
      MAX_FAILURE_BACKOFF_MS,
    );
    this.#settings.logger?.warn(
      { watch: this.#spec.key.split('\u0000')[1], failures: tolerated.inRow },
      'subscription poll failed; backing off',
    );
    this.#schedule(Math.max(backoff, tolerated.retryAfterMs));
  }

  #takeLedger(): LedgerReport {
    const upstream = this.#ledger.report(null);
    this.#ledger = createUpstreamLedger();
    return upstream;
  }
}
