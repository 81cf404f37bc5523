/**
 * Idempotent mutations (docs/security.md). A client that may retry a mutation (a phone on a flaky
 * network) sends `Idempotency-Key: <uuid>`. For the same credential and key within the TTL:
 *
 * - the same request (document, operation name, variables) gets the first response again, replayed
 *   without running the mutation, so the upstream sees one write (`Idempotent-Replayed: true`);
 * - a duplicate arriving while the first still runs waits for it, then gets its response;
 * - a different request gets `CONFLICT` (HTTP 409).
 *
 * The key is taken in `responseForOperation`, the last step before execution: an operation that a
 * limit, validation or the trusted-documents check refused never holds a key. A response that proves
 * nothing was written (only RATE_LIMITED, UPSTREAM_UNAVAILABLE, UNAUTHENTICATED or FORBIDDEN errors and
 * no data) frees the key instead, so the retry the client is told to make can run. Any other response —
 * a timeout whose outcome is unknown included — is kept: replaying it is what prevents a second write.
 * Queries ignore the header.
 *
 * A mutation runs only once its key is claimed in the store every replica sees. When the store
 * cannot take the claim (Redis unreachable, a cluster slot without a master) the request asks again
 * every {@link CLAIM_RETRY_MS} for up to the wait (a failover takes seconds) and, unless the
 * store answered by then, is refused `IDEMPOTENCY_UNAVAILABLE` (503, `Retry-After`) without having
 * sent anything: a claim in this replica's memory would let another replica run the same write.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { formatGraphQLError } from '../../errors/graphql-errors.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import type { DoneRecord, IdempotencyStore } from './idempotency-store.ts';
import { IDEMPOTENCY_KEY, recordKeyOf, requestFingerprint } from './request-fingerprint.ts';

/** The request header (Fetch headers are case-insensitive; Apollo lower-cases them). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on a replayed response. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** Options of {@link idempotencyPlugin}. */
export interface IdempotencyOptions {
  readonly store: IdempotencyStore;
  /** How long a response stays replayable. */
  readonly ttlMs: number;
  /**
   * How long a request waits for its key: for the request holding it (a duplicate), or for the
   * store to take its claim.
   */
  readonly waitMs: number;
  /**
   * How long a claim holds a key without finishing. Far past any mutation's deadline: it only matters
   * when a replica dies mid-request.
   */
  readonly lockMs: number;
}

/** How often a request whose claim the store could not take asks again. */
export const CLAIM_RETRY_MS = 250;

/**
 * `Retry-After` of an `IDEMPOTENCY_UNAVAILABLE` refusal: the request already waited for the store, so
 * the retry may come at once — it waits again for the store on whichever replica it reaches.
 */
export const IDEMPOTENCY_UNAVAILABLE_RETRY_AFTER_SEC = 1;

/** Codes that prove the mutation was not written (refused before or by the upstream). */
const NOT_WRITTEN: ReadonlySet<string> = new Set([
  ErrorCode.RATE_LIMITED,
  ErrorCode.UPSTREAM_UNAVAILABLE,
  ErrorCode.UNAUTHENTICATED,
  ErrorCode.FORBIDDEN,
]);

/** Whether a response may reflect a write (then it must be kept and replayed). */
export function mayHaveWritten(result: FormattedExecutionResult): boolean {
  const data = result.data;
  if (data && Object.values(data).some((value) => value !== null)) return true;
  const errors = result.errors ?? [];
  return errors.length === 0 || errors.some((e) => !NOT_WRITTEN.has(String(e.extensions?.code)));
}

/** A copy of the result without per-request details (the replay stamps its own request id). */
function storable(result: FormattedExecutionResult): Record<string, unknown> {
  const copy = structuredClone(result) as FormattedExecutionResult;
  for (const error of copy.errors ?? []) {
    if (error.extensions) delete (error.extensions as Record<string, unknown>).requestId;
  }
  return copy as Record<string, unknown>;
}

function errorResponse(
  status: number,
  error: GatewayError,
  headers = new HeaderMap(),
): GraphQLResponse {
  return {
    http: { status, headers },
    body: {
      kind: 'single',
      singleResult: { errors: [formatGraphQLError({ message: error.message }, error)] },
    },
  };
}

/** The refusal of a mutation whose key could not be claimed: nothing was sent, retry the same. */
function unavailable(): GraphQLResponse {
  const retryAfterSec = IDEMPOTENCY_UNAVAILABLE_RETRY_AFTER_SEC;
  return errorResponse(
    503,
    new GatewayError(
      ErrorCode.IDEMPOTENCY_UNAVAILABLE,
      `This mutation was not run and nothing was sent: its Idempotency-Key could not be recorded where every gateway replica sees it. Retry it with the same Idempotency-Key in ${retryAfterSec} s.`,
      { retryAfterSec },
    ),
    new HeaderMap([['retry-after', String(retryAfterSec)]]),
  );
}

