/**
 * One upstream fetch across replicas: when several replicas that share Redis miss the same cache
 * entry at once (the same cacheable GET for the same credential), one of them fetches and stores the
 * answer in the shared cache; the others wait for it and read it from there. It sits behind the
 * per-process singleflight (`singleflight.ts`), so each replica takes part with at most one flight
 * per key; without Redis nothing of this runs.
 *
 * The protocol, per key (the key names the credential's HMAC id as a hash tag, `{<id>}`, so it works
 * on Redis Cluster too; nothing in it is a token or a request value):
 * 1. `SET <prefix>:flight:{<credential id>}:<cache key> <replica nonce> NX PX <lease> GET` — one
 *    round trip. Nothing there: this replica leads. A nonce: another replica leads; wait. `done:…`:
 *    a leader has just finished; act on its outcome at once.
 * 2. The leader fetches and stores as it would alone, renewing its lease (`PEXPIRE`, every third of
 *    it) while the fetch lasts, then — without awaiting either — replaces the lease by
 *    `done:<outcome>` for one lease and publishes `<outcome> <cache key>` on the deployment's one
 *    flight channel. The outcome is `stored` (losers read the cache), `unstored` (nothing cacheable:
 *    a TTL of 0, a GraphQL error) or `failed` (the upstream call failed): then every loser fetches
 *    for itself — what each replica does today — rather than wait for an entry that never comes.
 * 3. A loser waits for the message, at most one lease at a time; when a lease passes without it, it
 *    asks again (step 1), so a leader that died (its lease no longer renewed) is replaced by one of
 *    the losers. The whole wait is bounded by half the call's deadline; past it, the loser fetches
 *    for itself with what is left of the deadline.
 *
 * Redis never stalls a request: while the connection or the subscription is not ready, or when a
 * command fails (each has the connection's timeout), the replica fetches for itself as it does
 * without Redis. The subscription is one per process (one channel for every key), opened once Redis
 * is usable, so a miss pays no SUBSCRIBE.
 */
import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../../redis/redis-connection.ts';
import { listenToChannel } from '../../redis/redis-channel.ts';
import { claimLeaseOrReadHolder, markLease, renewLease } from '../../redis/redis-lease.ts';
import { redisKeys } from '../../redis/redis-keys.ts';

/** What became of a leader's fetch, as the losers need to know it. */
export type FlightOutcome = 'stored' | 'unstored' | 'failed';

const OUTCOMES: ReadonlySet<string> = new Set<FlightOutcome>(['stored', 'unstored', 'failed']);

/** One key's flight, as the caller describes it. */
export interface FlightRequest<T> {
  /** The credential's HMAC id (the key's hash tag). */
  readonly credentialId: string;
  /** The cache key (already an HMAC of the credential plus a digest of the request). */
  readonly key: string;
  /** The call's deadline (ms): the wait takes at most half of it. */
  readonly deadlineMs: number;
  /** Fetches and stores; `stored` says whether the shared cache now holds the answer. */
  fetch(deadlineMs: number): Promise<{ readonly value: T; readonly stored: boolean }>;
  /** Reads the answer another replica stored (undefined when it is not there, or not usable). */
  reread(): Promise<T | undefined>;
}

/** How a flight ended for this replica. */
export interface FlightResult<T> {
  readonly value: T;
  /** Whether another replica's fetch answered (this one made no upstream call). */
  readonly fromPeer: boolean;
}

export interface CrossReplicaFlight {
  run<T>(request: FlightRequest<T>): Promise<FlightResult<T>>;
  /** Whether this process listens on the flight channel (until then it fetches alone). */
  readonly listening: boolean;
  /** Flights of other replicas this process is waiting for now. */
  readonly waiting: number;
  /** Stops listening on the flight channel. */
  close(): Promise<void>;
}

export interface CrossReplicaFlightOptions {
  readonly redis: RedisConnection;
  /** `REDIS_KEY_PREFIX`: replicas of one deployment share it (and so their flights). */
  readonly prefix: string;
  /** How long a leader holds a key without renewing it (ms): a dead leader's losers wait that long. */
  readonly leaseMs: number;
  /** Told what each flight became here (metrics, tests). */
  readonly onFlight?: (role: 'led' | 'joined' | 'alone') => void;
  readonly now?: () => number;
}

const DONE = 'done:';

