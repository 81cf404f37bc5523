/**
 * The send window's arithmetic (slow start), which the memory store uses and the Redis script
 * mirrors; the stores' behaviour with it is in token-bucket.test.ts (memory and Redis).
 */
import { describe, expect, it } from 'vitest';
import {
  INITIAL_SEND_WINDOW,
  WINDOW_IDLE_MS,
  answerWindow,
  currentWindow,
  type SendWindowState,
} from '../../../src/upstream/send-window.ts';

const T0 = 1_000_000;
const state = (window: number, lastAnswerAt = T0): SendWindowState => ({ window, lastAnswerAt });

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
    expect(s).toEqual({ window: 9, lastAnswerAt: T0 + 2 * WINDOW_IDLE_MS });
  });
});
