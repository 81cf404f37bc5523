/**
 * The abort signal of one upstream attempt: aborted when the operation's deadline passes (with a
 * `TimeoutError`, as `AbortSignal.timeout` would) or when the caller's own signal aborts.
 *
 * Not `AbortSignal.any([AbortSignal.timeout(ms), caller])`: a timeout signal cannot be cancelled, so
 * every attempt left a timer, a weakly held signal and its registry entry alive for the whole
 * deadline (10 s by default) after it had long been answered — thousands at a few hundred requests
 * a second, each promoted to the old generation and collected by full GCs. `release()` ends this
 * one's timer and listener as soon as the attempt is over.
 */
export interface AttemptDeadline {
  readonly signal: AbortSignal;
  /** Stops the timer and the caller listener (idempotent); the signal stays as it is. */
  release(): void;
}

export function attemptDeadline(ms: number, caller?: AbortSignal): AttemptDeadline {
  const controller = new AbortController();
  if (caller?.aborted) {
    controller.abort(caller.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const timer = setTimeout(() => {
    caller?.removeEventListener('abort', onCallerAbort);
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, ms);
  // Like AbortSignal.timeout: a pending deadline does not keep the process alive.
  timer.unref();
  function onCallerAbort() {
    clearTimeout(timer);
    controller.abort(caller?.reason);
  }
  caller?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
    },
  };
}
