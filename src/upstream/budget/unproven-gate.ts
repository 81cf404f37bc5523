/**
 * Room for tokens the upstream has never answered
 * (docs/budget.md "Route classes and unproven tokens"). A junk token looks like a new tenant until
 * its 401 comes back, and every call in flight holds room in the route classes the whole gateway
 * shares (the upstream's per-IP limits). Neither the token nor the client's address tells junk from
 * a new tenant: a flood may use a new token per request, and behind a balancer every client has one
 * address (or, with `TRUST_PROXY=true`, any address it writes in `X-Forwarded-For`). So:
 * - a token proves itself by its first answer that is not a 401, and passes freely from then on;
 *   with Redis, what one replica learnt every replica knows (`redis-proven-credentials.ts`), so a
 *   known tenant is never an unproven token again because it reached another replica;
 * - until then one call per token goes to the upstream (its probe); the token's other calls wait
 *   for the probe's answer: accepted, they pass; refused (401), they are refused without a call;
 * - probes are bounded in flight: {@link UNPROVEN_CALLS_PER_CLIENT} per client address and
 *   {@link UNPROVEN_CALLS_IN_FLIGHT} in all, however many addresses the clients claim;
 * - the next probe is the newest waiting token (last in, first out) whose address has room, so a
 *   token that comes after a burst of junk goes at the first place that frees — one upstream round
 *   trip of a junk call — however long the burst; an older waiting call is the one that gives way:
 *   beyond {@link UNPROVEN_CALLS_WAITING} waiting calls the oldest is refused, and none waits past
 *   its deadline or `maxWaitMs` (refused `limiter: UNPROVEN_TOKENS`, `retryAfterSec: 1`: its retry
 *   is the newest again);
 * - a refused token's call is given back to the route classes (`memory-bucket-store.ts`, the Redis
 *   script), so junk holds class room only while its calls are in flight.
 * CPU: a map lookup per call of a proven token; for unproven ones, a scan of at most
 * {@link UNPROVEN_CALLS_WAITING} waiting calls when a place frees.
 */
import { LRUCache } from 'lru-cache';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { clientGone } from '../call-interest.ts';
import { entryBound } from '../entry-bound.ts';
import { refusedTokenError, REFUSED_CREDENTIAL_MS } from './refused-credentials.ts';

/** Probes in flight for unproven tokens, all client addresses together (per replica). */
export const UNPROVEN_CALLS_IN_FLIGHT = 4;
/** Probes in flight for unproven tokens from one client address. */
export const UNPROVEN_CALLS_PER_CLIENT = 2;
/** Calls of unproven tokens waiting, all addresses together; beyond, the oldest is refused. */
export const UNPROVEN_CALLS_WAITING = 256;
/** The longest a call of an unproven token waits, unless its deadline comes first. */
export const UNPROVEN_MAX_WAIT_MS = 5_000;

/** What the replicas know together: tokens the upstream has accepted on any of them. */
export interface SharedProof {
  /** Whether a replica has seen the upstream accept this credential; false when it cannot tell now. */
  has(credentialId: string): Promise<boolean>;
  /** Tells the other replicas (fire and forget). */
  remember(credentialId: string): void;
}

export interface UnprovenGateOptions {
  /** How many proven credentials are remembered (LRU). */
  readonly maxCredentials?: number;
  /** The longest a call waits for a place (`UPSTREAM_BUCKET_WAIT_MS`); its deadline may end it first. */
  readonly maxWaitMs?: number;
  readonly shared?: SharedProof | undefined;
  /** Told the probes in flight and the calls waiting whenever they change (metrics). */
  readonly onCount?: ((inFlight: number, waiting: number) => void) | undefined;
}

export interface UnprovenGate {
  /**
   * Waits for room when the credential is unproven; returns what ends the call's place. Throws
   * RATE_LIMITED (`limiter: UNPROVEN_TOKENS`) when the call gives way to newer ones, waits too long
   * or `signal` aborts first, UNAUTHENTICATED when the upstream refused the token's probe, and
   * CLIENT_GONE when `unwanted` aborts first (nobody waits for the call any more).
   */
  enter(
    credentialId: string,
    clientAddress: string | undefined,
    signal: AbortSignal | undefined,
    unwanted?: AbortSignal,
  ): Promise<() => void>;
  /** The upstream answered this credential with something other than a 401. */
  proven(credentialId: string): void;
  /** The upstream refused this credential (a 401 about the token): its waiting calls are refused. */
  refused(credentialId: string): void;
}

/** A token with calls in the gate. */
interface Unproven {
  readonly id: string;
  /** Its probe is in flight. */
  probing: boolean;
  /** Its calls waiting, oldest first: the first is its next probe. */
  readonly waiting: Waiter[];
}

interface Waiter {
  readonly token: Unproven;
  readonly address: string;
  /** Admitted: as the token's probe, or passing freely once the token is proven. */
  admit(asProbe: boolean): void;
  refuse(error: GatewayError): void;
}

const crowded = () =>
  new GatewayError(
    ErrorCode.RATE_LIMITED,
    'Too many calls with tokens the upstream has not accepted yet are waiting; retry in 1 s',
    { retryAfterSec: 1, limiter: 'UNPROVEN_TOKENS' },
  );

