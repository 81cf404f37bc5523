/**
 * Demand control inside Apollo Server (HTTP; docs/budget.md): once the operation passed the
 * pipeline's checks, its upstream-call bound meets what is left of the credential's window before
 * anything is spent; an unpaged list that arrives refines the bound (and, for an operation let in
 * on what it spends before its lists arrive, refuses the fields the budget can no longer pay); and
 * `Weft-Estimate: 1` is answered with the bound instead of a run. The bound's maximum per operation
 * is a check of the pipeline (operation-pipeline.ts), the same for every transport.
 */
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { GatewayError } from '../../errors/gateway-errors.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import type { BudgetSnapshot } from '../../upstream/budget-tracker.ts';
import type { ListLengths } from './upstream-call-bound.ts';
import {
  ACCEPT_PARTIAL_HEADER,
  ESTIMATE_HEADER,
  type UpstreamCallPolicy,
} from './upstream-call-policy.ts';

/** An operation the budget cannot pay, refused before execution: 429 with `Retry-After`. */
function overBudget(refusal: GatewayError): GraphQLError {
  const retryAfterSec = refusal.details.retryAfterSec;
  return new GraphQLError(refusal.message, {
    originalError: refusal,
    extensions: {
      http: {
        status: 429,
        headers: new HeaderMap([['retry-after', String(retryAfterSec)]]),
      },
    },
  });
}

export function demandControlPlugin(
  calls: UpstreamCallPolicy,
  /**
   * Whether the request's operation passed the pipeline's checks: Apollo starts every plugin's
   * `didResolveOperation` at once, and an operation they refused must neither read the budget nor
   * leave an estimate behind.
   */
  passedChecks: (requestContext: object) => boolean,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(requestContext) {
          const { schema, document, operation, request, contextValue } = requestContext;
          // Subscriptions poll: their calls are counted per event, not bounded per operation.
          if (!operation || operation.operation === 'subscription') return;
          if (!passedChecks(requestContext)) return;
          // The bound against what is left of the window, before anything is spent.
          const bound = calls.boundOf(schema, document, operation, request.variables);
          const { credential, facts } = contextValue;
          facts?.recordEstimate(bound.calls);
          const boundWith = (lengths: ListLengths) =>
            calls.boundWith(schema, document, operation, request.variables, lengths);
          // Set when the operation is let in on what it spends before its unpaged lists arrive.
          let admittedOn: BudgetSnapshot | undefined;
          const checked =
            // One call cannot fail half way: the token bucket answers it (no budget read here).
            bound.calls > 1 &&
            credential !== undefined &&
            request.http?.headers.get(ACCEPT_PARTIAL_HEADER) !== '1' &&
            // Only the estimate is asked for: nothing will be spent.
            request.http?.headers.get(ESTIMATE_HEADER) !== '1';
          if (checked) {
            const budget = await contextValue.budget.snapshot(credential).catch(() => undefined);
            const verdict =
              budget &&
              calls.admit(
                schema,
                document,
                operation,
                request.variables,
                budget,
                contextValue.priority,
              );
            if (verdict?.refusal) throw overBudget(verdict.refusal);
            if (verdict?.heldToLists) admittedOn = budget;
          }
          if (!facts || bound.unpaged.length === 0) return;
          const lengths = new Map<string, number>();
          // Walked again only when someone reads it: an operation let in on what it spends before
          // its lists arrive (at each arrival), or an answer that lists its ledger (once, at the
          // end). A list's arrival is otherwise on the way to the calls below it.
          facts.refineEstimateWith(() => (lengths.size > 0 ? boundWith(lengths).calls : undefined));
          facts.onListArrival((field, length) => {
            lengths.set(field, Math.max(length, lengths.get(field) ?? 0));
            if (!admittedOn) return;
            // A field error: the list's call is spent, nothing below the list runs.
            const refusal = calls.refuseOverBudget(
              boundWith(lengths),
              operation,
              admittedOn,
              contextValue.priority,
            );
            if (refusal) throw refusal;
          });
        },
        // `Weft-Estimate: 1`: the bound instead of a run (the explorer shows it before one).
        async responseForOperation({ schema, document, operation, request }) {
          if (request.http?.headers.get(ESTIMATE_HEADER) !== '1') return null;
          if (operation.operation === 'subscription') return null;
          const bound = calls.boundOf(schema, document, operation, request.variables);
          return {
            http: { status: 200, headers: new HeaderMap() },
            body: {
              kind: 'single',
              singleResult: {
                extensions: {
                  upstream: { estimate: { calls: bound.calls, byField: bound.byField } },
                },
              },
            },
          };
        },
      };
    },
  };
}
