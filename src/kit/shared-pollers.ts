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
 *
 * Across replicas (`replicas`: Redis, SUBSCRIPTION_SHARED_POLLING=replicas), one poll loop per key
 * for all of them: the replica holding the key's lease polls and announces each new state (kept for
 * late joiners, published to the others), and the others fan it out to their own subscribers. The
 * holder renews its lease every third of it; when it leaves (its last subscriber gone, shutdown) it
 * releases it and says so, and when it dies the lease lapses: either way a replica still watching
 * claims it within a third of a lease and polls on. Terminal states and errors end the watch on
 * every replica. Whenever Redis fails, a replica polls for itself as it would alone, and rejoins the
 * others when Redis answers again (docs/hosting.md "Subscriptions across replicas").
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError, UpstreamError } from '../errors/gateway-errors.ts';
import {
  activeLedger,
  createUpstreamLedger,
  emptyLedgerReport,
  type LedgerReport,
} from '../upstream/upstream-ledger.ts';
import {
  decodeRelayMessage,
  encodeRelayMessage,
  fromWireError,
  toWireError,
  type RelayMessage,
  type WatchAddress,
  type WatchRelay,
} from './watch-relay.ts';

export interface WatchSpec<T> {
  /** Identity of the poller: credential id + resource kind + ids. */
  readonly key: string;
  /**
   * The credential's HMAC id (never its token): across replicas, the hash tag of the watch's Redis
   * keys, so that one credential's watches share a slot.
   */
  readonly credentialId: string;
  /** One read of the resource through the upstream client. */
  readonly poll: (signal: AbortSignal) => Promise<T>;
  readonly isTerminal: (state: T) => boolean;
  /** Equal fingerprints are the same state (pushed once); default: JSON. */
  readonly fingerprint?: (state: T) => string;
}

/**
 * An event's ledger (docs/ledger.md). `relayed`: the polls listed were made by the replica holding
 * the watch's lease, and this replica passed their result on (it made no poll of its own).
 */
export type EventLedger = LedgerReport & { readonly relayed?: true };

export type WatchEvent<T> = (
  | { readonly kind: 'state'; readonly state: T }
  | { readonly kind: 'error'; readonly error: unknown }
) & {
  /** The polls this event took (since the previous one): its ledger (docs/ledger.md). */
  readonly upstream?: EventLedger;
};

export interface PollerOptions {
  readonly minIntervalMs: number;
  readonly maxIntervalMs: number;
  readonly maxLifetimeMs: number;
  /** Consecutive transient failures tolerated before the watch ends with the last error. */
  readonly maxTransientFailures?: number;
  readonly logger?: FastifyBaseLogger;
  /** One poll loop per key across the replicas sharing this Redis; without it, one per process. */
  readonly replicas?: ReplicaSharing;
}

export interface ReplicaSharing {
  readonly relay: WatchRelay;
  /**
   * How long a lease lasts unless renewed. The holder renews it, and the others try to claim it,
   * every third of it: a replica that dies is replaced within a lease and a third.
   */
  readonly leaseMs: number;
}

