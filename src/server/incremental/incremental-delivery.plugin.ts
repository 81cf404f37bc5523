/**
 * `@defer` and `@stream` over HTTP (docs/clients.md "Incremental delivery"). graphql 16 executes
 * nothing incrementally and Apollo Server 5 streams only what graphql 17's executor returns; Apollo
 * does, however, write any incremental answer a plugin hands it as `multipart/mixed` parts, in the
 * format the client's Accept names. So this plugin is the last `responseForOperation` of the chain:
 * for a query that uses `@defer` or `@stream`, from a client that reads parts, it executes the
 * operation with `@graphql-tools/executor` (graphql 16's execution plus `@defer` and `@stream`, in
 * the 2022 format) and returns the first part and the parts to come — as they are for a client that
 * reads `deferSpec=20220824`, rewritten for one that reads `incrementalSpec=v0.2`
 * (incremental-spec-parts.ts). One execution either way.
 *
 * Everything before execution is Apollo's pipeline as for any operation — document limits, parse,
 * validation, variables, ranges, cost, the upstream-call bound and the budget policy
 * (operation-pipeline.ts) — so a refusal is one JSON answer before any part. The execution shares the
 * request's context, hence its loaders and caches: a deferred fragment's resolvers, and a streamed
 * list's items, start in the same tick as the rest (the executor runs them at once and only holds
 * back their delivery), so they batch with the first part's and cost no extra upstream call. A
 * client that goes away aborts the execution: the fields not started yet never run, and no part
 * more is written.
 *
 * A normal request pays one cached look-up of its Accept header; one from a client that reads parts
 * (urql lists `multipart/mixed` on every request) also a substring search of its query text, and a
 * document walk only when the text names `@defer` or `@stream` (remembered per parsed document).
 */
