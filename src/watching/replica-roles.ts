/**
 * Where one watch stands among the replicas (`replicas`: Redis, SUBSCRIPTION_SHARED_POLLING=
 * replicas): one poll loop per key for all of them. The replica holding the key's lease polls and
 * announces each new state (kept for late joiners, published to the others), and the others fan it
 * out to their own subscribers. The holder renews its lease every third of it; when it leaves (its
 * last subscriber gone, shutdown) it releases it and says so, and when it dies the lease lapses:
 * either way a replica still watching claims it within a third of a lease and polls on. Terminal
 * states and errors end the watch on every replica. Whenever Redis fails, a replica polls for
 * itself as it would alone, and rejoins the others when Redis answers again (docs/graph.md
 * "Subscriptions across replicas").
 */
import { ChannelListener } from './channel-listener.ts';
import { decodeRelayMessage, encodeRelayMessage, type RelayMessage } from './relay-messages.ts';
import type { WatchSharing } from './replica-sharing.ts';

type Role =
  /** Deciding (listening, claiming the lease): neither polls yet. */
  | 'starting'
  /** Holds the lease: polls, and announces each new state to the other replicas. */
  | 'holder'
  /** Another replica holds the lease: hears its announcements, polls nothing. */
  | 'follower'
  /** Redis does not answer: polls for this process alone, as without replicas. */
  | 'solo';

/** A state or error some replica polled. */
export type PolledMessage = Exclude<RelayMessage, { type: 'released' }>;

/** The watch whose role this is. */
export interface RoleHost {
  /** Whether the watch is over here. */
  stopped(): boolean;
  /** Polls from now on (unless it polls already). */
  poll(): void;
  /** Polls no more: another replica does. */
  pause(): void;
  /**
   * What another replica polled, for this process's subscribers. `joining`: a state kept from
   * before (a late subscriber's), not one just polled.
   */
  relayed(message: PolledMessage, joining: boolean): void;
}

export class ReplicaRoles {
  #role: Role = 'starting';
  #checkTimer: NodeJS.Timeout | undefined;
  #checking = false;
  /** A replica that took the lease over announces its first poll even when nothing changed. */
  #announceNext = false;
  /** Announcements heard so far: a kept state read while one arrived may be older than it. */
  #heard = 0;

  readonly #sharing: WatchSharing;
  readonly #watch: RoleHost;
  readonly #listener: ChannelListener;

