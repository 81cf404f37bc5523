/**
 * THE operation pipeline: every check a GraphQL operation passes before it runs, in one declared
 * order, the same for every transport — HTTP (Fastify + Apollo Server), graphql-ws and SSE. Each
 * check is written once (in `limits/`, `demand-control/`, `persisted-operations/`,
 * `variable-values.ts`); this module
 * puts them in order and is what the transports call, so the same document is refused with the same
 * code and extensions whichever way it came. docs/security.md describes each limit.
 *
 *  1. Transport: content type (415), body size (413), CSRF preflight header. HTTP: the route's
 *     onRequest hook, Fastify's bodyLimit, Apollo's csrfPrevention. A WebSocket or an SSE POST
 *     carries its credential in a way a cross-site form cannot.
 *  2. Document ({@link OperationPipeline.refuseDocument}): size, tokens and trusted documents before
 *     any parse; then the shape limits (depth, aliases, root fields, directives) on the parsed
 *     document, before any validation — each linear in the document. The verdict is remembered by
 *     the document's text, so a document refused (or passed) once costs a lookup the next time.
 *     HTTP: the route's preHandler hook; WS and SSE: `prepareSubscription`.
 *  3. Whole-response replay of a query answered before (same credential, same request). HTTP only.
 *  4. Parse; APQ lookup and registration. HTTP: Apollo; WS and SSE: `prepareSubscription`.
 *  5. Validation: graphql-js's rules, plus the shape limits again as a backstop and the placement
 *     of `@defer` and `@stream` ({@link OperationPipeline.validationRules}). Apollo /
 *     `prepareSubscription`.
 *  6. Operation type fits the transport: subscriptions over WS and SSE only, the rest over HTTP.
 *  7. Variables (value-free errors), the arguments' `@range` bounds, then cost, then the upper
 *     bound of upstream calls against its maximum ({@link OperationPipeline.refuseOperation}).
 *     HTTP: the Apollo plugin below; WS and SSE: `prepareSubscription`. Over HTTP, demand control
 *     then holds the bound against what is left of the credential's window
 *     (demand-control/demand-control.plugin.ts).
 *  8. Idempotency of mutations with `Idempotency-Key`. HTTP (mutations run nowhere else).
 *  9. Execution (a query with `@defer` or `@stream`, for a client that reads parts: in parts,
 *     incremental/incremental-delivery.plugin.ts); metrics, tracing and one log line per operation
 *     — for an answer in parts, at its last part (incremental/deferred-parts.ts).
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type {
  DocumentNode,
  GraphQLError,
  GraphQLSchema,
  OperationDefinitionNode,
  ValidationRule,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import type { GatewayError } from '../errors/gateway-errors.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import { argumentRangeProblem } from './demand-control/argument-ranges.ts';
import { refusalOf, type RequestedDocument } from './limits/document-limits.ts';
import { operationCost } from './demand-control/operation-cost.ts';
import {
  limitExceeded,
  limitGraphQLError,
  type OperationLimits,
} from './limits/operation-limits.ts';
import { createOperationShapeRule } from './limits/operation-shape.rule.ts';
import { IncrementalPlacementRule } from './incremental/incremental-placement.rule.ts';
import type { TrustedDocuments } from './persisted-operations/trusted-documents.ts';
import { variableValueProblems } from './variable-values.ts';
import type { CallBoundDeclarations } from '../kit/call-bounds.ts';
import {
  createUpstreamCallPolicy,
  type UpstreamCallPolicy,
} from './demand-control/upstream-call-policy.ts';

export interface OperationPipeline {
  /** Step 2: size, tokens, trusted documents, then the shape limits of the parsed document. */
  refuseDocument(document: RequestedDocument): GatewayError | undefined;
  /** Step 5: the shape limits as a validation rule (a backstop), added to graphql-js's rules. */
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
  /**
   * Whether step 7 let in the operation of this Apollo request (its request context): what demand
   * control acts on (demand-control/demand-control.plugin.ts).
   */
  passedChecks(requestContext: object): boolean;
  /**
   * The operations' upstream-call bounds and their refusal over budget, for the transports that
   * state a cost before a run (the MCP tools); absent when operations are not bounded in calls.
   */
  readonly callPolicy: UpstreamCallPolicy | undefined;
}