export interface PollerRegistry {
  /** Subscribes to the poller for `spec.key`, starting it if none runs. */
  watch<T>(spec: WatchSpec<T>): AsyncIterableIterator<WatchEvent<T>>;
  /** Pollers running now. */
  readonly size: number;
  /** Ends every watch here (shutdown); resolves once their leases are released. */
  closeAll(): Promise<void>;
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

/** Where a poller stands among the replicas (only with {@link PollerOptions.replicas}). */
type Role =
  /** Deciding (listening, claiming the lease): neither polls yet. */
  | 'starting'
  /** Holds the lease: polls, and announces each new state to the other replicas. */
  | 'holder'
  /** Another replica holds the lease: hears its announcements, polls nothing. */
  | 'follower'
  /** Redis does not answer (or no Redis): polls for this process alone, as without replicas. */
  | 'solo';

/** One watch's share of the replicas' coordination. */
interface WatchSharing {
  readonly relay: WatchRelay;
  readonly address: WatchAddress;
  /** This poller's name on the lease (replica id + a counter: a stale release never frees another). */
  readonly holder: string;
  readonly leaseMs: number;
  /** How long a state announced stays kept (the watch's longest life). */
  readonly keepMs: number;
  /** Redis failed: logged once per outage, for the whole registry. */
  down(error: unknown): void;
  up(): void;
}

class Poller<T> {
  readonly subscribers = new Set<Subscriber<T>>();
  readonly #startedAt = Date.now();
  /** Aborts the poll in flight when polling stops (last subscriber gone, or the lease went elsewhere). */
  #pollAbort = new AbortController();
  #pollTimer: NodeJS.Timeout | undefined;
  #polling = false;
  #interval: number;
  #failures = 0;
  #latest: WatchEvent<T> | undefined;
  #fingerprint: string | undefined;
  #stopped = false;
  /** The polls since the last event pushed: the next event's ledger. */
  #ledger = createUpstreamLedger();
  #role: Role = 'solo';
  #checkTimer: NodeJS.Timeout | undefined;
  #checking = false;
  #listening: Promise<() => Promise<void>> | undefined;
  #stopListening: (() => Promise<void>) | undefined;
  /** A replica that took the lease over announces its first poll even when nothing changed. */
  #announceNext = false;
  /** Done once the lease is released and the channel left (shutdown waits for it). */
  settled: Promise<void> = Promise.resolve();

  private readonly spec: WatchSpec<T>;
  private readonly options: Required<Omit<PollerOptions, 'logger' | 'replicas'>> & PollerOptions;
  private readonly onStop: () => void;
  private readonly sharing: WatchSharing | undefined;

  constructor(
    spec: WatchSpec<T>,
    options: Required<Omit<PollerOptions, 'logger' | 'replicas'>> & PollerOptions,
    onStop: () => void,
    sharing: WatchSharing | undefined,
  ) {
    this.spec = spec;
    this.options = options;
    this.onStop = onStop;
    this.sharing = sharing;
    this.#interval = options.minIntervalMs;
  }

  start(): void {
    if (!this.sharing) {
      this.#startPolling(0);
      return;
    }
    this.#role = 'starting';
    void this.#enter(this.sharing);
  }

  join(): Subscriber<T> {
    const subscriber = new Subscriber<T>((leaving) => this.#leave(leaving));
    this.subscribers.add(subscriber);
    // The state so far, at once: it cost this subscriber no poll.
    if (this.#latest) subscriber.push({ ...this.#latest, upstream: emptyLedgerReport() });
    return subscriber;
  }

  /** Ends the watch here (shutdown): another replica's subscribers go on watching. */
  finish(): void {
    this.#end(undefined, false);
  }

  /**
   * Ends the watch for this process's subscribers, after `last` when given. `final`: the watch is
   * over everywhere (a terminal state or an error), so the lease is released without inviting
   * another replica to poll on.
   */
  #end(last: WatchEvent<T> | undefined, final: boolean): void {
    if (this.#stopped) return;
    this.#stop(final);
    for (const subscriber of this.subscribers) {
      if (last) subscriber.push(last);
      subscriber.end();
    }
    this.subscribers.clear();
  }

  #leave(subscriber: Subscriber<T>): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0) this.#stop(false);
  }

  #stop(final: boolean): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#pollTimer);
    clearTimeout(this.#checkTimer);
    this.#pollAbort.abort();
    this.onStop();
    if (this.sharing) this.settled = this.#withdraw(this.sharing, final);
  }

  /** Releases the lease (inviting the others to take it unless the watch is over) and stops listening. */
  async #withdraw(sharing: WatchSharing, final: boolean): Promise<void> {
    try {
      if (this.#role === 'holder' || this.#role === 'solo') {
        const released = await sharing.relay.release(sharing.address, sharing.holder);
        if (released && !final) {
          await sharing.relay.publish(sharing.address, encodeRelayMessage({ type: 'released' }));
        }
      }
    } catch (error) {
      sharing.down(error);
    }
    // A subscribe still pending (Redis down) is not waited for: it stops itself once it completes.
    const stop = this.#stopListening;
    this.#listening = undefined;
    this.#stopListening = undefined;
    await stop?.().catch(() => undefined);
  }

