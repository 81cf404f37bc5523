/**
 * THE place where errors become GraphQL errors (docs/errors.md): Apollo's `formatError` calls
 * {@link formatGraphQLError}; mutation resolvers call {@link toUserErrors} for upstream 400/409/422.
 * Anything that is not a typed gateway/upstream error or a graphql-js request error is masked.
 */
import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { CLIENT_ERROR_CODES, ErrorCode, RequestErrorCode } from './error-codes.ts';
import { GatewayError, UpstreamError } from './gateway-errors.ts';
import { codeOfSubgraphError } from './subgraph-errors.ts';

/** `UserError` of the graph: `{ code, message, path }`. */
export interface UserError {
  code: string;
  message: string;
  path: string[] | null;
}

const STATUS_CODES: Readonly<Record<number, ErrorCode>> = {
  400: ErrorCode.BAD_USER_INPUT,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  409: ErrorCode.CONFLICT,
  422: ErrorCode.BAD_USER_INPUT,
  429: ErrorCode.RATE_LIMITED,
};

/** The gateway code for an upstream failure. */
export function codeOfUpstreamError(error: UpstreamError): ErrorCode {
  switch (error.kind) {
    case 'timeout':
      return ErrorCode.UPSTREAM_TIMEOUT;
    case 'network':
    case 'too-large':
    case 'refused':
      return ErrorCode.UPSTREAM_ERROR;
    case 'graphql':
      return codeOfSubgraphError(error.upstreamCode);
    case 'http': {
      const status = error.status ?? 500;
      if (status >= 500) return ErrorCode.UPSTREAM_ERROR;
      return STATUS_CODES[status] ?? ErrorCode.BAD_USER_INPUT;
    }
  }
}

/** `$.operations.additions[0].name` → `['operations', 'additions', '0', 'name']`. */
export function jsonPathToPath(jsonPath: string): string[] {
  return jsonPath
    .replace(/^\$\.?/, '')
    .replace(/\[['"]?([^\]'"]+)['"]?\]/g, '.$1')
    .split('.')
    .filter((segment) => segment !== '');
}

function upstreamMessage(error: UpstreamError): string {
  if (error.kind !== 'http') return error.message;
  const what = error.status === 429 ? 'rate limited' : `answered ${error.status}`;
  return `Upstream ${what}${error.upstreamCode ? ` (${error.upstreamCode})` : ''}: ${error.message}`;
}

/**
 * The one request parameter an upstream 400/422 is about, when all of its `fields` entries point
 * into the same one (`$.since`, `$.contacts[0].email` → `since`, `contacts`). The gateway's
 * arguments carry the upstream's parameter names, so a client can match it like the gateway's own
 * `extensions.field`. Several parameters: no single one to name.
 */
function fieldOfUpstreamError(error: UpstreamError): string | undefined {
  if (error.status !== 400 && error.status !== 422) return undefined;
  const tops = new Set(error.fields.map((field) => jsonPathToPath(field.path)[0]));
  const [only] = tops;
  return tops.size === 1 && only !== undefined ? only : undefined;
}

function upstreamExtensions(error: UpstreamError): Record<string, unknown> {
  const code = codeOfUpstreamError(error);
  const field = fieldOfUpstreamError(error);
  return {
    code,
    ...(field === undefined ? {} : { field }),
    upstream: {
      route: error.route,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.upstreamCode === undefined ? {} : { code: error.upstreamCode }),
      ...(error.fields.length > 0 ? { fields: error.fields } : {}),
    },
    ...(error.retryAfterSec === undefined ? {} : { retryAfterSec: error.retryAfterSec }),
    // Told apart from Weft's own refusals (CREDENTIAL, RESERVE, ROUTE_CLASS, UNPROVEN_TOKENS).
    ...(error.status === 429 ? { limiter: 'UPSTREAM' } : {}),
    ...(error.requiredScope === undefined ? {} : { requiredScope: error.requiredScope }),
    ...(error.outcomeUnknown ? { outcome: 'UNKNOWN' } : {}),
  };
}

/**
 * The error a resolver (or a subgraph executor) originally raised. Apollo's `unwrapResolverError`
 * peels one layer; a stitched field's error is a GraphQL error relocated from the subgraph's result,
 * so the typed error sits deeper. Several errors for one field (an AggregateError) are reported by
 * their first.
 */
export function rootCauseOf(error: unknown): unknown {
  let current = unwrapResolverError(error);
  for (let depth = 0; depth < 8; depth += 1) {
    if (current instanceof AggregateError && current.errors.length > 0) {
      current = current.errors[0];
      continue;
    }
    const inner =
      typeof current === 'object' && current !== null && 'originalError' in current
        ? (current as { originalError?: unknown }).originalError
        : undefined;
    if (!(inner instanceof Error)) break;
    current = inner;
  }
  return current;
}

export interface FormatOptions {
  /**
   * Drop graphql-js's "Did you mean …?" (production): suggestions spell out the schema to someone
   * probing it, in every phase (validation and variable coercion alike).
   */
  readonly hideSuggestions?: boolean;
}

/** graphql-js ends a message with its suggestion: ` Did you mean "x" or "y"?`. */
const SUGGESTION = / ?Did you mean(.+?)\?$/;

/**
 * The longest message an error carries. Messages may quote input — graphql-js quotes a literal
 * that does not fit its type, an upstream echoes a path — and a client's 10 KB argument must not
 * come back (and be logged) whole.
 */
