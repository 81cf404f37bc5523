/**
 * Wires the whole-response cache into the GraphQL route: a `preHandler` (step 3 of
 * operation-pipeline.ts, after the document checks) replays a stored response before Apollo runs,
 * and an Apollo plugin offers each successful query response to the cache when it is sent.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import type { BudgetSnapshot, BudgetTracker } from '../../upstream/budget-tracker.ts';
import { graphqlParamsOf } from '../graphql-params.ts';
import type { RequestCredential } from '../request-credential.ts';
import { jsonResponseType } from '../graphql-route/media-types.ts';
import { asksForLedger, LEDGER_HEADERS } from '../ledger-header.ts';
import { ESTIMATE_HEADER } from '../demand-control/upstream-call-policy.ts';
import type { GraphqlResponseCache, Replay } from './graphql-response-cache.ts';
import type { HeldReplays } from './held-replays.ts';
import type { ResultEncoding } from './result-encoding.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The response-cache key of this GraphQL request, when it may be replayed or stored. */
    replayKey: string | undefined;
  }
}

export const REPLAY_HEADER = 'x-weft-response-cache';

/**
 * What a kept answer depends on besides its URL: the caller (`Authorization`), the negotiated type,
 * the store header, the ledger and the estimate headers and — for the CORS headers — the page's
 * origin. Replaces the `Vary: Origin` the CORS layer set, so it names that too.
 */
const REPLAY_VARY = [
  'origin',
  'authorization',
  'accept',
  'x-store-id',
  ...LEDGER_HEADERS,
  'weft-estimate',
].join(', ');

export interface ResponseReplayOptions {
  readonly cache: GraphqlResponseCache;
  readonly credentialOf: RequestCredential;
  readonly metrics: GatewayMetrics | undefined;
  /** The caller's budget, for a replay's ledger (`Weft-Ledger: 1`). */
  readonly budget: BudgetTracker;
}

/**
 * A replay's body with its ledger: no call listed — the whole response came from the cache — and
 * the budget as it stands (docs/budget.md).
 */
async function withReplayLedger(body: Buffer, budget: BudgetSnapshot | undefined): Promise<string> {
  const result = JSON.parse(body.toString('utf8')) as { extensions?: Record<string, unknown> };
  result.extensions = {
    ...result.extensions,
    upstream: {
      replayed: true,
      calls: [],
      totals: { upstream: 0, withoutUpstream: 0 },
      budget: budget ?? null,
    },
  };
  return JSON.stringify(result);
}

/**
 * How a replayable answer may be kept by the client's cache and revalidated: privately (it is one
 * credential's), for as long as it stays fresh here, with a validator for `If-None-Match`, and
 * only for the same request headers.
 */
export function setReplayHeaders(
  reply: { header(name: string, value: string): unknown },
  replay: Pick<Replay, 'etag' | 'freshUntil'>,
  now = Date.now(),
): void {
  const maxAge = Math.max(0, Math.floor((replay.freshUntil - now) / 1000));
  reply.header('cache-control', `private, max-age=${maxAge}`);
  reply.header('etag', replay.etag);
  reply.header('vary', REPLAY_VARY);
}

/** Whether the client already holds this body (`If-None-Match`, weak comparison). */
function clientHolds(request: FastifyRequest, etag: string): boolean {
  const tags = request.headers['if-none-match'];
  if (tags === undefined) return false;
  return tags
    .split(',')
    .some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*');
}

/**
 * The replay step: sets `request.replayKey` on a GET or POST query that may be replayed or stored,
 * and answers it from the cache when a valid response is stored (the route decorates `replayKey`)
 * — `304 Not Modified` when the client's `If-None-Match` already names it.
 *
 * A step of the route's preHandler (graphql-route/hook-steps.ts): a replay this process holds and
 * knows to be valid is answered synchronously, without a promise; anything else waits for the
 * lookup.
 */
