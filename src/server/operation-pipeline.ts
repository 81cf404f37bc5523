/**
 * THE operation pipeline: every check a GraphQL operation passes before it runs, in one declared
 * order, the same for every transport — HTTP (Fastify + Apollo Server), graphql-ws and SSE. Each
 * check is written once (in `limits/`, `persisted-operations/`, `variable-values.ts`); this module
 * puts them in order and is what the transports call, so the same document is refused with the same
 * code and extensions whichever way it came. docs/security.md describes each limit.
 *
 *  1. Transport: content type (415), body size (413), CSRF preflight header. HTTP: the route's
 *     onRequest hook, Fastify's bodyLimit, Apollo's csrfPrevention. A WebSocket or an SSE POST
 *     carries its credential in a way a cross-site form cannot.
 *  2. Document: size, tokens, trusted documents — before any parse ({@link OperationPipeline.refuseDocument}).
 *     HTTP: the route's preHandler hook; WS and SSE: `prepareSubscription`.
 *  3. Whole-response replay of a query answered before (same credential, same request). HTTP only.
 *  4. Parse; APQ lookup and registration. HTTP: Apollo; WS and SSE: `prepareSubscription`.
 *  5. Validation: graphql-js's rules plus the shape limits (depth, aliases, root fields, directives;
 *     {@link OperationPipeline.validationRules}). Apollo / `prepareSubscription`.
 *  6. Operation type fits the transport: subscriptions over WS and SSE only, the rest over HTTP.
 *  7. Variables (value-free errors), then cost ({@link OperationPipeline.refuseOperation}). HTTP:
 *     the Apollo plugin below; WS and SSE: `prepareSubscription`.
 *  8. Idempotency of mutations with `Idempotency-Key`. HTTP (mutations run nowhere else).
 *  9. Execution; metrics, tracing and one log line per operation.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type {
  DocumentNode,
  GraphQLError,
  GraphQLSchema,
  OperationDefinitionNode,
  ValidationRule,
} from 'graphql';
import type { GatewayError } from '../errors/gateway-errors.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import { refusalOf, type RequestedDocument } from './limits/document-limits.ts';
import { operationCost } from './limits/operation-cost.ts';
import {
  limitExceeded,
  limitGraphQLError,
  type OperationLimits,
} from './limits/operation-limits.ts';
import { createOperationShapeRule } from './limits/operation-shape.rule.ts';
import type { TrustedDocuments } from './persisted-operations/trusted-documents.ts';
import { variableValueProblems } from './variable-values.ts';

export interface OperationPipeline {
  /** Step 2: the document's size and tokens, and (in that mode) whether it is trusted. */
  refuseDocument(document: RequestedDocument): GatewayError | undefined;
  /** Step 5: the shape limits, added to graphql-js's rules. */
  readonly validationRules: readonly ValidationRule[];
  /** Apollo's parser backstop for the token limit (step 2 counted first). */
  readonly maxTokens: number;
  /** Step 7: variables that do not fit their types, then the estimated cost; undefined to go on. */
  refuseOperation(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
  ): readonly GraphQLError[] | undefined;
  /** Step 7 inside Apollo Server (HTTP). */
  apolloPlugin(): ApolloServerPlugin<GatewayContext>;
}

export function createOperationPipeline(
  limits: OperationLimits,
  trusted: TrustedDocuments | undefined,
): OperationPipeline {
  const refuseOperation: OperationPipeline['refuseOperation'] = (
    schema,
    document,
    operation,
    variables,
  ) => {
    // Variables first: the cost reads `first: $n`, which must be a valid value to mean anything.
    const problems = variableValueProblems(schema, operation, variables);
    if (problems.length > 0) return problems;
    const cost = operationCost(schema, document, operation, variables, {
      defaultListSize: limits.defaultListSize,
    });
    if (cost > limits.maxCost) {
      return [limitGraphQLError(limitExceeded('cost', limits.maxCost, cost), operation)];
    }
    return undefined;
  };

  return {
    refuseDocument: (document) => refusalOf(document, { limits, trusted }),
    validationRules: [createOperationShapeRule(limits)],
    maxTokens: limits.maxTokens,
    refuseOperation,
    apolloPlugin: () => ({
      async requestDidStart() {
        return {
          // Once the operation is known and before execution: the cost depends on the variables,
          // which validation rules do not see. Apollo registers an APQ only after this passed.
          async didResolveOperation({ schema, document, operation, request }) {
            // No operation: execution reports the unknown operation name; nothing to check.
            if (!operation) return;
            const [first] = refuseOperation(schema, document, operation, request.variables) ?? [];
            if (first) throw first;
          },
        };
      },
    }),
  };
}
