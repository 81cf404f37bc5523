/**
 * Apollo plugin: one metrics observation per GraphQL operation (name, outcome, latency), and, with
 * tracing on, the operation's span — the parent of its upstream call spans.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from '../kit/request-context.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';

export function observabilityPlugin(
  metrics: GatewayMetrics | undefined,
  tracing: Tracing | undefined,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      return {
        async didResolveOperation({ operationName, operation }) {
          if (!tracing || !contextValue.trace) return;
          const span = tracing.startOperation(operationName);
          if (operation) span.setAttribute('graphql.operation.type', operation.operation);
          contextValue.trace.span = span;
        },
        async willSendResponse({ operationName, errors }) {
          const failed = (errors?.length ?? 0) > 0;
          metrics?.operation(
            operationName,
            failed ? 'error' : 'success',
            (performance.now() - started) / 1000,
          );
          const span = contextValue.trace?.span;
          if (span && tracing) tracing.endOperation(span, errors?.length ?? 0);
        },
      };
    },
  };
}
