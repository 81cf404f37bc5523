/**
 * Refused documents cost their sender, not everyone: a client whose documents were refused more
 * than {@link REFUSALS_BEFORE_THROTTLE} times within {@link REFUSAL_WINDOW_MS} gets 429 for the rest
 * of that window, answered when its request arrives — before its body is read or parsed. A client
 * is its credential (the HMAC id) when it sends a token, else its address. Per replica, in memory:
 * a flood is local to the replica it hits.
 */
import { createWindowCounter } from '../window-counter.ts';

export const REFUSALS_BEFORE_THROTTLE = 20;
export const REFUSAL_WINDOW_MS = 10_000;

export interface RefusalThrottle {
  /** Counts a refused document of this client. */
  noteRefusal(client: string): void;
  /** Seconds until the client may send again, when it is throttled. */
  retryAfterSec(client: string): number | undefined;
}

export function createRefusalThrottle(now: () => number = Date.now): RefusalThrottle {
  const refusals = createWindowCounter(REFUSAL_WINDOW_MS, now);
  return {
    noteRefusal(client) {
      refusals.add(client);
    },
    retryAfterSec(client) {
      const window = refusals.peek(client);
      if (!window || window.count <= REFUSALS_BEFORE_THROTTLE) return undefined;
      return Math.max(1, Math.ceil((window.until - now()) / 1000));
    },
  };
}
