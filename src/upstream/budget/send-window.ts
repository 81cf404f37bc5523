/**
 * The send window: how many calls of one credential may be in flight that the upstream has not
 * answered yet (docs/budget.md "The send window"). Weft's view of a budget can be wrong however
 * recent it is — another client of the same token may spend the window between two of Weft's calls
 * — and a burst sent on a wrong view comes back as a burst of upstream 429s. So, as TCP's slow
 * start does for a network path:
 * - a stale view (never answered, its window over, no answer for a minute) lets ONE call out: its
 *   answer says what is left;
 * - a fresh view starts at {@link INITIAL_SEND_WINDOW}; each answer that confirms the budget widens
 *   it by one (so it doubles per round trip) up to twice the calls actually in flight (a window
 *   nobody fills proves nothing);
 * - a surprise (a 429 of the credential's window while Weft thought it had room) halves it;
 * - without answers it shrinks back: halved for every stretch of silence as long as two of the
 *   upstream's round trips (at least {@link WINDOW_IDLE_MS}), down to the initial window — a
 *   budget spent behind Weft's back while it was quiet costs at most the initial window in 429s;
 * - a view the upstream confirmed moments ago — less than a quarter of its round trip — sends a
 *   whole round at once ({@link CONFIRMED_WINDOW}): the calls a screen makes from the answers it
 *   just got. For that view to be wrong, another client would have to spend what is left within
 *   that quarter of a round trip; waiting a round trip per few calls instead is what made a cold
 *   screen take several round trips where the upstream needs two.
 * The round trip is the credential's own, smoothed over its answered calls (as TCP's SRTT): what
 * the upstream is showing now, not a constant. A call in flight holds its place for
 * {@link CALL_LEASE_MS} at most (a replica that died mid-call must not hold it for ever). The
 * memory store uses these functions; the Redis script mirrors them.
 */

/** The calls a fresh view may have in flight before any of them is answered. */
export const INITIAL_SEND_WINDOW = 4;
/** The shortest stretch without an answer that halves the window (not below the initial one). */
export const WINDOW_IDLE_MS = 250;
/** Calls in flight a view confirmed moments ago may have: a whole round of a screen. */
export const CONFIRMED_WINDOW = 32;
/** The part of a round trip within which an answer still confirms the view (see above). */
export const CONFIRMED_SHARE_OF_RTT = 0.25;
/** The weight of each new round trip in the smoothed one (TCP's 1/8). */
export const RTT_GAIN = 1 / 8;
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
  /** The smoothed round trip of the credential's answered calls, ms; 0 = none measured yet. */
  rttMs: number;
}

/** The stretch of silence that halves the window: two round trips, not less than the floor. */
export const idleMsOf = (rttMs: number): number => Math.max(WINDOW_IDLE_MS, 2 * rttMs);

/** The window as last set, aged by the silence since the last answer. */
function agedWindow(state: SendWindowState, now: number): number {
  if (state.window <= INITIAL_SEND_WINDOW) return Math.max(1, state.window);
  const silence = Math.max(0, now - state.lastAnswerAt);
  const halvings = Math.floor(silence / idleMsOf(state.rttMs));
  return Math.max(INITIAL_SEND_WINDOW, Math.floor(state.window / 2 ** Math.min(halvings, 30)));
}

/**
 * Whether the upstream confirmed the view moments ago: within a quarter of its round trip, and
 * not since a surprise halved the window below the initial one.
 */
const confirmed = (state: SendWindowState, now: number): boolean =>
  state.window >= INITIAL_SEND_WINDOW &&
  now - state.lastAnswerAt < CONFIRMED_SHARE_OF_RTT * state.rttMs;

/**
 * The window now: one call while the view is stale, a whole round while it was confirmed moments
 * ago, otherwise the window aged by silence.
 */
export function currentWindow(state: SendWindowState, fresh: boolean, now: number): number {
  if (!fresh) return 1;
  const aged = agedWindow(state, now);
  return confirmed(state, now) ? Math.max(aged, CONFIRMED_WINDOW) : aged;
}

/**
 * An answer came for one of `inFlight` calls (itself included), `rttMs` after it was sent: a
 * surprise 429 halves the window, any other answer of the upstream widens it by one, up to twice
 * what was in flight; the round trip joins the smoothed one.
 */
export function answerWindow(
  state: SendWindowState,
  now: number,
  inFlight: number,
  surprise: boolean,
  rttMs?: number,
): void {
  const current = agedWindow(state, now);
  state.window = surprise
    ? Math.max(1, Math.floor(current / 2))
    : Math.min(current + 1, Math.max(INITIAL_SEND_WINDOW, 2 * inFlight));
  state.lastAnswerAt = now;
  if (rttMs !== undefined && rttMs >= 0) {
    const sample = Math.min(rttMs, CALL_LEASE_MS);
    state.rttMs = state.rttMs > 0 ? state.rttMs + (sample - state.rttMs) * RTT_GAIN : sample;
  }
}