export function createReplayHook(options: ResponseReplayOptions) {
  /** Answers with the replay; a promise only when the answer needs the budget (`Weft-Ledger: 1`). */
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    replay: Replay,
    started: number,
  ): FastifyReply | Promise<FastifyReply> => {
    const durationMs = performance.now() - started;
    options.metrics?.operation(replay.operationName, 'success', durationMs / 1000);
    request.operationLog = {
      operationName: replay.operationName,
      errors: 0,
      durationMs: Math.round(durationMs),
      responseCache: 'hit',
    };
    reply.header(REPLAY_HEADER, 'hit');
    setReplayHeaders(reply, replay);
    if (clientHolds(request, replay.etag)) return reply.status(304).send();
    const type = jsonResponseType(request.headers);
    if (!asksForLedger(request.headers)) return reply.type(type).send(replay.body);
    const credential = options.credentialOf(request);
    return (credential ? options.budget.snapshot(credential) : Promise.resolve(undefined))
      .catch(() => undefined)
      .then((budget) => withReplayLedger(replay.body, budget))
      .then((body) => reply.type(type).send(body));
  };

  return (
    request: FastifyRequest,
    reply: FastifyReply,
  ): FastifyReply | Promise<FastifyReply | undefined> | undefined => {
    const key = replayKeyOf(request, options);
    if (key === undefined) return undefined;
    request.replayKey = key;
    const started = performance.now();
    const known = options.cache.known(key);
    if (known) return answer(request, reply, known, started);
    return options.cache
      .lookup(key)
      .catch(() => undefined)
      .then((replay) => replay && answer(request, reply, replay, started));
  };
}

/** The response-cache key of a GET or POST query that may be replayed or stored, else undefined. */
function replayKeyOf(request: FastifyRequest, options: ResponseReplayOptions): string | undefined {
  if (request.method !== 'POST' && request.method !== 'GET') return undefined;
  const params = graphqlParamsOf(request);
  const credential = options.credentialOf(request);
  if (!credential || !params) return undefined;
  const { query, persistedHash } = params;
  if (query === undefined && persistedHash === undefined) return undefined;
  // `Weft-Estimate: 1` asks for the bound, not the data: it is never answered from, nor kept as,
  // a replay.
  if (request.headers[ESTIMATE_HEADER] === '1') return undefined;
  const storeHeader = request.headers['x-store-id'];
  return options.cache.keyOf({
    credentialId: credential.id,
    storeIdHeader: typeof storeHeader === 'string' ? storeHeader : undefined,
    query,
    persistedHash,
    operationName: params.operationName,
    variables: params.variables,
  });
}

/**
 * Offers each successful query response to the cache (it decides whether it may be replayed), and
 * forgets the credential's oldest replays that no longer fit its share.
 */
export function responseReplayPlugin(
  cache: GraphqlResponseCache,
  /** Replays per credential (RESPONSE_CACHE_MAX_PER_CREDENTIAL): one more forgets its oldest. */
  held: HeldReplays,
  /** The same as Apollo's `stringifyResult`: the data is encoded once for the cache and the answer. */
  encoding: ResultEncoding,
): ApolloServerPlugin<GatewayContext> {
  /**
   * A store failed and none succeeded since: while Redis is down every answer would fail the same
   * way, so the log says it once, and once more when storing works again.
   */
  let failing = false;
  return {
    async requestDidStart({ contextValue }) {
      return {
        async willSendResponse({ response, operation, operationName }) {
          const key = contextValue.replayKey;
          const facts = contextValue.facts;
          if (!key || !facts || response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          if (operation?.operation !== 'query' || result.errors?.length || result.data == null)
            return;
          const credential = contextValue.credential;
          if (!credential || !facts.replayability.cacheable) return;
          const warn = (error: unknown) => {
            if (!failing) {
              failing = true;
              contextValue.logger.warn(
                { err: { message: (error as Error).message } },
                'response cache: store failed; the next failures are not logged until a store succeeds',
              );
            }
            return undefined;
          };
          const stored = await cache
            .offer(
              key,
              encoding.encodeData(result.data),
              operationName ?? null,
              facts.replayability,
            )
            .catch(warn);
          if (stored) {
            await held
              .hold(credential.id, key, stored.freshUntil - Date.now())
              .then(async (evicted) => {
                await cache.forget(evicted);
                if (failing) {
                  failing = false;
                  contextValue.logger.info('response cache: storing again');
                }
              })
              .catch(warn);
            // The first answer carries the same validator and freshness as its replays (replacing
            // the `no-store` every other GraphQL answer carries).
            setReplayHeaders(
              { header: (name, value) => response.http.headers.set(name, value) },
              stored,
            );
          }
        },
      };
    },
  };
}
