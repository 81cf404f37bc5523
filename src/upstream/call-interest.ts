/**
 * Who still waits for a call's answer. A read that is not sent yet — waiting in its credential's
 * send window, a token bucket or the unproven-token gate — is dropped once nobody does
 * (docs/budget.md "Clients that leave"): its client closed the connection, so the call would
 * spend budget and a place in the window for an answer nobody reads. A call one request makes has
 * that request's signal (`RequestScope.gone`); a call several requests share (singleflight) is
 * wanted while ANY of them still waits: {@link sharedInterest} aborts only when the last one left.
 * A waiter without a signal (work outside a request) wants it for good.
 *
 * Cost: nothing for a call with one waiter that has no signal; otherwise one AbortController and
 * one listener per waiter, removed when the call settles.
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';

/** The error of a call dropped before it was sent: nobody waited for its answer any more. */
export function clientGone(): GatewayError {
  return new GatewayError(
    ErrorCode.CLIENT_GONE,
    'The client went away before this upstream call was sent: the call was dropped',
  );
}

/** Whether `error` is a dropped call's ({@link clientGone}). */
export const isClientGone = (error: unknown): boolean =>
  error instanceof GatewayError && error.code === ErrorCode.CLIENT_GONE;

export interface SharedInterest {
  /** Aborts once every waiter has gone; undefined when the first waits for good (nothing to drop). */
  readonly signal: AbortSignal | undefined;
  /** Another waiter joined: the call is wanted until its `gone` aborts too (for good without). */
  join(gone: AbortSignal | undefined): void;
  /** The call settled: stops listening to the waiters. */
  end(): void;
}

const forGood: SharedInterest = { signal: undefined, join: () => undefined, end: () => undefined };

/** The interest in a call its first waiter, whose signal is `first`, starts. */
export function sharedInterest(first: AbortSignal | undefined): SharedInterest {
  if (!first) return forGood;
  const controller = new AbortController();
  const listened: AbortSignal[] = [];
  let waiting = 0;
  let wantedForGood = false;
  const stopListening = () => {
    for (const signal of listened) signal.removeEventListener('abort', leave);
    listened.length = 0;
  };
  function leave() {
    waiting -= 1;
    if (waiting > 0 || wantedForGood) return;
    stopListening();
    controller.abort(clientGone());
  }
  const join = (gone: AbortSignal | undefined) => {
    if (wantedForGood || controller.signal.aborted) return;
    if (!gone) {
      wantedForGood = true;
      stopListening();
      return;
    }
    // A request that asks twice (two fields, one read) waits once.
    if (gone.aborted || listened.includes(gone)) return;
    waiting += 1;
    listened.push(gone);
    gone.addEventListener('abort', leave, { once: true });
  };
  join(first);
  if (waiting === 0) controller.abort(clientGone());
  return { signal: controller.signal, join, end: stopListening };
}
