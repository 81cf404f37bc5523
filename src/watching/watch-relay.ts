/**
 * What the shared pollers need from Redis to run one poll loop per watched resource across replicas
 * (`replica-roles.ts`; the Redis side: `redis-watch-relay.ts`): a lease that says which replica
 * polls, the watch's latest message kept for replicas that join late or missed one, and a channel
 * on which the holder announces each new state (`relay-messages.ts`). Narrow interfaces, so that
 * the pollers do not know Redis; the lease alone is its own, so that any lease that claims, renews
 * its own and releases its own can stand in for the relay's.
 */

/** Which watch: the credential's HMAC id (its keys' hash tag) and the poller's key. */
export interface WatchAddress {
  readonly credentialId: string;
  readonly key: string;
}

/** Which replica's poller polls a watch. */
export interface WatchLease {
  /**
   * Takes the watch's lease for `holder` for `ttlMs` when nobody holds it, or extends it when
   * `holder` holds it already; true when `holder` holds it now. Throws when Redis does not answer.
   */
  claim(watch: WatchAddress, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `holder` still holds it; true when it did. */
  release(watch: WatchAddress, holder: string): Promise<boolean>;
}

/** What the replicas say about a watch: its latest message kept, and each one published. */
export interface WatchChannel {
  /** Whether Redis can take commands now. */
  usable(): Promise<boolean>;
  /** Keeps `message` as the watch's latest for `keepMs` and publishes it to the listening replicas. */
  announce(watch: WatchAddress, message: string, keepMs: number): Promise<void>;
  /** Publishes `message` without keeping it. */
  publish(watch: WatchAddress, message: string): Promise<void>;
  /** The latest message kept, if any. */
  latest(watch: WatchAddress): Promise<string | undefined>;
  /** Drops the latest message kept (a new watch starts: an old watch's last word is not its). */
  forget(watch: WatchAddress): Promise<void>;
  /** Hears the watch's messages until the returned function is called. */
  listen(watch: WatchAddress, listener: (message: string) => void): Promise<() => Promise<void>>;
}

/** Both, on one Redis. */
export type WatchRelay = WatchLease & WatchChannel;