export function createCrossReplicaFlight(options: CrossReplicaFlightOptions): CrossReplicaFlight {
  const { redis, prefix, leaseMs } = options;
  const now = options.now ?? Date.now;
  const client = redis.client;
  const channel = redisKeys.flightDone(prefix);
  /** Names this replica as a lease's holder (not secret: only compared by eye when debugging). */
  const nonce = randomBytes(9).toString('base64url');
  const waiters = new Map<string, Set<(outcome: FlightOutcome | undefined) => void>>();

  const onMessage = (message: string) => {
    const space = message.indexOf(' ');
    const outcome = message.slice(0, space);
    const waiting = waiters.get(message.slice(space + 1));
    if (!waiting || !OUTCOMES.has(outcome)) return;
    for (const wake of waiting) wake(outcome as FlightOutcome);
  };
  const subscription = listenToChannel(redis, channel, onMessage);

  /**
   * Listens for the outcome published for `key`: `outcome` resolves with it, or with undefined when
   * `ms` pass first or `cancel` is called.
   */
  function published(
    key: string,
    ms: number,
  ): { outcome: Promise<FlightOutcome | undefined>; cancel: () => void } {
    const set = waiters.get(key) ?? new Set();
    waiters.set(key, set);
    let end: (outcome: FlightOutcome | undefined) => void = () => undefined;
    const outcome = new Promise<FlightOutcome | undefined>((resolve) => {
      end = (value) => {
        clearTimeout(timer);
        set.delete(end);
        if (set.size === 0 && waiters.get(key) === set) waiters.delete(key);
        resolve(value);
      };
    });
    const timer = setTimeout(() => end(undefined), Math.max(0, ms));
    timer.unref();
    set.add(end);
    return { outcome, cancel: () => end(undefined) };
  }

  /** Asks for the lease: null (this replica leads), another holder's nonce, or `done:<outcome>`. */
  const claim = (leaseKey: string) => claimLeaseOrReadHolder(client, leaseKey, nonce, leaseMs);

  /** Tells the losers, without making the leader's caller wait for Redis. */
  function announce(leaseKey: string, key: string, outcome: FlightOutcome): void {
    // The marker first (one connection keeps the order): a loser that asks after the publish
    // finds it instead of waiting for a message already sent.
    markLease(client, leaseKey, `${DONE}${outcome}`, leaseMs).catch(() => undefined);
    redis.publish(channel, `${outcome} ${key}`).catch(() => undefined);
  }

  async function lead<T>(
    request: FlightRequest<T>,
    leaseKey: string,
    deadlineMs: number,
  ): Promise<FlightResult<T>> {
    options.onFlight?.('led');
    const renewal = setInterval(
      () => void renewLease(client, leaseKey, leaseMs).catch(() => undefined),
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    try {
      const { value, stored } = await request.fetch(deadlineMs);
      clearInterval(renewal);
      announce(leaseKey, request.key, stored ? 'stored' : 'unstored');
      return { value, fromPeer: false };
    } catch (error) {
      clearInterval(renewal);
      announce(leaseKey, request.key, 'failed');
      throw error;
    }
  }

  async function alone<T>(request: FlightRequest<T>, deadlineMs: number): Promise<FlightResult<T>> {
    options.onFlight?.('alone');
    return { value: (await request.fetch(deadlineMs)).value, fromPeer: false };
  }

  return {
    async run<T>(request: FlightRequest<T>): Promise<FlightResult<T>> {
      if (!subscription.listening) {
        subscription.listen();
        return alone(request, request.deadlineMs);
      }
      const leaseKey = redisKeys.flight(prefix, request.credentialId, request.key);
      const startedAt = now();
      const waitUntil = startedAt + Math.floor(request.deadlineMs / 2);
      const rest = () => Math.max(1, request.deadlineMs - (now() - startedAt));
      for (;;) {
        // Listening before asking: a publish that follows the answer cannot be missed.
        const remaining = waitUntil - now();
        const message = published(request.key, Math.min(leaseMs, remaining));
        let holder: string | null;
        try {
          holder = await claim(leaseKey);
        } catch {
          message.cancel();
          return alone(request, rest()); // Redis slow or gone: as without it
        }
        if (holder === null) {
          message.cancel();
          return lead(request, leaseKey, rest()); // after a wait: what is left of the deadline
        }
        let outcome: FlightOutcome | undefined;
        if (holder.startsWith(DONE)) {
          message.cancel();
          const marked = holder.slice(DONE.length);
          outcome = OUTCOMES.has(marked) ? (marked as FlightOutcome) : 'failed';
        } else {
          outcome = await message.outcome;
        }
        if (outcome === undefined) {
          if (now() < waitUntil) continue; // a lease passed unrenewed, or still renewed: ask again
          return alone(request, rest());
        }
        if (outcome === 'stored') {
          const value = await request.reread().catch(() => undefined);
          if (value !== undefined) {
            options.onFlight?.('joined');
            return { value, fromPeer: true };
          }
        }
        return alone(request, rest());
      }
    },
    get listening() {
      return subscription.listening;
    },
    get waiting() {
      let count = 0;
      for (const set of waiters.values()) count += set.size;
      return count;
    },
    close: () => subscription.close(),
  };
}
