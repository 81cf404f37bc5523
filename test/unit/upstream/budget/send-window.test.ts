/**
 * The send window's arithmetic (slow start), which the memory store uses and the Redis script
 * mirrors; the stores' behaviour with it is in token-bucket.test.ts (memory and Redis).
 */
import { describe, expect, it } from 'vitest';
import {
  CONFIRMED_WINDOW,
  INITIAL_SEND_WINDOW,
  WINDOW_IDLE_MS,
  answerWindow,
  currentWindow,
  type SendWindowState,
} from '../../../../src/upstream/budget/send-window.ts';

const T0 = 1_000_000;
const state = (window: number, lastAnswerAt = T0, rttMs = 0): SendWindowState => ({
  window,
  lastAnswerAt,
  rttMs,
});

describe('currentWindow', () => {
  it('is one call while the view is stale, whatever the window was', () => {
    expect(currentWindow(state(INITIAL_SEND_WINDOW), false, T0)).toBe(1);
    expect(currentWindow(state(64), false, T0)).toBe(1);
  });

  it('is the initial window for a fresh view never widened', () => {
    expect(INITIAL_SEND_WINDOW).toBe(4);
    expect(currentWindow(state(INITIAL_SEND_WINDOW, 0), true, T0)).toBe(INITIAL_SEND_WINDOW);
  });

  it('halves a wide window per WINDOW_IDLE_MS of silence, down to the initial one', () => {
    const wide = state(32);
    expect(currentWindow(wide, true, T0 + WINDOW_IDLE_MS - 1)).toBe(32);
    expect(currentWindow(wide, true, T0 + WINDOW_IDLE_MS)).toBe(16);
    expect(currentWindow(wide, true, T0 + 2 * WINDOW_IDLE_MS)).toBe(8);
    expect(currentWindow(wide, true, T0 + 3 * WINDOW_IDLE_MS)).toBe(INITIAL_SEND_WINDOW);
    expect(currentWindow(wide, true, T0 + 3_600_000)).toBe(INITIAL_SEND_WINDOW);
  });

  it('does not grow a window halved below the initial one by a surprise, nor drop it below one', () => {
    expect(currentWindow(state(2), true, T0 + 10 * WINDOW_IDLE_MS)).toBe(2);
    expect(currentWindow(state(0), true, T0)).toBe(1);
    // Not even right after an answer: a surprise means the view was wrong moments ago.
    expect(currentWindow(state(2, T0, 200), true, T0 + 1)).toBe(2);
  });

  it('halves per two round trips of silence when the upstream is slower than the floor', () => {
    const wide = state(32, T0, 500);
    expect(currentWindow(wide, true, T0 + 999)).toBe(32);
    expect(currentWindow(wide, true, T0 + 1_000)).toBe(16);
    expect(currentWindow(wide, true, T0 + 2_000)).toBe(8);
    // A fast upstream keeps the floor.
    expect(currentWindow(state(32, T0, 20), true, T0 + WINDOW_IDLE_MS)).toBe(16);
  });

  it('sends a whole round within a quarter of a round trip of an answer, then ages as before', () => {
    const heard = state(INITIAL_SEND_WINDOW, T0, 200);
    expect(currentWindow(heard, true, T0)).toBe(CONFIRMED_WINDOW);
    expect(currentWindow(heard, true, T0 + 49)).toBe(CONFIRMED_WINDOW);
    expect(currentWindow(heard, true, T0 + 50)).toBe(INITIAL_SEND_WINDOW);
    // A window already wider keeps its width; a stale view still lets one call out.
    expect(currentWindow(state(40, T0, 200), true, T0 + 10)).toBe(40);
    expect(currentWindow(heard, false, T0)).toBe(1);
    // No round trip measured yet: nothing is confirmed.
    expect(currentWindow(state(INITIAL_SEND_WINDOW, T0, 0), true, T0)).toBe(INITIAL_SEND_WINDOW);
  });
});

describe('answerWindow', () => {
  it('widens by one per answer, up to twice the calls in flight', () => {
    const s = state(INITIAL_SEND_WINDOW);
    answerWindow(s, T0, 4, false);
    expect(s.window).toBe(5);
    answerWindow(s, T0, 5, false);
    expect(s.window).toBe(6);
    // Only 2 were in flight: 2 × 2 < 7, and never below the initial window.
    answerWindow(s, T0, 2, false);
    expect(s.window).toBe(INITIAL_SEND_WINDOW);
    answerWindow(s, T0, 1, false);
    expect(s.window).toBe(INITIAL_SEND_WINDOW);
  });

  it('halves the window on a surprise 429, not below one', () => {
    const s = state(12);
    answerWindow(s, T0, 12, true);
    expect(s.window).toBe(6);
    const small = state(1);
    answerWindow(small, T0, 1, true);
    expect(small.window).toBe(1);
  });

  it('starts from the window aged by silence, and records when the answer came', () => {
    const s = state(32);
    answerWindow(s, T0 + 2 * WINDOW_IDLE_MS, 30, false);
    // 32 halved twice is 8; the answer widens it to 9.
    expect(s).toEqual({ window: 9, lastAnswerAt: T0 + 2 * WINDOW_IDLE_MS, rttMs: 0 });
  });

  it('smooths the round trips of the answered calls (the first one taken whole)', () => {
    const s = state(INITIAL_SEND_WINDOW);
    answerWindow(s, T0, 1, false, 200);
    expect(s.rttMs).toBe(200);
    answerWindow(s, T0, 1, false, 600);
    expect(s.rttMs).toBe(250);
    // An answer with no known send time (its call left the window) changes nothing.
    answerWindow(s, T0, 1, false);
    expect(s.rttMs).toBe(250);
  });
});
