/**
 * Apollo plugin: one metrics observation per GraphQL operation (name, outcome, latency), and, with
 * tracing on, the operation's span — a child of its HTTP request's span and the parent of its
 * upstream attempt spans (docs/observability.md).
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { Span } from '@opentelemetry/api';
import type { GatewayContext } from '../../kit/request-context.ts';
import { errorsOfPart, followDeferredParts } from '../incremental/deferred-parts.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import type { Tracing } from '../../observability/tracing.ts';

export function observabilityPlugin(
  metrics: GatewayMetrics | undefined,
  tracing: Tracing | undefined,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      let operationSpan: Span | undefined;
      return {
        async didResolveOperation({ operationName, operation, queryHash }) {
          const holder = contextValue.trace;
          if (!tracing || !holder || !operation) return;
          // The holder held the request's span until now: upstream calls become this span's children.
          operationSpan = tracing.startOperation(holder.span, {
            type: operation.operation,
            name: operationName,
            documentHash: queryHash,
          });
          holder.span = operationSpan;
        },
        async willSendResponse({ response, operationName, errors }) {
          // An answer in parts (`@defer`) is one operation: observed at its last part, with the
          // errors of every part.
          if (response.body.kind === 'incremental') {
            const sent = [...(response.body.initialResult.errors ?? [])];
            followDeferredParts(response, {
              part: (part) => sent.push(...errorsOfPart(part)),
              end: () => observe(operationName, sent),
            });
            return;
          }
          await observe(operationName, errors ?? []);
        },
      };

      async function observe(
        operationName: string | null | undefined,
        errors: readonly { extensions?: Record<string, unknown> }[],
      ) {
        const failed = errors.length > 0;
        metrics?.operation(
          operationName,
          failed ? 'error' : 'success',
          (performance.now() - started) / 1000,
        );
        if (!operationSpan || !tracing) return;
        // The ledger, when the request keeps one (metrics on, or `Weft-Ledger: 1`), once every call
        // it opened has ended: the calls served without the upstream have no attempt span.
        const ledger = contextValue.facts?.ledger;
        if (ledger) await ledger.settled();
        tracing.endOperation(operationSpan, errors, ledger?.report(null));
      }
    },
  };
}
