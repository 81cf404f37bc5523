/**
 * Apollo plugin around every request: its one log line (each operation's log fields, the errors'
 * codes, the request id stamped on each error), the unexpected errors logged, `Cache-Control:
 * no-store`, and a subscription sent as plain JSON refused.
 */
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import { errorsOfPart, followDeferredParts } from '../incremental/deferred-parts.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import type { OperationLogFields } from '../../observability/operation-log.ts';
import { RequestErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import {
  errorCodesOf,
  formatGraphQLError,
  rootCauseOf,
  stampRequestId,
} from '../../errors/graphql-errors.ts';
import { isUnexpected } from '../response-errors.ts';

const SUBSCRIPTION_OVER_JSON =
  'Send a subscription with `Accept: text/event-stream` (GraphQL over SSE) or over graphql-ws: one JSON answer cannot carry its events.';

/** The log fields of an operation whose answer carried `sent`. */
function operationFields(
  operationName: string | null | undefined,
  sent: readonly GraphQLFormattedError[] | undefined,
  started: number,
): OperationLogFields {
  const errorCodes = errorCodesOf(sent);
  return {
    operationName: operationName ?? null,
    errors: sent?.length ?? 0,
    ...(errorCodes.length > 0 ? { errorCodes } : {}),
    durationMs: Math.round(performance.now() - started),
  };
}

export function requestLifecyclePlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      return {
        // A subscription sent as plain JSON (the route streams only one whose Accept names
        // text/event-stream) would run once as if it were a query, and its resolver fail. Refused
        // as the last check, so that a document over a limit is refused as on the other transports.
        async responseForOperation({ operation }) {
          // Apollo's type says an operation is resolved here; with several and no name it is not.
          if ((operation as typeof operation | undefined)?.operation !== 'subscription')
            return null;
          const refusal = new GatewayError(RequestErrorCode.BAD_REQUEST, SUBSCRIPTION_OVER_JSON);
          return {
            http: { status: 400, headers: new HeaderMap() },
            body: {
              kind: 'single',
              singleResult: { errors: [formatGraphQLError({ message: refusal.message }, refusal)] },
            },
          };
        },
        async didEncounterErrors({ errors, operationName }) {
          for (const error of errors) {
            if (!isUnexpected(error)) continue;
            contextValue.logger.error(
              { err: rootCauseOf(error), operationName: operationName ?? null, path: error.path },
              'resolver failed',
            );
          }
        },
        async willSendResponse({ response, operationName, errors }) {
          // A GraphQL answer is one credential's: no shared cache may keep it. (The replay plugin
          // replaces this with `private, max-age` for an answer it stored.) Set here rather than by
          // Apollo's cache-control plugin, which would wrap every resolver to compute the same.
          response.http.headers.set('cache-control', 'no-store');
          const note = (fields: OperationLogFields) => {
            if (contextValue.noteOperation) contextValue.noteOperation(fields);
            else contextValue.logger.info(fields, 'graphql operation');
          };
          // An answer in parts (`@defer`) is logged once, when its last part is written: the
          // errors of every part, the whole duration.
          if (response.body.kind === 'incremental') {
            const sent = [...(response.body.initialResult.errors ?? [])];
            followDeferredParts(response, {
              part: (part) => sent.push(...errorsOfPart(part)),
              end: () => note(operationFields(operationName, sent, started)),
            });
            return;
          }
          // The errors as sent (an idempotent replay or refusal answers without raising any).
          const sent =
            response.body.kind === 'single'
              ? response.body.singleResult.errors
              : errors?.map((error) => formatGraphQLError(error.toJSON(), error));
          stampRequestId(sent, contextValue.requestId);
          note(operationFields(operationName, sent, started));
        },
      };
    },
  };
}
