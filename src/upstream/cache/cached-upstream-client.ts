/**
 * The cache and singleflight layers of the upstream client (their place among the others:
 * `create-upstream-stack.ts`). Per call, the route's declared policy (`cache-policy.ts`) decides:
 * - cacheable read: a fresh entry answers without an upstream call; otherwise one call per key is in
 *   flight at a time (singleflight) and its answer is stored — when the call carries a free filter
 *   (a date the client picks), only on its key's second sight (`second-sight-admission.ts`); the
 *   first answer is still replayable by the whole-response cache. With a cross-replica flight (Redis),
 *   that one call is also the only one among the replicas (`cross-replica-flight.ts`): the others
 *   read the answer it stored. When that call fails with a 5xx, a 429,
 *   a network error or a timeout, the token bucket is empty or the circuit is open, an entry no older than
 *   `CACHE_STALE_MAX_AGE_SEC` answers instead and the request's facts say so (`extensions.stale`);
 * - write: after it (or after a failure that may have applied it) the tags it makes stale are
 *   invalidated for every credential;
 * - anything else: passed through; identical GETs still share one call.
 */
import type { FastifyBaseLogger } from 'fastify';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError, UpstreamError } from '../../errors/gateway-errors.ts';
import type { CacheKeyer } from './cache-key.ts';
import type { CacheDecision, CachePolicy } from './cache-policy.ts';
import type { CrossReplicaFlight } from './cross-replica-flight.ts';
import { wasNotSent } from '../transport.ts';
import type { StaleReason } from '../request-facts.ts';
import type { CachedAnswer, CacheLookup, UpstreamCache } from './upstream-cache.ts';
import type { SecondSightAdmission } from './second-sight-admission.ts';
import type { Singleflight } from './singleflight.ts';
import type { UpstreamResponse } from '../upstream-call.ts';
import type { UpstreamClient } from '../upstream-call.ts';
import type { RoutedCall } from '../upstream-routes.ts';

export interface CachedUpstreamClientOptions {
  readonly inner: UpstreamClient<RoutedCall>;
  readonly cache: UpstreamCache;
  readonly policy: CachePolicy;
  readonly keyOf: CacheKeyer;
  readonly singleflight: Singleflight;
  /** One fetch per cache miss across the replicas sharing Redis (absent: per process only). */
  readonly acrossReplicas?: CrossReplicaFlight | undefined;
  /** The configured per-operation deadline (`UPSTREAM_DEADLINE_MS`): bounds a wait for a peer. */
  readonly deadlineMs?: number;
  /** Oldest entry served when the upstream fails (ms). */
  readonly staleMaxAgeMs: number;
  readonly logger: FastifyBaseLogger;
  readonly now?: () => number;
  /** Told the result of every cacheable lookup (metrics). */
  readonly onLookup?: (result: 'hit' | 'miss' | 'stale') => void;
  /**
   * Stores an answer to a call with a free filter only on its key's second sight (absent: every
   * answer is stored). Only worth it where the whole-response cache answers a repeated screen.
   */
  readonly admission?: SecondSightAdmission | undefined;
}

/** Response headers worth keeping with an entry (not the budget, not per-response plumbing). */
const DROPPED_HEADERS =
  /^(ratelimit-|retry-after$|date$|connection$|keep-alive$|transfer-encoding$|content-length$|set-cookie$|x-request-id$)/;

const keptHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!DROPPED_HEADERS.test(name)) kept[name] = value;
  }
  return kept;
};

/** Failures a stale value may stand in for, and how the response names them. */
function staleReasonOf(error: unknown): StaleReason | undefined {
  if (error instanceof GatewayError) {
    // Refused before sending: an empty bucket, or an open circuit (upstream known to be failing).
    if (error.code === ErrorCode.RATE_LIMITED) return 'RATE_LIMITED';
    return error.code === ErrorCode.UPSTREAM_UNAVAILABLE ? 'UPSTREAM_ERROR' : undefined;
  }
  if (!(error instanceof UpstreamError)) return undefined;
  if (error.kind === 'network' || error.kind === 'timeout') return 'UPSTREAM_ERROR';
  if (error.kind !== 'http' || error.status === undefined) return undefined;
  if (error.status === 429) return 'RATE_LIMITED';
  return error.status >= 500 ? 'UPSTREAM_ERROR' : undefined;
}

/** Whether a failed write may still have changed upstream state (then its tags are invalidated). */
function mayHaveApplied(error: unknown): boolean {
  if (error instanceof GatewayError) return false; // refused before sending
  if (!(error instanceof UpstreamError)) return true;
  if (error.kind === 'http') return (error.status ?? 500) >= 500;
  return !wasNotSent(error);
}