/** Waits `ms`, or less if the client goes away meanwhile. */
const pause = (ms: number, gone: AbortSignal | undefined) =>
  sleep(ms, undefined, gone && { signal: gone }).catch(() => undefined);

function replay(record: DoneRecord): GraphQLResponse {
  return {
    http: { status: record.status, headers: new HeaderMap([[REPLAYED_HEADER, 'true']]) },
    body: { kind: 'single', singleResult: structuredClone(record.result) },
  };
}

/** The Apollo plugin that makes mutations with an `Idempotency-Key` run at most once. */
export function idempotencyPlugin(options: IdempotencyOptions): ApolloServerPlugin<GatewayContext> {
  const { store } = options;
  return {
    async requestDidStart({ request }) {
      const header = request.http?.headers.get(IDEMPOTENCY_HEADER);
      if (header === undefined) return;
      let claim: { key: string; owner: string; fingerprint: string } | undefined;

      return {
        async responseForOperation({ operation, operationName, source, contextValue }) {
          // Apollo's type says an operation is resolved here; with several and no name it is not,
          // and execution answers OPERATION_RESOLUTION_FAILURE.
          if ((operation as typeof operation | undefined)?.operation !== 'mutation') return null;
          if (!IDEMPOTENCY_KEY.test(header)) {
            return errorResponse(
              400,
              new GatewayError(
                ErrorCode.BAD_USER_INPUT,
                'Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID, for example).',
                { header: 'Idempotency-Key' },
              ),
            );
          }
          // Without a credential the mutation fails UNAUTHENTICATED before any write.
          const credential = contextValue.credential;
          if (!credential) return null;

          const key = recordKeyOf(credential.id, header);
          const fingerprint = requestFingerprint(credential.id, {
            source,
            operationName,
            variables: request.variables,
          });
          const owner = randomUUID();
          const pending = { state: 'pending', fingerprint, owner } as const;
          /** What holds the key (undefined: this request now does), or that the store could not say. */
          const attempt = () =>
            store.claim(key, pending, options.lockMs).then(
              (held) => ({ held }),
              () => 'unavailable' as const,
            );
          const deadline = Date.now() + options.waitMs;
          let waitingForStore = false;
          for (let wait = 20; ; wait = Math.min(wait * 2, 250)) {
            const answer = await attempt();
            if (answer === 'unavailable') {
              // The store logs why, once per outage; this request waits for it (below).
              if (!waitingForStore) {
                contextValue.logger.info('idempotency key not claimed: waiting for the store');
              }
              waitingForStore = true;
            } else {
              const { held } = answer;
              if (!held) {
                claim = { key, owner, fingerprint };
                return null;
              }
              if (held.fingerprint !== fingerprint) {
                return errorResponse(
                  409,
                  new GatewayError(
                    ErrorCode.CONFLICT,
                    'This Idempotency-Key was already used for a different request; use a new key for a new request.',
                    { reason: 'IDEMPOTENCY_KEY_REUSED' },
                  ),
                );
              }
              if (held.state === 'done') {
                contextValue.logger.info('idempotent mutation replayed');
                return replay(held);
              }
            }
            // The store could not answer (ask again), or a running request holds the key (wait).
            const next = answer === 'unavailable' ? CLAIM_RETRY_MS : wait;
            if (Date.now() + next > deadline || contextValue.gone?.aborted) {
              if (answer === 'unavailable') return unavailable();
              return errorResponse(
                409,
                new GatewayError(
                  ErrorCode.CONFLICT,
                  'A request with this Idempotency-Key is still running; retry it later.',
                  { reason: 'IDEMPOTENCY_KEY_IN_USE', retryAfterSec: 1 },
                ),
              );
            }
            await pause(next, contextValue.gone);
          }
        },

        async willSendResponse({ response, contextValue }) {
          if (!claim) return;
          const { key, owner, fingerprint } = claim;
          claim = undefined;
          try {
            const body = response.body;
            if (body.kind !== 'single' || !mayHaveWritten(body.singleResult)) {
              await store.release(key, owner);
              return;
            }
            await store.complete(
              key,
              owner,
              {
                state: 'done',
                fingerprint,
                status: response.http.status ?? 200,
                result: storable(body.singleResult),
                at: Date.now(),
              },
              options.ttlMs,
            );
          } catch (error) {
            contextValue.logger.error(
              { err: { message: (error as Error).message } },
              'idempotency record not saved',
            );
          }
        },
      };
    },
  };
}