/**
 * Characters of document text whose verdicts are remembered (the texts are the keys: a lookup
 * hashes the text once, and the response cache's lookup of the same string reuses that hash, where
 * a SHA-256 key would hash every request's document again).
 */
const REMEMBERED_DOCUMENT_CHARS = 4 * 1024 * 1024;

export function createOperationPipeline(
  limits: OperationLimits,
  trusted: TrustedDocuments | undefined,
  /**
   * The fields' upstream-call bounds and how long a call may wait for room; without them,
   * operations are not bounded in calls.
   */
  demand?: {
    readonly callBounds: CallBoundDeclarations;
    readonly maxWaitMs: number;
    /** `UPSTREAM_WRITE_RESERVE_SHARE`: what a request at a lower priority leaves (docs/budget.md). */
    readonly writeReserveShare?: number;
  },
): OperationPipeline {
  const calls =
    demand &&
    createUpstreamCallPolicy(demand.callBounds, demand.maxWaitMs, demand.writeReserveShare);
  /** The Apollo requests whose operation passed step 7 (their request contexts). */
  const passed = new WeakSet<object>();
  /** Document text → its refusal, or that it passed step 2. */
  const verdicts = new LRUCache<string, GatewayError | { passed: true }>({
    maxSize: REMEMBERED_DOCUMENT_CHARS,
    sizeCalculation: (_verdict, text) => text.length + 64,
  });

  const refuseDocument = (requested: RequestedDocument): GatewayError | undefined => {
    const { query } = requested;
    // A hash-only APQ request: its text was checked when it was registered.
    if (query === undefined) return refusalOf(requested, { limits, trusted });
    const known = verdicts.get(query);
    if (known) return 'passed' in known ? undefined : known;
    const refusal = refusalOf(requested, { limits, trusted });
    // An oversize text is refused by its length alone: not worth its room here.
    if (query.length <= limits.maxDocumentBytes) verdicts.set(query, refusal ?? { passed: true });
    return refusal;
  };

  const refuseOperation: OperationPipeline['refuseOperation'] = (
    schema,
    document,
    operation,
    variables,
  ) => {
    // Variables first: the cost reads `first: $n`, which must be a valid value to mean anything.
    const problems = variableValueProblems(schema, operation, variables);
    if (problems.length > 0) return problems;
    // Then the bounds the SDL declares: `first: 500` names `first`, not the cost it would have.
    const outOfRange = argumentRangeProblem(schema, document, operation, variables);
    if (outOfRange) return [outOfRange];
    const cost = operationCost(schema, document, operation, variables, {
      defaultListSize: limits.defaultListSize,
    });
    if (cost > limits.maxCost) {
      return [limitGraphQLError(limitExceeded('cost', limits.maxCost, cost), operation)];
    }
    // Then the upstream calls it can make, whatever the budget (subscriptions poll: per event).
    if (calls && operation.operation !== 'subscription') {
      const bound = calls.boundOf(schema, document, operation, variables);
      if (bound.calls > limits.maxUpstreamCalls) {
        const refusal = limitExceeded('upstreamCalls', limits.maxUpstreamCalls, bound.calls);
        return [limitGraphQLError(refusal, operation)];
      }
    }
    return undefined;
  };

  return {
    refuseDocument,
    validationRules: [createOperationShapeRule(limits), IncrementalPlacementRule],
    maxTokens: limits.maxTokens,
    refuseOperation,
    callPolicy: calls,
    passedChecks: (requestContext) => passed.has(requestContext),
    apolloPlugin: () => ({
      async requestDidStart() {
        return {
          // Once the operation is known and before execution: the cost depends on the variables,
          // which validation rules do not see. Apollo registers an APQ only after this passed.
          async didResolveOperation(requestContext) {
            const { schema, document, operation, request } = requestContext;
            // No operation: execution reports the unknown operation name; nothing to check.
            if (!operation) return;
            const [first] = refuseOperation(schema, document, operation, request.variables) ?? [];
            if (first) throw first;
            passed.add(requestContext);
          },
        };
      },
    }),
  };
}
