/**
 * The send window: how many calls of one credential may be in flight that the upstream has not
 * answered yet (docs/efficiency.md "Send window"). Weft's view of a budget can be wrong however
 * recent it is — another client of the same token may spend the window between two of Weft's calls
 * — and a burst sent on a wrong view comes back as a burst of upstream 429s. So, as TCP's slow
 * start does for a network path:
 * - a stale view (never answered, its window over, no answer for a minute) lets ONE call out: its
 *   answer says what is left;
 * - a fresh view starts at {@link INITIAL_SEND_WINDOW}; each answer that confirms the budget widens
 *   it by one (so it doubles per round trip) up to twice the calls actually in flight (a window
 *   nobody fills proves nothing);
 * - a surprise (a 429 of the credential's window while Weft thought it had room) halves it;
 * - without answers it shrinks back: halved for every {@link WINDOW_IDLE_MS} of silence, down to
 *   the initial window — a budget spent behind Weft's back while it was quiet costs at most the
 *   initial window in 429s.
 * A call in flight holds its place for {@link CALL_LEASE_MS} at most (a replica that died mid-call
 * must not hold it for ever). The memory store uses these functions; the Redis script mirrors them.
 */

/** The calls a fresh view may have in flight before any of them is answered. */
export const INITIAL_SEND_WINDOW = 4;
/** Each such stretch without an answer halves the window (not below the initial one). */
export const WINDOW_IDLE_MS = 250;
/** How long an unanswered call holds its place in the window, at most. */
export const CALL_LEASE_MS = 5_000;
/** How often a call waiting for room in the window asks again. */
export const WINDOW_POLL_MS = 10;

/** The window's part of a credential's state (memory store; a Redis hash holds the same). */
export interface SendWindowState {
  /** The window as last widened or halved. */
  window: number;
  /** When the last answer came, ms; 0 = never. */
  lastAnswerAt: number;
}

/** The window now: one call while the view is stale, otherwise the window aged by silence. */
export function currentWindow(state: SendWindowState, fresh: boolean, now: number): number {
  if (!fresh) return 1;
  if (state.window <= INITIAL_SEND_WINDOW) return Math.max(1, state.window);
  const halvings = Math.floor(Math.max(0, now - state.lastAnswerAt) / WINDOW_IDLE_MS);
  return Math.max(INITIAL_SEND_WINDOW, Math.floor(state.window / 2 ** Math.min(halvings, 30)));
}

/**
 * An answer came for one of `inFlight` calls (itself included): a surprise 429 halves the window,
 * any other answer of the upstream widens it by one, up to twice what was in flight.
 */
export function answerWindow(
  state: SendWindowState,
  now: number,
  inFlight: number,
  surprise: boolean,
): void {
  const current = currentWindow(state, true, now);
  state.window = surprise
    ? Math.max(1, Math.floor(current / 2))
    : Math.min(current + 1, Math.max(INITIAL_SEND_WINDOW, 2 * inFlight));
  state.lastAnswerAt = now;
}
