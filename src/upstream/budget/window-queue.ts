/**
 * Calls waiting for room in their credential's send window (`send-window.ts`), in arrival order.
 * An answer frees one place and widens the window by at most one, so it wakes the first two in
 * line, not everyone: a burst of thousands of calls behind a window of four must not retry
 * thousands of takes on every answer. A call that leaves the line wakes the next one: room for one
 * may mean room for more, and a refusal (the budget ran out) is likely the next call's answer too. Only the first few in line also look again on a timer, for what this replica
 * cannot hear of — answers on other replicas, a lease that ran out; the others wait their turn.
 */

/** How many at the head of a line also poll the store. */
export const WINDOW_POLLERS = 4;
/** Places an answer frees, at most: its own, and one more when it widens the window. */
const WOKEN_PER_ANSWER = 2;

export interface WindowPlace {
  /** Resolves when this call should look again; `polls`: it is at the head and polls as well. */
  next(): { readonly woken: Promise<void>; readonly polls: boolean };
  /** Leaves the line (with room, refused, or out of time); the first in line looks again. */
  leave(): void;
}

export interface WindowQueue {
  join(credentialId: string): WindowPlace;
  /** An answer to (or the end of) one of this credential's calls came. */
  answered(credentialId: string): void;
}

interface Place {
  wake: () => void;
}

export function createWindowQueue(): WindowQueue {
  const lines = new Map<string, Place[]>();
  const wakeFirst = (line: Place[], count: number) => {
    for (let i = 0; i < Math.min(count, line.length); i += 1) line[i]?.wake();
  };
  return {
    join(credentialId) {
      let line = lines.get(credentialId);
      if (!line) {
        line = [];
        lines.set(credentialId, line);
      }
      const mine = line;
      const place: Place = { wake: () => undefined };
      mine.push(place);
      return {
        next() {
          const woken = new Promise<void>((resolve) => {
            place.wake = resolve;
          });
          return { woken, polls: mine.indexOf(place) < WINDOW_POLLERS };
        },
        leave() {
          const index = mine.indexOf(place);
          if (index >= 0) mine.splice(index, 1);
          if (mine.length === 0) {
            if (lines.get(credentialId) === mine) lines.delete(credentialId);
            return;
          }
          // Room for one may mean room for more; a refusal (the budget ran out) is likely the next
          // call's answer too: either way the first in line looks again now.
          wakeFirst(mine, 1);
          // One left the head: the call that moved up starts polling.
          if (index >= 0 && index < WINDOW_POLLERS) mine[WINDOW_POLLERS - 1]?.wake();
        },
      };
    },
    answered(credentialId) {
      const line = lines.get(credentialId);
      if (line) wakeFirst(line, WOKEN_PER_ANSWER);
    },
  };
}
