/**
 * Every `extensions.code` a client can receive (docs/errors.md lists each; a test holds the two
 * together). Clients match on these. `formatGraphQLError` sends no other code.
 */

/** The gateway's own codes: its typed errors and the upstream's answers. */
export const ErrorCode = {
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  CONFLICT: 'CONFLICT',
  RATE_LIMITED: 'RATE_LIMITED',
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /**
   * The replica stopped before the operation finished (the drain deadline, docs/deploy.md):
   * retryable on another replica, after reading what a write may have changed (`outcome`).
   */
  SHUTTING_DOWN: 'SHUTTING_DOWN',
  /**
   * The client went away before an upstream read it needed was sent, so the read was dropped
   * (docs/budget.md "Clients that leave"). Nobody is there to receive it: it names the outcome
   * in the gateway's logs and ledgers.
   */
  CLIENT_GONE: 'CLIENT_GONE',
  /**
   * A mutation with an `Idempotency-Key` whose key could not be claimed where every replica sees it
   * (Redis unreachable, or its slot without a master) within the wait: it was not run and nothing
   * was sent upstream, so the same request with the same key may be sent again (docs/security.md).
   */
  IDEMPOTENCY_UNAVAILABLE: 'IDEMPOTENCY_UNAVAILABLE',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Codes of errors about the request itself, named as Apollo Server names them (and the gateway
 * names its own refusals of the same kind, so a client matches one code whoever refused).
 */
export const RequestErrorCode = {
  /** The HTTP request is not a GraphQL request the gateway serves (CSRF, body, batching, method). */
  BAD_REQUEST: 'BAD_REQUEST',
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  /** Several operations and no (or an unknown) `operationName`. */
  OPERATION_RESOLUTION_FAILURE: 'OPERATION_RESOLUTION_FAILURE',
  /** An APQ hash the gateway has no document for: the client sends the document with it. */
  PERSISTED_QUERY_NOT_FOUND: 'PERSISTED_QUERY_NOT_FOUND',
} as const;

export type RequestErrorCode = (typeof RequestErrorCode)[keyof typeof RequestErrorCode];

export type ClientErrorCode = ErrorCode | RequestErrorCode;

export const CLIENT_ERROR_CODES: ReadonlySet<string> = new Set<ClientErrorCode>([
  ...Object.values(ErrorCode),
  ...Object.values(RequestErrorCode),
]);
