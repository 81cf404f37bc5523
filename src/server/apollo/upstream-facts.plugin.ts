/**
 * Apollo plugin: what the upstream layer learned while serving a request, told to its client — the
 * budget, a value served stale, the ledger (`Weft-Ledger: 1`) — and, with metrics on, counted per
 * operation.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { followDeferredParts } from '../incremental/deferred-parts.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import type { BudgetSnapshot } from '../../upstream/budget-tracker.ts';
import type { RequestFacts } from '../../upstream/request-facts.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';

/** The caller's budget without spending it; undefined without a credential (or a readable store). */
async function budgetOf(context: GatewayContext) {
  if (!context.credential) return undefined;
  return context.budget.snapshot(context.credential).catch(() => undefined);
}

/**
 * Reports back what the upstream layer learned while serving the request (see
 * `upstream/request-facts.ts`): when it spent budget, the caller's budget after the last spend as
 * `RateLimit-Limit/Remaining/Reset/Write-Reserve` headers and `extensions.rateLimit`; when a value
 * was served stale because the upstream failed, `extensions.stale` with its age and the upstream
 * routes; when the request asked for its ledger, `extensions.upstream`.
 */
export function upstreamFactsPlugin(
  metrics?: GatewayMetrics | undefined,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue, operationName }) {
          const facts = contextValue.facts;
          if (!facts) return;
          // An answer in parts: the facts of the whole operation ride on its last part, in
          // `extensions` only (the headers left with the first part, before they were known).
          const inParts = followDeferredParts(response, {
            end: async (last) => {
              const extensions = await factsOf(contextValue, facts, operationName, false);
              if (!last || Object.keys(extensions).length === 0) return;
              last.extensions = { ...last.extensions, ...extensions };
            },
          });
          if (inParts) return;
          // An answer that is only the bound (`Weft-Estimate: 1`) ran nothing: no ledger to add.
          const estimateOnly =
            response.body.kind === 'single' &&
            response.body.singleResult.extensions?.['upstream'] !== undefined;
          const extensions = await factsOf(contextValue, facts, operationName, estimateOnly);
          const budget = extensions.rateLimit as BudgetSnapshot | undefined;
          if (budget) {
            response.http.headers.set('ratelimit-limit', String(budget.limit));
            response.http.headers.set('ratelimit-remaining', String(budget.remaining));
            response.http.headers.set('ratelimit-reset', String(budget.resetSec));
            response.http.headers.set('ratelimit-write-reserve', String(budget.writeReserve));
          }
          if (Object.keys(extensions).length === 0 || response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          result.extensions = { ...result.extensions, ...extensions };
        },
      };
    },
  };

  /**
   * What the upstream layer learned while serving the operation, as `extensions`: `rateLimit`
   * (when it spent budget), `upstream` (the ledger, when asked for), `stale`.
   */
  async function factsOf(
    contextValue: GatewayContext,
    facts: RequestFacts,
    operationName: string | null | undefined,
    estimateOnly: boolean,
  ): Promise<Record<string, unknown>> {
    const extensions: Record<string, unknown> = {};
    const budget = facts.spent > 0 ? facts.budget : undefined;
    if (budget) extensions.rateLimit = { ...budget };
    if (facts.ledger) {
      // Calls still in flight when the result was done (a failed field's siblings) count too.
      await facts.ledger.settled();
      const totals = facts.ledger.totals();
      metrics?.operationUpstream(
        operationName,
        totals.upstream,
        totals.withoutUpstream,
        facts.estimate,
      );
    }
    if (facts.ledger && facts.listed && !estimateOnly) {
      // After the operation, spent or not: a snapshot costs no upstream call.
      const after = (facts.spent > 0 ? facts.budget : undefined) ?? (await budgetOf(contextValue));
      // Worked out here, once: reading it walks the operation again.
      const refinedCalls = facts.refinedEstimate;
      // The bound beside what was spent (docs/budget.md): never below `totals.upstream`.
      extensions.upstream = {
        ...facts.ledger.report(after ?? null),
        estimate:
          facts.estimate === undefined
            ? null
            : {
                calls: facts.estimate,
                ...(refinedCalls === undefined ? {} : { refinedCalls }),
              },
      };
    }
    if (facts.stale.length > 0) {
      extensions.stale = {
        ageSec: Math.max(...facts.stale.map((fact) => fact.ageSec)),
        sources: facts.stale.map((fact) => ({ ...fact })),
      };
    }
    return extensions;
  }
}
