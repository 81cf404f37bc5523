/**
 * The same limits for subscriptions as for HTTP operations: WebSocket and SSE subscribe requests do
 * not pass through Apollo's pipeline, so the document checks (size, tokens, trusted documents) and
 * the cost limit run here, before the first poll.
 */
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { GatewayError } from '../../errors/gateway-errors.js';
import type { TrustedDocuments } from '../persisted-operations/trusted-documents.js';
import { refusalOf } from './document-guard.hook.js';
import { operationCost } from './operation-cost.js';
import { limitExceeded, type OperationLimits } from './operation-limits.js';

export interface SubscriptionGuard {
  /** Before parsing: document size, token count, trusted documents. */
  refuseDocument(query: string): GatewayError | undefined;
  /** After validation: the operation's estimated cost. */
  refuseOperation(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
  ): GatewayError | undefined;
}

export function createSubscriptionGuard(
  limits: OperationLimits,
  trusted: TrustedDocuments | undefined,
): SubscriptionGuard {
  return {
    refuseDocument: (query) => refusalOf({ query, sha256Hash: undefined }, { limits, trusted }),
    refuseOperation(schema, document, operation, variables) {
      const cost = operationCost(schema, document, operation, variables, {
        defaultListSize: limits.defaultListSize,
      });
      return cost > limits.maxCost ? limitExceeded('cost', limits.maxCost, cost) : undefined;
    },
  };
}
