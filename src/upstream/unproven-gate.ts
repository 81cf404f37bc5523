/**
 * Room for tokens the upstream has never answered (docs/efficiency.md "Unproven tokens"). A junk
 * token looks like a new tenant until its 401 comes back, and every call in flight holds room in
 * the route classes the whole gateway shares (the upstream's per-IP limits). A per-minute pool for
 * unknown tokens let a flood of junk lock every new tenant out for a minute; instead:
 * - a token proves itself by its first answer that is not a 401, and passes freely from then on;
 * - until then, its calls count against their client address: at most
 *   {@link UNPROVEN_CALLS_PER_CLIENT} in flight per address, the next ones queue (up to the call's
 *   deadline, at most {@link UNPROVEN_QUEUE_PER_CLIENT} of them), so junk from one address holds
 *   a few places for a few milliseconds and never touches the room of tenants from others;
 * - a refused token's call is given back to the route classes (`memory-bucket-store.ts`, the Redis
 *   script), so junk holds class room only while its calls are in flight.
 * The bound is per replica (it is about calls in flight, which a replica sees itself); what a token
 * proved on another replica it proves here again with one call.
 */
import { LRUCache } from 'lru-cache';
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import { clientGone } from './call-interest.ts';
import { entryBound } from './entry-bound.ts';

/** Calls in flight for unproven tokens from one client address. */
export const UNPROVEN_CALLS_PER_CLIENT = 2;
/** Calls queued behind them; more are refused at once. */
export const UNPROVEN_QUEUE_PER_CLIENT = 64;

export interface UnprovenGate {
  /**
   * Waits for room when the credential is unproven; returns what ends the call's place. Throws
   * RATE_LIMITED (`limiter: UNPROVEN_TOKENS`) when the address's queue is full or `signal` aborts
   * first; CLIENT_GONE when `unwanted` aborts first (nobody waits for the call any more).
   */
  enter(
    credentialId: string,
    clientAddress: string | undefined,
    signal: AbortSignal | undefined,
    unwanted?: AbortSignal,
  ): Promise<() => void>;
  /** The upstream answered this credential with something other than a 401. */
  proven(credentialId: string): void;
}

interface Address {
  inFlight: number;
  readonly queue: (() => void)[];
}

const crowded = () =>
  new GatewayError(
    ErrorCode.RATE_LIMITED,
    'Too many calls with tokens the upstream has not accepted yet come from this address; retry in 1 s',
    { retryAfterSec: 1, limiter: 'UNPROVEN_TOKENS' },
  );

const nothing = () => undefined;

export function createUnprovenGate(maxCredentials = 100_000): UnprovenGate {
  const provenIds = new LRUCache<string, true>(entryBound(maxCredentials));
  const addresses = new Map<string, Address>();

  const leave = (key: string, address: Address) => {
    const next = address.queue.shift();
    if (next) {
      next();
      return;
    }
    address.inFlight -= 1;
    if (address.inFlight === 0) addresses.delete(key);
  };

  return {
    async enter(credentialId, clientAddress, signal, unwanted) {
      if (provenIds.has(credentialId)) return nothing;
      const key = clientAddress ?? '';
      let address = addresses.get(key);
      if (!address) {
        address = { inFlight: 0, queue: [] };
        addresses.set(key, address);
      }
      const mine = address;
      let left = false;
      const leaveOnce = () => {
        if (left) return;
        left = true;
        leave(key, mine);
      };
      if (mine.inFlight < UNPROVEN_CALLS_PER_CLIENT) {
        mine.inFlight += 1;
        return leaveOnce;
      }
      if (unwanted?.aborted) throw clientGone();
      if (mine.queue.length >= UNPROVEN_QUEUE_PER_CLIENT || signal?.aborted) throw crowded();
      await new Promise<void>((resolve, reject) => {
        // A place handed over by a call that left (inFlight stays counted for this one).
        const admit = () => {
          signal?.removeEventListener('abort', onAbort);
          unwanted?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          signal?.removeEventListener('abort', onAbort);
          unwanted?.removeEventListener('abort', onAbort);
          const index = mine.queue.indexOf(admit);
          if (index >= 0) mine.queue.splice(index, 1);
          reject(unwanted?.aborted ? clientGone() : crowded());
        };
        mine.queue.push(admit);
        signal?.addEventListener('abort', onAbort, { once: true });
        unwanted?.addEventListener('abort', onAbort, { once: true });
      });
      return leaveOnce;
    },
    proven(credentialId) {
      provenIds.set(credentialId, true);
    },
  };
}
