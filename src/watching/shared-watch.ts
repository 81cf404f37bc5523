/**
 * One watched resource, shared by every subscriber of this process that watches it (one per key:
 * credential id + resource). A subscriber that joins late gets the latest state at once, without a
 * poll of its own; each change is pushed once (states are compared by fingerprint); a terminal
 * state completes every subscriber, and the watch stops (aborting the poll in flight) when its last
 * subscriber leaves.
 *
 * Its states come from its own poll loop (`poll-loop.ts`) or, across replicas, from the replica
 * that holds the watch's lease (`replica-roles.ts`): the two meet here, in what subscribers hear.
 */
import { emptyLedgerReport, type LedgerReport } from '../upstream/upstream-ledger.ts';
import { PollLoop, type PollSettings } from './poll-loop.ts';
import { fromWireError, toWireError } from './relay-messages.ts';
import { ReplicaRoles, type PolledMessage } from './replica-roles.ts';
import type { WatchSharing } from './replica-sharing.ts';
import { Subscriber } from './subscriber-queue.ts';
import type { EventLedger, WatchEvent, WatchSpec } from './watch-spec.ts';

export class SharedWatch<T> {
  readonly subscribers = new Set<Subscriber<T>>();
  #latest: WatchEvent<T> | undefined;
  #fingerprint: string | undefined;
  #stopped = false;
  /** Done once the lease is released and the channel left (shutdown waits for it). */
  settled: Promise<void> = Promise.resolve();

  readonly #loop: PollLoop<T>;
  readonly #roles: ReplicaRoles | undefined;
  readonly #onStop: () => void;

  constructor(
    spec: WatchSpec<T>,
    settings: PollSettings,
    onStop: () => void,
    sharing: WatchSharing | undefined,
  ) {
    this.#onStop = onStop;
    this.#loop = new PollLoop(spec, settings, {
      stopped: () => this.#stopped,
      answered: (state, fingerprint, terminal, ledger) =>
        this.#answered(state, fingerprint, terminal, ledger),
      failed: (error, upstream) => this.#failed(error, upstream),
    });
    this.#roles =
      sharing &&
      new ReplicaRoles(sharing, {
        stopped: () => this.#stopped,
        poll: () => this.#loop.start(0),
        pause: () => this.#loop.pause(),
        relayed: (message, joining) => this.#relayed(message, joining),
      });
  }

  start(): void {
    if (this.#roles) void this.#roles.enter();
    else this.#loop.start(0);
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
    this.#loop.halt();
    this.#roles?.halt();
    this.#onStop();
    if (this.#roles) this.settled = this.#roles.withdraw(final);
  }

  /** What this process polled: a new state goes to every subscriber, and to the other replicas. */
  #answered(state: T, fingerprint: string, terminal: boolean, ledger: () => LedgerReport): boolean {
    const changed = fingerprint !== this.#fingerprint;
    if (changed) {
      this.#fingerprint = fingerprint;
      const upstream = ledger();
      this.#latest = { kind: 'state', state, upstream };
      for (const subscriber of this.subscribers) subscriber.push(this.#latest);
      this.#roles?.announce({ type: 'state', fingerprint, state, upstream, final: terminal });
    } else {
      this.#roles?.announceUnchanged({
        type: 'state',
        fingerprint,
        state,
        upstream: undefined,
        final: terminal,
      });
    }
    if (terminal) this.#end(undefined, true);
    return changed;
  }

  #failed(error: unknown, upstream: LedgerReport): void {
    this.#roles?.announce({ type: 'error', error: toWireError(error), upstream });
    this.#end({ kind: 'error', error, upstream }, true);
  }

  /**
   * A state or error another replica polled, for this process's subscribers: their events carry the
   * holder's ledger (the polls that found it), marked `relayed`; a subscriber that joins a watch
   * under way gets the state kept with an empty ledger, as a late subscriber does in one process.
   */
  #relayed(message: PolledMessage, joining: boolean): void {
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
