/**
 * The simulation's clock: events in time order (ties in the order they were scheduled), on a
 * binary heap. Nothing here waits on real time.
 */

interface Event {
  readonly at: number;
  readonly order: number;
  readonly run: () => void;
}

export interface EventQueue {
  /** The time of the event running now, ms. */
  readonly now: number;
  /** Runs `run` at `at` (not before now). */
  at(at: number, run: () => void): void;
  /** Runs every event up to `until`, in order; events may schedule more. */
  runUntil(until: number): void;
}

export function createEventQueue(): EventQueue {
  const heap: Event[] = [];
  let order = 0;
  let now = 0;
  const before = (a: Event, b: Event) => a.at < b.at || (a.at === b.at && a.order < b.order);
  const push = (event: Event) => {
    heap.push(event);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >>> 1;
      const up = heap[parent] as Event;
      if (!before(event, up)) break;
      heap[index] = up;
      index = parent;
    }
    heap[index] = event;
  };
  const pop = (): Event | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child =
        right < heap.length && before(heap[right] as Event, heap[left] as Event) ? right : left;
      if (!before(heap[child] as Event, last)) break;
      heap[index] = heap[child] as Event;
      index = child;
    }
    heap[index] = last;
    return top;
  };
  return {
    get now() {
      return now;
    },
    at(at, run) {
      push({ at: Math.max(at, now), order: (order += 1), run });
    },
    runUntil(until) {
      for (;;) {
        const next = heap[0];
        if (next === undefined || next.at > until) break;
        pop();
        now = next.at;
        next.run();
      }
      now = until;
    },
  };
}
