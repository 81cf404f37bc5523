/**
 * THE formatter of the errors an answer sends, for the three paths that execute an operation:
 * Apollo Server (its `formatError`), an answer in parts (`@defer`, `@stream`: incremental/) and
 * subscription events (subscriptions/). Every error goes through `formatGraphQLError`
 * (errors/graphql-errors.ts: typed, or masked as internal) with the same options, so an error reads
 * the same whichever path raised it; where Apollo does not run, its reading of a request error is
 * done here too, and the request id stamped on each.
 */
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { ErrorCode } from '../errors/error-codes.ts';
import {
  formatGraphQLError,
  stampRequestId,
  type FormatOptions,
} from '../errors/graphql-errors.ts';
import type { GatewayContext } from '../kit/request-context.ts';

export interface ResponseErrors {
  /** Drop graphql-js's "Did you mean …?" (production); the incremental executor is told too. */
  readonly hideSuggestions: boolean;
  /** Apollo Server's `formatError`: Apollo gave the request's own errors their codes first. */
  readonly formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /**
   * A result's errors as sent: each formatted and stamped with the request id; with `unexpected`,
   * each one masked as internal (a bug, not a typed failure) is logged under that message, as the
   * lifecycle plugin logs Apollo's.
   */
  all(
    errors: readonly GraphQLError[],
    requestId: string,
    unexpected?: { readonly logger: GatewayContext['logger']; readonly message: string },
  ): GraphQLFormattedError[];
}

/**
 * An error the gateway did not expect: exactly those the formatter masks as internal. Everything
 * else is a typed upstream/gateway error or the client's own request error (parse, validation,
 * variables, a limit): answered, not an incident.
 */
export const isUnexpected = (error: GraphQLError): boolean =>
  formatGraphQLError(error.toJSON(), error).extensions?.code === ErrorCode.INTERNAL_SERVER_ERROR;

export function createResponseErrors(options: FormatOptions): ResponseErrors {
  /** One error raised where Apollo does not run, as Apollo Server would have sent it. */
  const one = (error: GraphQLError): GraphQLFormattedError => {
    const formatted = error.toJSON();
    // Errors of the request itself (no path, no original error: bad variables) are the client's,
    // BAD_USER_INPUT as Apollo Server reports them.
    const isRequestError = error.path === undefined && error.originalError == null;
    const code = formatted.extensions?.code;
    return formatGraphQLError(
      isRequestError && code === undefined
        ? { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_USER_INPUT' } }
        : formatted,
      error,
      options,
    );
  };
  return {
    hideSuggestions: options.hideSuggestions === true,
    formatError: (formatted, error) => formatGraphQLError(formatted, error, options),
    all(errors, requestId, unexpected) {
      const formatted = errors.map((error) => {
        const sent = one(error);
        if (unexpected && sent.extensions?.code === ErrorCode.INTERNAL_SERVER_ERROR) {
          unexpected.logger.error(
            { err: error.originalError ?? error, path: error.path },
            unexpected.message,
          );
        }
        return sent;
      });
      stampRequestId(formatted, requestId);
      return formatted;
    },
  };
}
