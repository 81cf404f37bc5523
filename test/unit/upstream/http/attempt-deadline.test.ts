import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { attemptDeadline } from '../../../../src/upstream/http/attempt-deadline.ts';

describe('attemptDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts with a TimeoutError when the deadline passes', () => {
    const { signal } = attemptDeadline(1_000);
    vi.advanceTimersByTime(999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('aborts with the caller’s reason when the caller aborts first, and stops its timer', () => {
    const caller = new AbortController();
    const { signal } = attemptDeadline(1_000, caller.signal);
    const reason = new Error('client went away');
    caller.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('starts aborted when the caller already is', () => {
    const caller = new AbortController();
    caller.abort(new Error('gone'));
    const { signal } = attemptDeadline(1_000, caller.signal);
    expect(signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds no timer and no caller listener once released', () => {
    const caller = new AbortController();
    const listen = vi.spyOn(caller.signal, 'addEventListener');
    const unlisten = vi.spyOn(caller.signal, 'removeEventListener');
    const attempt = attemptDeadline(1_000, caller.signal);
    expect(vi.getTimerCount()).toBe(1);
    attempt.release();
    expect(vi.getTimerCount()).toBe(0);
    expect(unlisten).toHaveBeenCalledWith('abort', listen.mock.calls[0]![1]);
    vi.advanceTimersByTime(5_000);
    caller.abort(new Error('later'));
    expect(attempt.signal.aborted).toBe(false);
  });
});
