/**
 * GraphQL errors the commerce subgraphs send inside an HTTP 200 answer, as typed upstream errors.
 * Their `extensions.code` is the subgraph's vocabulary (the document does not show the item shape);
 * {@link codeOfSubgraphError} maps it onto the gateway's codes, and graphql-errors.ts formats the
 * result like any other upstream failure. Non-2xx answers (the catalog's 429, 401, 403, 404, 5xx)
 * never get here: the upstream client turns them into `http` upstream errors.
 */
import { ErrorCode } from './error-codes.ts';
import { UpstreamError } from './gateway-errors.ts';

/**
 * Subgraph code → gateway code. `AUTHENTICATION_ERROR` is the tax subgraph's HTTP 200 answer to a
 * request it could not authorize (documented: without `x-store-id`). Codes about the request
 * document itself mean the checked-in schema snapshot no longer matches the upstream: not the
 * client's fault, so UPSTREAM_ERROR (refresh with `npm run schema:pull`). Anything unknown too.
 */
const SUBGRAPH_CODES: Readonly<Record<string, ErrorCode>> = {
  BAD_USER_INPUT: ErrorCode.BAD_USER_INPUT,
  BAD_REQUEST: ErrorCode.BAD_USER_INPUT,
  NOT_FOUND: ErrorCode.NOT_FOUND,
  CONFLICT: ErrorCode.CONFLICT,
  FORBIDDEN: ErrorCode.FORBIDDEN,
  UNAUTHENTICATED: ErrorCode.UNAUTHENTICATED,
  AUTHENTICATION_ERROR: ErrorCode.UNAUTHENTICATED,
  RATE_LIMITED: ErrorCode.RATE_LIMITED,
  TOO_MANY_REQUESTS: ErrorCode.RATE_LIMITED,
  GRAPHQL_PARSE_FAILED: ErrorCode.UPSTREAM_ERROR,
  GRAPHQL_VALIDATION_FAILED: ErrorCode.UPSTREAM_ERROR,
  OPERATION_RESOLUTION_FAILURE: ErrorCode.UPSTREAM_ERROR,
  INTERNAL_SERVER_ERROR: ErrorCode.UPSTREAM_ERROR,
};

/** The gateway code for a subgraph's `extensions.code` (unknown or absent → UPSTREAM_ERROR). */
export const codeOfSubgraphError = (code: string | undefined): ErrorCode =>
  (code === undefined ? undefined : SUBGRAPH_CODES[code]) ?? ErrorCode.UPSTREAM_ERROR;

/** One entry of a subgraph's `errors` array, as far as the gateway relies on it. */
export interface SubgraphWireError {
  readonly message: string;
  readonly path: readonly (string | number)[] | undefined;
  readonly code: string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one `errors` entry defensively: the item shape is "not shown" in the document. */
export function readSubgraphError(raw: unknown): SubgraphWireError {
  const entry = isRecord(raw) ? raw : {};
  const path =
    Array.isArray(entry.path) &&
    entry.path.every((segment) => typeof segment === 'string' || typeof segment === 'number')
      ? (entry.path as (string | number)[])
      : undefined;
  const code =
    isRecord(entry.extensions) && typeof entry.extensions.code === 'string'
      ? entry.extensions.code
      : undefined;
  return {
    message:
      typeof entry.message === 'string' && entry.message !== ''
        ? entry.message
        : 'The subgraph reported an error',
    path,
    code,
  };
}

/** A subgraph error as an {@link UpstreamError} of kind `graphql` (HTTP status 200). */
export function subgraphError(
  wire: SubgraphWireError,
  call: { method: string; route: string },
): UpstreamError {
  return new UpstreamError({
    kind: 'graphql',
    method: call.method,
    route: call.route,
    status: 200,
    message: wire.message,
    ...(wire.code === undefined ? {} : { upstreamCode: wire.code }),
  });
}

/** A 2xx answer that is not a GraphQL response at all. */
export function malformedSubgraphResponse(call: { method: string; route: string }): UpstreamError {
  return new UpstreamError({
    kind: 'graphql',
    method: call.method,
    route: call.route,
    status: 200,
    message: 'The subgraph answered with something that is not a GraphQL response',
  });
}
