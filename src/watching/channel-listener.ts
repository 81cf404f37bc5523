/**
 * One watch's subscription to its channel, as the replica roles need it through a Redis outage: it
 * subscribes once and waits for it at most a lease. A subscribe that does not answer (Redis down: it
 * completes when Redis is back) counts as Redis failing, and the next check waits for the same
 * subscribe again; one that fails is tried afresh at the next check.
 */
import type { WatchAddress, WatchChannel } from './watch-relay.ts';

export class ChannelListener {
  #listening: Promise<() => Promise<void>> | undefined;
  #stopListening: (() => Promise<void>) | undefined;

  readonly #channel: WatchChannel;
  readonly #address: WatchAddress;
  readonly #hear: (message: string) => void;

  constructor(channel: WatchChannel, address: WatchAddress, hear: (message: string) => void) {
    this.#channel = channel;
    this.#address = address;
    this.#hear = hear;
  }

  /** Listens (unless it does already); rejects when the subscribe fails or takes over `waitMs`. */
  async listen(waitMs: number): Promise<void> {
    if (!this.#listening) {
      const listening = this.#channel.listen(this.#address, this.#hear);
      this.#listening = listening;
      listening.then(
        (stop) => {
          // Stopped while it was being set up: nobody else will stop it.
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
          timer = setTimeout(() => reject(new Error('Redis did not subscribe')), waitMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops listening. A subscribe still pending is not waited for: it stops itself once it completes. */
  async stop(): Promise<void> {
    const stop = this.#stopListening;
    this.#listening = undefined;
    this.#stopListening = undefined;
    await stop?.().catch(() => undefined);
  }
}