  constructor(sharing: WatchSharing, watch: RoleHost) {
    this.#sharing = sharing;
    this.#watch = watch;
    this.#listener = new ChannelListener(sharing.channel, sharing.address, (text) =>
      this.#hear(text),
    );
  }

  /** Listens, then claims the lease: the holder polls at once; a follower reads the state kept. */
  async enter(): Promise<void> {
    const sharing = this.#sharing;
    try {
      if (!(await sharing.channel.usable())) throw new Error('Redis is not usable');
      await this.#listener.listen(this.#sharing.leaseMs);
      if (this.#watch.stopped()) return;
      const held = await this.#claim();
      if (held === undefined) return;
      if (held) {
        this.#role = 'holder';
        // Nobody was watching. A terminal state kept from a watch that just ended is final (the
        // resource cannot leave it): it is the answer, without a poll. Anything else kept is an
        // ended watch's last word, not this one's.
        const kept = await sharing.channel.latest(sharing.address);
        const message = kept === undefined ? undefined : decodeRelayMessage(kept);
        if (this.#watch.stopped()) return;
        if (message?.type === 'state' && message.final) {
          this.#watch.relayed(message, true);
          return;
        }
        sharing.channel.forget(sharing.address).catch((error: unknown) => sharing.down(error));
        this.#watch.poll();
      } else {
        this.#becomeFollower();
        await this.#readKept(true);
      }
    } catch (error) {
      if (this.#watch.stopped()) return;
      sharing.down(error);
      this.#becomeSolo();
    }
    this.#checkSoon(sharing.leaseMs / 3);
  }

  /** The holder tells the other replicas (kept, then published); never waited for. */
  announce(message: RelayMessage): void {
    const sharing = this.#sharing;
    if (this.#role !== 'holder') return;
    this.#announceNext = false;
    const over = message.type === 'error' || (message.type === 'state' && message.final);
    // A last word is kept only long enough for a replica that missed it to read it at its next check.
    const keepMs = over ? sharing.leaseMs * 3 : sharing.keepMs;
    sharing.channel
      .announce(sharing.address, encodeRelayMessage(message), keepMs)
      .catch((error: unknown) => sharing.down(error));
  }

  /** A state polled that is not new: announced all the same by a replica that just took over. */
  announceUnchanged(message: RelayMessage): void {
    if (this.#announceNext) this.announce(message);
  }

  /** The watch stopped here: no more checks. */
  halt(): void {
    clearTimeout(this.#checkTimer);
  }

  /** Releases the lease (inviting the others to take it unless the watch is over) and stops listening. */
  async withdraw(final: boolean): Promise<void> {
    const sharing = this.#sharing;
    try {
      if (this.#role === 'holder' || this.#role === 'solo') {
        const released = await sharing.lease.release(sharing.address, sharing.holder);
        if (released && !final) {
          await sharing.channel.publish(sharing.address, encodeRelayMessage({ type: 'released' }));
        }
      }
    } catch (error) {
      sharing.down(error);
    }
    await this.#listener.stop();
  }

  /**
   * Claims (or renews) the lease: whether this poller holds it, or undefined when the poller stopped
   * meanwhile (a lease it just took is given back).
   */
  async #claim(): Promise<boolean | undefined> {
    const sharing = this.#sharing;
    const held = await sharing.lease.claim(sharing.address, sharing.holder, sharing.leaseMs);
    if (this.#watch.stopped()) {
      if (held) await sharing.lease.release(sharing.address, sharing.holder);
      return undefined;
    }
    sharing.up();
    return held;
  }

  /**
   * Every third of a lease: the holder renews it; a follower reads the state kept (in case it missed
   * an announcement) and claims the lease (taking over when the holder released it or died); a
   * replica polling alone because Redis failed claims it too, and is back among the others when
   * Redis answers. Redis failing makes the poller poll alone: never does a watch wait on Redis.
   */
  async #check(): Promise<void> {
    if (this.#checking || this.#watch.stopped()) return;
    this.#checking = true;
    try {
      await this.#listener.listen(this.#sharing.leaseMs);
      if (this.#role === 'follower') await this.#readKept(false);
      if (this.#watch.stopped()) return;
      const held = await this.#claim();
      if (held === undefined) return;
      if (held && this.#role !== 'holder') {
        this.#role = 'holder';
        this.#announceNext = true;
        this.#watch.poll();
      } else if (!held && this.#role !== 'follower') {
        this.#becomeFollower();
        await this.#readKept(false);
      }
    } catch (error) {
      if (!this.#watch.stopped()) {
        this.#sharing.down(error);
        this.#becomeSolo();
      }
    } finally {
      this.#checking = false;
      this.#checkSoon(this.#sharing.leaseMs / 3);
    }
  }

  #checkSoon(delayMs: number): void {
    if (this.#watch.stopped()) return;
    clearTimeout(this.#checkTimer);
    this.#checkTimer = setTimeout(() => void this.#check(), delayMs);
  }

  #becomeFollower(): void {
    this.#role = 'follower';
    this.#watch.pause();
  }

  #becomeSolo(): void {
    this.#role = 'solo';
    this.#watch.poll();
  }

  #hear(text: string): void {
    if (this.#watch.stopped() || (this.#role !== 'follower' && this.#role !== 'starting')) return;
    const message = decodeRelayMessage(text);
    if (!message) return;
    if (message.type === 'released') {
      if (this.#role === 'follower') this.#checkSoon(0);
      return;
    }
    this.#heard += 1;
    this.#watch.relayed(message, false);
  }

  /**
   * Relays the state kept, unless an announcement arrived while it was read: the holder keeps a
   * state before it publishes it (on a cluster, through another node), so the one heard is at least
   * as new as the one read, and any newer is still to be heard. Relayed, the older would be pushed
   * again after the newer.
   */
  async #readKept(joining: boolean): Promise<void> {
    const sharing = this.#sharing;
    const heardBefore = this.#heard;
    const kept = await sharing.channel.latest(sharing.address);
    if (kept === undefined || this.#watch.stopped() || this.#role !== 'follower') return;
    if (this.#heard !== heardBefore) return;
    const message = decodeRelayMessage(kept);
    if (message && message.type !== 'released') this.#watch.relayed(message, joining);
  }
}
