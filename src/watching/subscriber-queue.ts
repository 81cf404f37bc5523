/**
 * One subscriber of a shared watch: the events the watch pushes, queued until the client reads
 * them. Leaving (the client unsubscribed or went away) drops what is queued and tells the watch,
 * which stops polling once its last subscriber is gone.
 */
import type { WatchEvent } from './watch-spec.ts';

/** One subscriber's queue: events in, `next()` out. */
export class Subscriber<T> implements AsyncIterableIterator<WatchEvent<T>> {
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