export const MAX_MESSAGE_LENGTH = 300;

function boundedMessage(message: string): string {
  return message.length <= MAX_MESSAGE_LENGTH
    ? message
    : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/** Apollo `formatError`: typed errors get their code; anything unknown is masked with a request id. */
export function formatGraphQLError(
  formatted: GraphQLFormattedError,
  error: unknown,
  options: FormatOptions = {},
): GraphQLFormattedError {
  const result = typedOrMasked(formatted, error, options);
  return { ...result, message: boundedMessage(result.message) };
}

function typedOrMasked(
  formatted: GraphQLFormattedError,
  error: unknown,
  options: FormatOptions,
): GraphQLFormattedError {
  const original = rootCauseOf(error);
  const base = { locations: formatted.locations, path: formatted.path };
  if (original instanceof UpstreamError) {
    return {
      ...base,
      message: upstreamMessage(original),
      extensions: upstreamExtensions(original),
    };
  }
  if (original instanceof GatewayError) {
    return {
      ...base,
      message: original.message,
      extensions: { ...original.details, code: original.code },
    };
  }
  // Errors graphql-js or Apollo raise about the request itself (parse, validation, variable
  // coercion) carry their own code and describe the request, not the gateway's internals: keep them.
  // Decided by code, not `instanceof GraphQLError`: a test runner may load graphql twice.
  // Only a documented code goes out (CLIENT_ERROR_CODES): a library's new code is not a contract.
  const knownCode = formatted.extensions?.code;
  if (
    typeof knownCode === 'string' &&
    knownCode !== ErrorCode.INTERNAL_SERVER_ERROR &&
    CLIENT_ERROR_CODES.has(knownCode)
  ) {
    const message = options.hideSuggestions
      ? formatted.message.replace(SUGGESTION, '')
      : formatted.message;
    // `field` names the argument or variable at fault (variable-values.ts); nothing else leaks.
    const field = formatted.extensions?.field;
    return {
      ...formatted,
      message,
      extensions: { code: knownCode, ...(typeof field === 'string' ? { field } : {}) },
    };
  }
  // Apollo's own request errors without a code (an APQ hash that is not the document's, an
  // unsupported APQ version), or with one no client was told of, are 4xx answers about the request,
  // not internal failures.
  if (isRequestErrorWithoutKnownCode(error)) {
    return {
      ...base,
      message: formatted.message,
      extensions: { code: RequestErrorCode.BAD_REQUEST },
    };
  }
  return {
    ...base,
    message: INTERNAL_MESSAGE,
    extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR },
  };
}

const INTERNAL_MESSAGE = 'Internal server error';

function isRequestErrorWithoutKnownCode(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { extensions, originalError } = error as {
    extensions?: { http?: { status?: unknown } };
    originalError?: unknown;
  };
  const status = extensions?.http?.status;
  return originalError == null && typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Every error of a response carries the request id (`extensions.requestId`); a masked internal
 * error also says it in its message, so a user can quote it. Runs when the response is sent, the
 * first moment the request id and the formatted errors meet.
 */
export function stampRequestId(
  errors: readonly GraphQLFormattedError[] | undefined,
  requestId: string,
): void {
  for (const error of errors ?? []) {
    const extensions = (error.extensions ?? {}) as Record<string, unknown>;
    extensions.requestId = requestId;
    (error as { extensions: Record<string, unknown> }).extensions = extensions;
    if (extensions.code === ErrorCode.INTERNAL_SERVER_ERROR && error.message === INTERNAL_MESSAGE) {
      (error as { message: string }).message =
        `${INTERNAL_MESSAGE}. Quote request id ${requestId} when reporting it.`;
    }
  }
}

/**
 * The codes of the errors a response sends, once each (messages stay out of logs: they may quote
 * input). Read from the formatted errors, as the client receives them: a typed error gets its code
 * only when formatted, so the raw errors would log it as having none.
 */
export function errorCodesOf(errors: readonly GraphQLFormattedError[] | undefined): string[] {
  const codes = new Set<string>();
  for (const error of errors ?? []) {
    const code = error.extensions?.code;
    codes.add(typeof code === 'string' ? code : 'UNKNOWN');
  }
  return [...codes];
}

/**
 * Mutations report upstream 400/409/422 (and gateway input errors) as payload `userErrors`;
 * everything else stays a GraphQL error and is rethrown. `inputPrefix` roots the paths at the
 * mutation argument (e.g. `['input']`).
 */
export function toUserErrors(
  error: unknown,
  inputPrefix: readonly string[] = ['input'],
): UserError[] {
  if (error instanceof GatewayError && error.code === ErrorCode.BAD_USER_INPUT) {
    const field = error.details.field;
    return [
      {
        code: 'INVALID_INPUT',
        message: error.message,
        path: typeof field === 'string' ? [...inputPrefix, ...field.split('.')] : null,
      },
    ];
  }
  if (
    error instanceof UpstreamError &&
    error.kind === 'http' &&
    (error.status === 400 || error.status === 409 || error.status === 422)
  ) {
    const code = error.upstreamCode ?? (error.status === 409 ? 'CONFLICT' : 'INVALID');
    if (error.fields.length === 0) return [{ code, message: error.message, path: null }];
    return error.fields.map((field) => ({
      code: field.code || code,
      message: field.message,
      path: [...inputPrefix, ...jsonPathToPath(field.path)],
    }));
  }
  throw error;
}