/**
 * A call that others may join: it must not die with the first caller's abort signal, and it is
 * dropped before it is sent only when every caller waiting for it is gone (`unwanted`, the
 * singleflight's signal for it).
 */
const shareable = (call: RoutedCall, unwanted: AbortSignal | undefined): RoutedCall => {
  if (!call.signal && call.unwanted === unwanted) return call;
  const { signal: _signal, ...rest } = call;
  return { ...rest, unwanted };
};

/** A caller's own abort still ends its wait for a shared call (the call goes on for the others). */
function abortable<T>(shared: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return shared;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    shared.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/** What a response that used an answer may be replayed on: its tags' versions and freshness. */
type Validity = Pick<CachedAnswer, 'tags' | 'freshUntil'>;

/** An upstream answer, and the cache entry it became (when it was stored). */
interface Fetched<T> {
  readonly response: UpstreamResponse<T>;
  /**
   * The entry it became, or — not admitted yet (second-sight rule) — what it would have been valid
   * for; undefined when it may not be replayed at all.
   */
  readonly stored: Validity | undefined;
  /** Whether the store succeeded (other replicas can read it). */
  readonly persisted?: boolean;
  /** Whether another replica's call answered (read from the shared cache). */
  readonly fromPeer?: boolean;
}

export function createCachedUpstreamClient(
  options: CachedUpstreamClientOptions,
): UpstreamClient<RoutedCall> {
  const { inner, cache, policy, keyOf, singleflight, logger } = options;
  const now = options.now ?? Date.now;
  let lastStoreWarning = 0;
  const warnStore = (error: unknown, what: string) => {
    // One line per minute at most: a Redis outage must not flood the log.
    if (now() - lastStoreWarning < 60_000) return;
    lastStoreWarning = now();
    logger.warn({ err: { message: (error as Error).message } }, `upstream cache: ${what} failed`);
  };

  const answerOf = <T>(entry: CachedAnswer): UpstreamResponse<T> => ({
    status: entry.status,
    data: entry.data as T,
    headers: entry.headers,
    rateLimit: undefined,
  });

  async function fetchAndStore<T>(
    call: RoutedCall,
    decision: Extract<CacheDecision, { type: 'cache' }>,
    key: string,
    lookup: CacheLookup | undefined,
    admitted: boolean,
  ): Promise<Fetched<T>> {
    const startedAt = now();
    const response = await inner.request<T>(call);
    const { data } = response;
    const ttlSec = decision.ttlOf ? decision.ttlOf(data, decision.ttlSec) : decision.ttlSec;
    // Without the tag versions read before the call, validity could not be checked: store nothing.
    if (lookup && ttlSec > 0 && !admitted) {
      // First sight of a free filter: not kept, but as valid as if it were (a replay may use it).
      return { response, stored: { tags: lookup.versions, freshUntil: startedAt + ttlSec * 1000 } };
    }
    if (lookup && ttlSec > 0) {
      const answer: CachedAnswer = {
        status: response.status,
        data,
        headers: keptHeaders(response.headers),
        storedAt: startedAt,
        freshUntil: startedAt + ttlSec * 1000,
        tags: lookup.versions,
      };
      try {
        await cache.store(key, answer, ttlSec * 1000 + options.staleMaxAgeMs);
      } catch (error) {
        warnStore(error, 'store');
        return { response, stored: answer, persisted: false };
      }
      return { response, stored: answer, persisted: true };
    }
    return { response, stored: undefined };
  }

  /**
   * The one fetch of this process for a missed key: across the replicas too when a cross-replica
   * flight is configured, and the versions were read (a loser checks the peer's entry with them);
   * a `fresh` call wants an answer newer than any in flight, so it fetches for itself.
   */
  async function fetchOnce<T>(
    call: RoutedCall,
    decision: Extract<CacheDecision, { type: 'cache' }>,
    key: string,
    lookup: CacheLookup | undefined,
    admitted: boolean,
  ): Promise<Fetched<T>> {
    const { acrossReplicas } = options;
    // Not admitted, the answer is not stored: another replica would wait for nothing to read.
    if (!acrossReplicas || !lookup || call.fresh || !admitted) {
      return fetchAndStore<T>(call, decision, key, lookup, admitted);
    }
    const { value } = await acrossReplicas.run<Fetched<T>>({
      credentialId: call.credential.id,
      key,
      deadlineMs: call.deadlineMs ?? options.deadlineMs ?? 10_000,
      fetch: async (deadlineMs) => {
        const own = { ...call, deadlineMs };
        const fetched = await fetchAndStore<T>(own, decision, key, lookup, true);
        return { value: fetched, stored: fetched.persisted === true };
      },
      reread: async () => {
        const again = await cache.lookup(key, decision.tags);
        const entry = again.entry;
        if (!entry || now() >= entry.freshUntil) return undefined;
        return { response: answerOf<T>(entry), stored: entry, fromPeer: true };
      },
    });
    return value;
  }

  async function lookUp(key: string, tags: readonly string[]): Promise<CacheLookup | undefined> {
    try {
      return await cache.lookup(key, tags);
    } catch (error) {
      warnStore(error, 'lookup');
      return undefined;
    }
  }

  const isFresh = (entry: CachedAnswer | undefined): entry is CachedAnswer =>
    entry !== undefined && now() < entry.freshUntil;

  async function cached<T>(
    call: RoutedCall,
    decision: Extract<CacheDecision, { type: 'cache' }>,
  ): Promise<UpstreamResponse<T>> {
    const key = keyOf(call, decision.kind);
    const mark = singleflight.settlements;
    let lookup = await lookUp(key, decision.tags);
    // The call this one would have joined settled while the lookup was on its way: its answer, if
    // kept, is in the cache now. One more lookup instead of a second upstream call.
    if (!call.fresh && !isFresh(lookup?.entry) && singleflight.settledSince(key, mark)) {
      lookup = (await lookUp(key, decision.tags)) ?? lookup;
    }
    const entry = lookup?.entry;
    if (isFresh(entry) && !call.fresh) {
      options.onLookup?.('hit');
      call.ledgerEntry?.servedBy('cache');
      call.scope?.facts?.recordCacheUse(entry.tags, entry.freshUntil);
      return answerOf<T>(entry);
    }
    options.onLookup?.('miss');
    // Every miss counts as a sight, a joiner's too; the call that fetches decides by its own. A key
    // with an entry (stale) was admitted before.
    const admitted =
      !decision.freeFilter || entry !== undefined || options.admission?.seenBefore(key) !== false;
    let led = false;
    try {
      const { response, stored, fromPeer } = await abortable(
        singleflight.run(
          key,
          (unwanted) => {
            led = true;
            return fetchOnce<T>(shareable(call, unwanted), decision, key, lookup, admitted);
          },
          call.unwanted,
        ),
        call.signal,
      );
      if (!led || fromPeer) call.ledgerEntry?.servedBy('coalesced');
      // Every caller that joined the shared call records it (for the whole-response cache).
      if (stored) call.scope?.facts?.recordCacheUse(stored.tags, stored.freshUntil);
      else call.scope?.facts?.markUnreplayable();
      return response;
    } catch (error) {
      // A failed read (even one answered stale, or a 404 a resolver turns into null) is not replayed.
      call.scope?.facts?.markUnreplayable();
      const reason = staleReasonOf(error);
      const ageMs = entry ? now() - entry.storedAt : Infinity;
      if (!entry || !reason || ageMs > entry.freshUntil - entry.storedAt + options.staleMaxAgeMs) {
        throw error;
      }
      const route = `${call.method} ${call.route}`;
      const ageSec = Math.floor(ageMs / 1000);
      call.scope?.facts?.recordStale({ route, ageSec, reason });
      call.ledgerEntry?.servedBy('stale');
      options.onLookup?.('stale');
      logger.info({ route, ageSec, reason }, 'upstream failed: served a stale cached value');
      return answerOf<T>(entry);
    }
  }

  async function write<T>(call: RoutedCall, tags: readonly string[]) {
    const invalidate = async () => {
      // New readers must not join reads that started before this write.
      singleflight.forgetAll();
      try {
        await cache.invalidate(tags);
      } catch (error) {
        warnStore(error, 'invalidation');
      }
    };
    try {
      const response = await inner.request<T>(call);
      await invalidate();
      return response;
    } catch (error) {
      if (mayHaveApplied(error)) await invalidate();
      throw error;
    }
  }

  /** An uncached GET: identical ones in flight share one call. */
  async function joinedGet<T>(call: RoutedCall): Promise<UpstreamResponse<T>> {
    let led = false;
    const response = await abortable(
      singleflight.run(
        keyOf(call, 'get'),
        (unwanted) => {
          led = true;
          return inner.request<T>(shareable(call, unwanted));
        },
        call.unwanted,
      ),
      call.signal,
    );
    if (!led) call.ledgerEntry?.servedBy('coalesced');
    return response;
  }

  return {
    request<T>(call: RoutedCall): Promise<UpstreamResponse<T>> {
      const decision = policy.decide(call, call.declared?.cache);
      switch (decision.type) {
        case 'cache':
          return cached<T>(call, decision);
        case 'invalidate':
          call.scope?.facts?.markUnreplayable();
          return write<T>(call, decision.tags);
        case 'pass':
          call.scope?.facts?.markUnreplayable();
          return call.method === 'GET' ? joinedGet<T>(call) : inner.request<T>(call);
      }
    },
    probe: (timeoutMs) => inner.probe(timeoutMs),
    close: () => inner.close(),
  };
}