import type {
  ApolloServerPlugin,
  GraphQLExperimentalFormattedInitialIncrementalExecutionResultAlpha2,
  GraphQLExperimentalFormattedSubsequentIncrementalExecutionResultAlpha2,
  GraphQLResponse,
} from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import {
  execute as executeIncrementally,
  type IncrementalExecutionResults,
  type SingularExecutionResult,
  type SubsequentIncrementalExecutionResult,
} from '@graphql-tools/executor';
import { BREAK, GraphQLError, visit, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import type { GatewayContext } from '../../kit/request-context.ts';
import { MULTIPART_INCREMENTAL, partsFormat } from '../graphql-route/media-types.ts';
import type { ResponseErrors } from '../response-errors.ts';
import { inIncrementalSpec } from './incremental-spec-parts.ts';
import { markPending, takeMarkers } from './pending-markers.ts';

/**
 * Whether a parsed document has a `@defer` or a `@stream` anywhere (the executor decides which ones
 * apply).
 */
const incrementals = new WeakMap<DocumentNode, boolean>();
function usesIncrementalDelivery(document: DocumentNode): boolean {
  let known = incrementals.get(document);
  if (known === undefined) {
    known = false;
    visit(document, {
      Directive(node) {
        if (node.name.value !== 'defer' && node.name.value !== 'stream') return undefined;
        known = true;
        return BREAK;
      },
    });
    incrementals.set(document, known);
  }
  return known;
}

const namesIncrementalDirective = (source: string | undefined): boolean =>
  source !== undefined && (source.includes('@defer') || source.includes('@stream'));

interface ErrorFormatter {
  (errors: readonly GraphQLError[] | undefined): GraphQLFormattedError[] | undefined;
}

/**
 * Errors as Apollo Server formats a single answer's (the one formatter, response-errors.ts, and the
 * request id), with the unexpected ones logged as the lifecycle plugin logs them.
 */
function errorFormatter(context: GatewayContext, responseErrors: ResponseErrors): ErrorFormatter {
  return (errors) => {
    if (!errors?.length) return undefined;
    return responseErrors.all(errors, context.requestId, {
      logger: context.logger,
      message: 'resolver failed',
    });
  };
}

type Part2022 = GraphQLExperimentalFormattedSubsequentIncrementalExecutionResultAlpha2;

/** A part with its errors formatted: they arrive in that part, typed. */
function formattedPart(
  part: SubsequentIncrementalExecutionResult,
  format: ErrorFormatter,
): Part2022 {
  return {
    hasNext: part.hasNext,
    ...(part.incremental
      ? {
          incremental: part.incremental.map((entry) => {
            const { errors, ...rest } = entry;
            const formatted = format(errors);
            return formatted ? { ...rest, errors: formatted } : rest;
          }),
        }
      : {}),
    ...(part.extensions ? { extensions: part.extensions } : {}),
  } as Part2022;
}

async function* formattedParts(
  parts: AsyncGenerator<SubsequentIncrementalExecutionResult, void, void>,
  format: ErrorFormatter,
  done: () => void,
): AsyncGenerator<Part2022, void, void> {
  try {
    for await (const part of parts) yield formattedPart(part, format);
  } finally {
    done();
  }
}

const okHead = () => ({ status: 200, headers: new HeaderMap() });

export function incrementalDeliveryPlugin(
  responseErrors: ResponseErrors,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ request }) {
      // Most requests end here: their client reads no parts, and `@defer` or `@stream` (graphql 16
      // ignores both in execution) changes nothing in their one JSON answer.
      const accept = request.http?.headers.get('accept');
      const format = accept === undefined ? undefined : partsFormat({ accept });
      if (format === undefined) return;
      return {
        async responseForOperation({
          operation,
          document,
          source,
          schema,
          request,
          contextValue,
        }): Promise<GraphQLResponse | null> {
          // A query only: a mutation's answer comes whole (docs/clients.md); a subscription is
          // refused by validation (incremental-placement.rule.ts) or answered by its own transport.
          if (operation?.operation !== 'query') return null;
          if (!namesIncrementalDirective(source) || !usesIncrementalDelivery(document)) return null;
          const formatErrors = errorFormatter(contextValue, responseErrors);
          // The v0.2 format's `pending` entries are read from markers the executed document adds.
          const marked = format === MULTIPART_INCREMENTAL ? markPending(document) : undefined;
          const abort = new AbortController();
          const stopListening = contextValue.onClientGone?.(() => {
            abort.abort();
            contextValue.logger.info(
              'client went away before the last part: the fields not started are not run',
            );
          });
          let result: SingularExecutionResult | IncrementalExecutionResults;
          try {
            result = await executeIncrementally({
              schema,
              document: marked?.document ?? document,
              contextValue,
              variableValues: request.variables,
              operationName: request.operationName,
              signal: abort.signal,
              hideSuggestions: responseErrors.hideSuggestions,
            });
          } catch (error) {
            stopListening?.();
            const graphQLError =
              error instanceof GraphQLError
                ? error
                : new GraphQLError('Execution failed', { originalError: error as Error });
            return {
              http: okHead(),
              body: { kind: 'single', singleResult: { errors: formatErrors([graphQLError]) } },
            };
          }
          if (!('initialResult' in result)) {
            // Every `@defer` was off (`if: false`), in another operation or under a null, every
            // streamed list short enough to come whole: one answer.
            stopListening?.();
            const { errors, ...rest } = result;
            const formatted = formatErrors(errors);
            if (marked) takeMarkers(rest.data, [], marked.markers);
            return {
              http: okHead(),
              body: {
                kind: 'single',
                singleResult: formatted ? { ...rest, errors: formatted } : rest,
              },
            };
          }
          const { errors, data, hasNext, incremental } = result.initialResult;
          const formatted = formatErrors(errors);
          const initialResult = {
            ...(formatted ? { errors: formatted } : {}),
            data,
            ...formattedPart({ hasNext, incremental }, formatErrors),
          } as GraphQLExperimentalFormattedInitialIncrementalExecutionResultAlpha2;
          const subsequentResults = formattedParts(result.subsequentResults, formatErrors, () =>
            stopListening?.(),
          );
          return {
            http: okHead(),
            body: marked
              ? {
                  kind: 'incremental',
                  ...inIncrementalSpec(initialResult, subsequentResults, marked, request.variables),
                }
              : { kind: 'incremental', initialResult, subsequentResults },
          };
        },
      };
    },
  };
}