const nothing = () => undefined;

export function createUnprovenGate(options: UnprovenGateOptions = {}): UnprovenGate {
  const { shared, onCount } = options;
  const maxWaitMs = options.maxWaitMs ?? UNPROVEN_MAX_WAIT_MS;
  const provenIds = new LRUCache<string, true>(entryBound(options.maxCredentials ?? 100_000));
  const tokens = new Map<string, Unproven>();
  /** Probes in flight per address. */
  const probesOf = new Map<string, number>();
  /** Every waiting call, oldest first. */
  const queue: Waiter[] = [];
  let inFlight = 0;

  const report = () => onCount?.(inFlight, queue.length);

  const forget = (token: Unproven) => {
    if (!token.probing && token.waiting.length === 0) tokens.delete(token.id);
  };

  /** Takes a waiting call out of the queue and its token's list. */
  const unqueue = (waiter: Waiter) => {
    const at = queue.indexOf(waiter);
    if (at >= 0) queue.splice(at, 1);
    const mine = waiter.token.waiting.indexOf(waiter);
    if (mine >= 0) waiter.token.waiting.splice(mine, 1);
  };

  const hasRoom = (address: string) =>
    inFlight < UNPROVEN_CALLS_IN_FLIGHT && (probesOf.get(address) ?? 0) < UNPROVEN_CALLS_PER_CLIENT;

  const startProbe = (token: Unproven, address: string): (() => void) => {
    token.probing = true;
    inFlight += 1;
    probesOf.set(address, (probesOf.get(address) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      token.probing = false;
      inFlight -= 1;
      const probes = (probesOf.get(address) ?? 1) - 1;
      if (probes === 0) probesOf.delete(address);
      else probesOf.set(address, probes);
      forget(token);
      admitNext();
      report();
    };
  };

  /** Fills free places with the newest waiting tokens whose address has room. */
  function admitNext(): void {
    for (let i = queue.length - 1; i >= 0 && inFlight < UNPROVEN_CALLS_IN_FLIGHT; i -= 1) {
      const waiter = queue[i]!;
      if (waiter.token.probing || waiter.token.waiting[0] !== waiter) continue;
      if (!hasRoom(waiter.address)) continue;
      unqueue(waiter);
      waiter.admit(true);
    }
  }

  /** Settles every waiting call of a token. */
  const settleWaiting = (id: string, settle: (waiter: Waiter) => void) => {
    const token = tokens.get(id);
    if (!token) return;
    for (const waiter of [...token.waiting]) {
      unqueue(waiter);
      settle(waiter);
    }
    forget(token);
    admitNext();
    report();
  };

  return {
    async enter(credentialId, clientAddress, signal, unwanted) {
      if (provenIds.has(credentialId)) return nothing;
      if (shared && (await shared.has(credentialId))) {
        provenIds.set(credentialId, true);
        return nothing;
      }
      if (provenIds.has(credentialId)) return nothing;
      if (unwanted?.aborted) throw clientGone();
      if (signal?.aborted) throw crowded();
      const address = clientAddress ?? '';
      let token = tokens.get(credentialId);
      if (!token) {
        token = { id: credentialId, probing: false, waiting: [] };
        tokens.set(credentialId, token);
      }
      // The newest call goes first: with room, at once.
      if (!token.probing && token.waiting.length === 0 && hasRoom(address)) {
        const leave = startProbe(token, address);
        report();
        return leave;
      }
      const mine = token;
      const leave = await new Promise<() => void>((resolve, reject) => {
        const end = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onGiveUp);
          unwanted?.removeEventListener('abort', onGone);
        };
        const waiter: Waiter = {
          token: mine,
          address,
          admit(asProbe) {
            end();
            resolve(asProbe ? startProbe(mine, address) : nothing);
          },
          refuse(error) {
            end();
            reject(error);
          },
        };
        const leaveWith = (error: GatewayError) => {
          unqueue(waiter);
          waiter.refuse(error);
          forget(mine);
          report();
        };
        const onGiveUp = () => leaveWith(crowded());
        const onGone = () => leaveWith(clientGone());
        const timer = setTimeout(onGiveUp, maxWaitMs);
        timer.unref();
        signal?.addEventListener('abort', onGiveUp, { once: true });
        unwanted?.addEventListener('abort', onGone, { once: true });
        queue.push(waiter);
        mine.waiting.push(waiter);
        // The oldest gives way to the newest.
        if (queue.length > UNPROVEN_CALLS_WAITING) {
          const oldest = queue[0]!;
          unqueue(oldest);
          oldest.refuse(crowded());
          forget(oldest.token);
        }
        report();
      });
      return leave;
    },
    proven(credentialId) {
      if (!provenIds.has(credentialId)) {
        provenIds.set(credentialId, true);
        shared?.remember(credentialId);
      }
      settleWaiting(credentialId, (waiter) => waiter.admit(false));
    },
    refused(credentialId) {
      provenIds.delete(credentialId);
      const error = refusedTokenError(Math.ceil(REFUSED_CREDENTIAL_MS / 1000));
      settleWaiting(credentialId, (waiter) => waiter.refuse(error));
    },
  };
}
