/**
 * The same limits for subscriptions as for HTTP operations: WebSocket and SSE subscribe requests do
 * not pass through Apollo's pipeline, so the document checks (size, tokens, trusted documents) and
 * the cost limit run here, before the first poll.
 */
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { GatewayError } from '../../errors/gateway-errors.ts';
import type { TrustedDocuments } from '../persisted-operations/trusted-documents.ts';
import { refusalOf } from './document-guard.hook.ts';
import { operationCost } from './operation-cost.ts';
import { limitExceeded, type OperationLimits } from './operation-limits.ts';

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
