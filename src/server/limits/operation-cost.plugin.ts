/**
 * Refuses an operation whose estimated cost (operation-cost.ts) passes the limit. It runs once the
 * operation is resolved and before execution, because the cost depends on the request's variables
 * (`first: $n`), which validation rules do not see. A refused operation is not registered as a
 * persisted query either: Apollo registers only after this hook passed.
 */
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { operationCost } from './operation-cost.ts';
import { limitExceeded, limitGraphQLError, type OperationLimits } from './operation-limits.ts';

/** The Apollo plugin that refuses operations past `limits.maxCost`, before execution. */
export function operationCostPlugin<TContext extends BaseContext>(
  limits: OperationLimits,
): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          // No operation: execution reports the unknown operation name; there is nothing to cost.
          if (!operation) return;
          const cost = operationCost(schema, document, operation, request.variables, {
            defaultListSize: limits.defaultListSize,
          });
          if (cost > limits.maxCost) {
            throw limitGraphQLError(limitExceeded('cost', limits.maxCost, cost), operation);
          }
        },
      };
    },
  };
}
