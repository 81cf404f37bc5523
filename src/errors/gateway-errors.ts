/**
 * The typed errors that travel through the gateway. Resolvers, loaders and the upstream client throw
 * these; `graphql-errors.ts` turns them into GraphQL errors, and nothing else does.
 */
import type { ClientErrorCode } from './error-codes.ts';

/** An error the gateway decides on its own: bad input caught before any upstream call, no credential… */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: ClientErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: ClientErrorCode,
    message: string,
    details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/** One entry of the upstream envelope's `fields`: a JSONPath into the request. */
export interface UpstreamFieldError {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

export type UpstreamFailureKind =
  /** The upstream answered with a non-2xx status (the envelope is parsed into the fields). */
  | 'http'
  /** The per-operation deadline or a connect/headers/body timeout passed. */
  | 'timeout'
  /** Connection refused/reset, DNS, TLS… */
  | 'network'
  /** The response body passed the size cap. */
  | 'too-large'
  /** The gateway refused to send the call (e.g. a foreign origin). */
  | 'refused'
  /**
   * A GraphQL subgraph answered HTTP 200 with an entry of `errors`: `upstreamCode` is its
   * `extensions.code` (see subgraph-errors.ts).
   */
  | 'graphql';

export interface UpstreamErrorInit {
  kind: UpstreamFailureKind;
  method: string;
  /** Route template, e.g. `GET /v2/customers/{customerId}/certificates`: never a raw path with ids. */
  route: string;
  message: string;
  status?: number;
  upstreamCode?: string;
  fields?: readonly UpstreamFieldError[];
  retryAfterSec?: number;
  requiredScope?: string;
  /**
   * A write whose fate is unknown (sent, then timeout/reset/5xx). The seeds say a write must not be
   * resubmitted before the current state has been read, so callers are told which read tells the truth.
   */
  outcomeUnknown?: boolean;
  cause?: unknown;
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly kind: UpstreamFailureKind;
  readonly method: string;
  readonly route: string;
  readonly status: number | undefined;
  readonly upstreamCode: string | undefined;
  readonly fields: readonly UpstreamFieldError[];
  readonly retryAfterSec: number | undefined;
  readonly requiredScope: string | undefined;
  readonly outcomeUnknown: boolean;

  constructor(init: UpstreamErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.method = init.method;
    this.route = init.route;
    this.status = init.status;
    this.upstreamCode = init.upstreamCode;
    this.fields = init.fields ?? [];
    this.retryAfterSec = init.retryAfterSec;
    this.requiredScope = init.requiredScope;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
  }
}