  #startPolling(delayMs: number): void {
    if (this.#polling) return;
    this.#polling = true;
    this.#interval = this.options.minIntervalMs;
    this.#schedule(delayMs);
  }

  #stopPolling(): void {
    if (!this.#polling) return;
    this.#polling = false;
    clearTimeout(this.#pollTimer);
    this.#pollAbort.abort();
    this.#pollAbort = new AbortController();
  }

  #schedule(delayMs: number): void {
    if (this.#stopped || !this.#polling) return;
    this.#pollTimer = setTimeout(() => void this.#tick(), delayMs);
  }

  async #tick(): Promise<void> {
    const { signal } = this.#pollAbort;
    let state: T;
    try {
      state = await activeLedger.run(this.#ledger, () => this.spec.poll(signal));
    } catch (error) {
      if (this.#stopped || signal.aborted) return;
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
      this.#endWithError(error);
      return;
    }
    if (this.#stopped || signal.aborted) return;
    this.#failures = 0;
    const fingerprint = (this.spec.fingerprint ?? JSON.stringify)(state);
    const terminal = this.spec.isTerminal(state);
    if (fingerprint !== this.#fingerprint) {
      this.#fingerprint = fingerprint;
      const upstream = this.#ledger.report(null);
      this.#latest = { kind: 'state', state, upstream };
      this.#ledger = createUpstreamLedger();
      for (const subscriber of this.subscribers) subscriber.push(this.#latest);
      this.#announce({ type: 'state', fingerprint, state, upstream, final: terminal });
      this.#interval = this.options.minIntervalMs;
    } else {
      if (this.#announceNext) {
        this.#announce({ type: 'state', fingerprint, state, upstream: undefined, final: terminal });
      }
      this.#interval = Math.min(this.#interval * BACKOFF_FACTOR, this.options.maxIntervalMs);
    }
    if (terminal) {
      this.#end(undefined, true);
    } else if (Date.now() - this.#startedAt >= this.options.maxLifetimeMs) {
      this.#endWithError(
        new GatewayError(
          ErrorCode.UPSTREAM_TIMEOUT,
          `Stopped watching after ${Math.round(this.options.maxLifetimeMs / 1000)} s without a ` +
            'terminal state; query the resource to read where it stands',
        ),
      );
    } else {
      this.#schedule(this.#interval);
    }
  }

  #endWithError(error: unknown): void {
    const upstream = this.#ledger.report(null);
    this.#announce({ type: 'error', error: toWireError(error), upstream });
    this.#end({ kind: 'error', error, upstream }, true);
  }

  /** The holder tells the other replicas (kept, then published); never waited for. */
  #announce(message: RelayMessage): void {
    const sharing = this.sharing;
    if (!sharing || this.#role !== 'holder') return;
    this.#announceNext = false;
    const over = message.type === 'error' || (message.type === 'state' && message.final);
    // A last word is kept only long enough for a replica that missed it to read it at its next check.
    const keepMs = over ? sharing.leaseMs * 3 : sharing.keepMs;
    sharing.relay
      .announce(sharing.address, encodeRelayMessage(message), keepMs)
      .catch((error: unknown) => sharing.down(error));
  }

  // --- Among replicas ---------------------------------------------------------------------------

  /**
   * Claims (or renews) the lease: whether this poller holds it, or undefined when the poller stopped
   * meanwhile (a lease it just took is given back).
   */
  async #claim(sharing: WatchSharing): Promise<boolean | undefined> {
    const held = await sharing.relay.claim(sharing.address, sharing.holder, sharing.leaseMs);
    if (this.#stopped) {
      if (held) await sharing.relay.release(sharing.address, sharing.holder);
      return undefined;
    }
    sharing.up();
    return held;
  }

  /** Listens, then claims the lease: the holder polls at once; a follower reads the state kept. */
  async #enter(sharing: WatchSharing): Promise<void> {
    try {
      if (!(await sharing.relay.usable())) throw new Error('Redis is not usable');
      await this.#listen(sharing);
      if (this.#stopped) return;
      const held = await this.#claim(sharing);
      if (held === undefined) return;
      if (held) {
        this.#role = 'holder';
        // Nobody was watching. A terminal state kept from a watch that just ended is final (the
        // resource cannot leave it): it is the answer, without a poll. Anything else kept is an
        // ended watch's last word, not this one's.
        const kept = await sharing.relay.latest(sharing.address);
        const message = kept === undefined ? undefined : decodeRelayMessage(kept);
        if (this.#stopped) return;
        if (message?.type === 'state' && message.final) {
          this.#relay(message, true);
          return;
        }
        sharing.relay.forget(sharing.address).catch((error: unknown) => sharing.down(error));
        this.#startPolling(0);
      } else {
        this.#becomeFollower();
        await this.#readKept(sharing, true);
      }
    } catch (error) {
      if (this.#stopped) return;
      sharing.down(error);
      this.#becomeSolo();
    }
    this.#checkSoon(sharing.leaseMs / 3);
  }

  /**
   * Every third of a lease: the holder renews it; a follower reads the state kept (in case it missed
   * an announcement) and claims the lease (taking over when the holder released it or died); a
   * replica polling alone because Redis failed claims it too, and is back among the others when
   * Redis answers. Redis failing makes the poller poll alone: never does a watch wait on Redis.
   */
  async #check(sharing: WatchSharing): Promise<void> {
    if (this.#checking || this.#stopped) return;
    this.#checking = true;
    try {
      await this.#listen(sharing);
      if (this.#role === 'follower') await this.#readKept(sharing, false);
      if (this.#stopped) return;
      const held = await this.#claim(sharing);
      if (held === undefined) return;
      if (held && this.#role !== 'holder') {
        this.#role = 'holder';
        this.#announceNext = true;
        this.#startPolling(0);
      } else if (!held && this.#role !== 'follower') {
        this.#becomeFollower();
        await this.#readKept(sharing, false);
      }
    } catch (error) {
      if (!this.#stopped) {
        sharing.down(error);
        this.#becomeSolo();
      }
    } finally {
      this.#checking = false;
      this.#checkSoon(sharing.leaseMs / 3);
    }
  }

  #checkSoon(delayMs: number): void {
    if (this.#stopped || !this.sharing) return;
    const sharing = this.sharing;
    clearTimeout(this.#checkTimer);
    this.#checkTimer = setTimeout(() => void this.#check(sharing), delayMs);
  }

  #becomeFollower(): void {
    this.#role = 'follower';
    this.#stopPolling();
  }

  #becomeSolo(): void {
    this.#role = 'solo';
    this.#startPolling(0);
  }

  /**
   * Subscribes to the watch's channel once, and waits for it at most a lease: a subscribe that does
   * not answer (Redis down: it completes when Redis is back) counts as Redis failing, and the next
   * check waits for the same subscribe again. One that fails is tried afresh at the next check.
   */
  async #listen(sharing: WatchSharing): Promise<void> {
    if (!this.#listening) {
      const listening = sharing.relay.listen(sharing.address, (text) => this.#hear(text));
      this.#listening = listening;
      listening.then(
        (stop) => {
          // Withdrawn while it was being set up: nobody else will stop it.
          if (this.#listening !== listening) void stop().catch(() => undefined);
          else this.#stopListening = stop;
        },
        () => {
          if (this.#listening === listening) this.#listening = undefined;
        },
      );
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.#listening,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('Redis did not subscribe')), sharing.leaseMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  #hear(text: string): void {
    if (this.#stopped || (this.#role !== 'follower' && this.#role !== 'starting')) return;
    const message = decodeRelayMessage(text);
    if (!message) return;
    if (message.type === 'released') {
      if (this.#role === 'follower') this.#checkSoon(0);
      return;
    }
    this.#relay(message, false);
  }

  async #readKept(sharing: WatchSharing, joining: boolean): Promise<void> {
    const kept = await sharing.relay.latest(sharing.address);
    if (kept === undefined || this.#stopped || this.#role !== 'follower') return;
    const message = decodeRelayMessage(kept);
    if (message && message.type !== 'released') this.#relay(message, joining);
  }

  /**
   * A state or error another replica polled, for this process's subscribers: their events carry the
   * holder's ledger (the polls that found it), marked `relayed`; a subscriber that joins a watch
   * under way gets the state kept with an empty ledger, as a late subscriber does in one process.
   */
  #relay(message: Exclude<RelayMessage, { type: 'released' }>, joining: boolean): void {
    const upstream: EventLedger =
      joining || !message.upstream ? emptyLedgerReport() : { ...message.upstream, relayed: true };
    if (message.type === 'error') {
      this.#end({ kind: 'error', error: fromWireError(message.error), upstream }, true);
      return;
    }
    if (message.fingerprint !== this.#fingerprint) {
      this.#fingerprint = message.fingerprint;
      this.#latest = { kind: 'state', state: message.state as T, upstream };
      for (const subscriber of this.subscribers) subscriber.push(this.#latest);
    }
    if (message.final) this.#end(undefined, true);
  }
}

export function createPollerRegistry(options: PollerOptions): PollerRegistry {
  const settings = {
    maxTransientFailures: 5,
    ...options,
    maxIntervalMs: Math.max(options.minIntervalMs, options.maxIntervalMs),
  };
  const pollers = new Map<string, Poller<unknown>>();
  const sharingOf = options.replicas && sharingFor(options.replicas, settings, options.logger);

  return {
    watch<T>(spec: WatchSpec<T>): AsyncIterableIterator<WatchEvent<T>> {
      let poller = pollers.get(spec.key) as Poller<T> | undefined;
      if (!poller) {
        const created: Poller<T> = new Poller<T>(
          spec,
          settings,
          () => {
            if (pollers.get(spec.key) === (created as Poller<unknown>)) pollers.delete(spec.key);
          },
          sharingOf?.(spec),
        );
        pollers.set(spec.key, created as Poller<unknown>);
        created.start();
        poller = created;
      }
      return poller.join();
    },
    get size() {
      return pollers.size;
    },
    async closeAll() {
      const running = [...pollers.values()];
      for (const poller of running) poller.finish();
      await Promise.all(running.map((poller) => poller.settled));
    },
  };
}

/** Each watch's share of the coordination; Redis failures are logged once per outage. */
function sharingFor(
  replicas: ReplicaSharing,
  settings: { readonly maxLifetimeMs: number },
  logger: FastifyBaseLogger | undefined,
): (spec: Pick<WatchSpec<unknown>, 'key' | 'credentialId'>) => WatchSharing {
  const replicaId = randomBytes(6).toString('hex');
  let watches = 0;
  let degraded = false;
  const down = (error: unknown) => {
    if (!degraded) {
      logger?.warn(
        { err: error instanceof Error ? { message: error.message } : undefined },
        'subscription polling: Redis unavailable, each replica polls for itself',
      );
    }
    degraded = true;
  };
  const up = () => {
    if (degraded) logger?.info('subscription polling: back to one poll loop across replicas');
    degraded = false;
  };
  return (spec) => {
    watches += 1;
    return {
      relay: replicas.relay,
      address: { credentialId: spec.credentialId, key: spec.key },
      holder: `${replicaId}.${watches}`,
      leaseMs: replicas.leaseMs,
      keepMs: settings.maxLifetimeMs + replicas.leaseMs,
      down,
      up,
    };
  };
}
