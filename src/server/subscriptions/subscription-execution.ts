/**
 * What graphql-ws and graphql-sse share: turning a subscribe request into execution arguments with a
 * context from the same `createGatewayContext` as HTTP requests, and formatting every result's
 * errors through the one error formatter (response-errors.ts), as Apollo Server does for HTTP.
 *
 * Only subscriptions are served here. Queries and mutations go to `POST /graphql`, where Apollo
 * Server's plugins (logging, limits, CSRF prevention) apply to them.
 */
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type FormattedExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { FastifyBaseLogger } from 'fastify';
import type { Credential } from '../../upstream/credential.ts';
import { limitGraphQLError } from '../limits/operation-limits.ts';
import type { OperationPipeline } from '../operation-pipeline.ts';
import type { ResponseErrors } from '../response-errors.ts';
import type { GatewayContext, RequestFields } from '../../kit/request-context.ts';

/** The request side of a context: what `createGatewayContext` needs besides its dependencies. */
export interface SubscriptionRequest extends Pick<
  RequestFields,
  'priority' | 'clientAddress' | 'eventLedger' | 'gone'
> {
  readonly requestId: string;
  readonly credential: Credential | undefined;
  readonly logger: FastifyBaseLogger;
}

export interface SubscriptionExecutionOptions {
  readonly schema: GraphQLSchema;
  readonly createContext: (request: SubscriptionRequest) => GatewayContext;
  /** The checks every operation passes, whatever its transport. */
  readonly pipeline: OperationPipeline;
  /** The one error formatter, as for HTTP responses (production drops "Did you mean …?"). */
  readonly errors: ResponseErrors;
}

export interface SubscribeParams {
  readonly query: string;
  readonly operationName?: string | null;
  readonly variables?: Readonly<Record<string, unknown>> | null;
}

const requestError = (message: string, code: string): GraphQLError =>
  new GraphQLError(message, { extensions: { code } });

/**
 * Runs a subscribe request through the operation pipeline (steps 2, 4–7, operation-pipeline.ts);
 * returns the execution arguments (the context is created only for a valid subscription) or the
 * request's errors — the same errors, with the same extensions, as over HTTP.
 */
export function prepareSubscription(
  options: SubscriptionExecutionOptions,
  params: SubscribeParams,
  request: () => SubscriptionRequest,
): ExecutionArgs | readonly GraphQLError[] {
  const { pipeline, schema } = options;
  const refusedDocument = pipeline.refuseDocument({ query: params.query, sha256Hash: undefined });
  if (refusedDocument) return [limitGraphQLError(refusedDocument)];
  let document: DocumentNode;
  try {
    document = parse(params.query, { maxTokens: pipeline.maxTokens });
  } catch (error) {
    const message = error instanceof GraphQLError ? error.message : 'The query could not be parsed';
    return [requestError(message, 'GRAPHQL_PARSE_FAILED')];
  }
  const errors = validate(schema, document, [...specifiedRules, ...pipeline.validationRules]);
  if (errors.length > 0) {
    // A limit's error carries the typed refusal (its code, `limit`, `max`, `actual`): kept whole.
    return errors.map((error) =>
      error.originalError
        ? error
        : requestError(
            error.message,
            (error.extensions.code as string) ?? 'GRAPHQL_VALIDATION_FAILED',
          ),
    );
  }
  const operation = getOperationAST(document, params.operationName ?? undefined);
  if (!operation) {
    return [requestError('Name the operation to run (`operationName`)', 'BAD_REQUEST')];
  }
  if (operation.operation !== 'subscription') {
    return [
      requestError(
        'Only subscriptions are served over WebSocket and SSE: send queries and mutations as POST /graphql',
        'BAD_REQUEST',
      ),
    ];
  }
  const refused = pipeline.refuseOperation(
    schema,
    document,
    operation,
    params.variables ?? undefined,
  );
  if (refused) return refused;
  return {
    schema,
    document,
    operationName: params.operationName ?? undefined,
    variableValues: params.variables ?? undefined,
    contextValue: options.createContext(request()),
  };
}

/**
 * A result with every error formatted and stamped with the request id. An error that had to be
 * masked (a bug, not a typed failure) is logged, as the HTTP path's lifecycle plugin does.
 */
export function formatSubscriptionResult(
  result: { data?: unknown; errors?: readonly GraphQLError[]; extensions?: unknown },
  context: Pick<GatewayContext, 'requestId' | 'logger' | 'eventLedger'>,
  errors: ResponseErrors,
): FormattedExecutionResult {
  const ledger = context.eventLedger?.latest;
  if (ledger) {
    // The polls this event took (`Weft-Ledger: 1`), once: the next event has its own.
    context.eventLedger!.latest = undefined;
    result = {
      ...result,
      extensions: { ...(result.extensions as object | undefined), upstream: ledger },
    };
  }
  if (!result.errors?.length) return result as FormattedExecutionResult;
  return {
    ...(result as FormattedExecutionResult),
    errors: errors.all(result.errors, context.requestId, {
      logger: context.logger,
      message: 'subscription resolver failed',
    }),
  };
}
