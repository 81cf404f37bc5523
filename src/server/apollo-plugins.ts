/**
 * Apollo Server plugins: request-id stamping, error logging and each operation's log fields.
 */
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { errorsOfPart, followDeferredParts } from './incremental/deferred-parts.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import type { BudgetSnapshot } from '../upstream/budget-tracker.ts';
import type { RequestFacts } from '../upstream/request-facts.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { OperationLogFields } from '../observability/operation-log.ts';
import { ErrorCode, RequestErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import {
  errorCodesOf,
  formatGraphQLError,
  rootCauseOf,
  stampRequestId,
} from '../errors/graphql-errors.ts';

/**
 * An error the gateway did not expect: exactly those `formatGraphQLError` masks as internal (as the
 * subscription transports decide too). Everything else is a typed upstream/gateway error or the
 * client's own request error (parse, validation, variables, a limit) — answered, not an incident.
 */
const isUnexpected = (error: GraphQLError): boolean =>
  formatGraphQLError(error.toJSON(), error).extensions?.code === ErrorCode.INTERNAL_SERVER_ERROR;

const SUBSCRIPTION_OVER_JSON =
  'Send a subscription with `Accept: text/event-stream` (GraphQL over SSE) or over graphql-ws: one JSON answer cannot carry its events.';

/** The log fields of an operation whose answer carried `sent`. */
function operationFields(
  operationName: string | null | undefined,
  sent: readonly GraphQLFormattedError[] | undefined,
  started: number,
): OperationLogFields {
  const errorCodes = errorCodesOf(sent);
  return {
    operationName: operationName ?? null,
    errors: sent?.length ?? 0,
    ...(errorCodes.length > 0 ? { errorCodes } : {}),
    durationMs: Math.round(performance.now() - started),
  };
}

export function requestLifecyclePlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      return {
        // A subscription sent as plain JSON (the route streams only one whose Accept names
        // text/event-stream) would run once as if it were a query, and its resolver fail. Refused
        // as the last check, so that a document over a limit is refused as on the other transports.
        async responseForOperation({ operation }) {
          // Apollo's type says an operation is resolved here; with several and no name it is not.
          if ((operation as typeof operation | undefined)?.operation !== 'subscription')
            return null;
          const refusal = new GatewayError(RequestErrorCode.BAD_REQUEST, SUBSCRIPTION_OVER_JSON);
          return {
            http: { status: 400, headers: new HeaderMap() },
            body: {
              kind: 'single',
              singleResult: { errors: [formatGraphQLError({ message: refusal.message }, refusal)] },
            },
          };
        },
        async didEncounterErrors({ errors, operationName }) {
          for (const error of errors) {
            if (!isUnexpected(error)) continue;
            contextValue.logger.error(
              { err: rootCauseOf(error), operationName: operationName ?? null, path: error.path },
              'resolver failed',
            );
          }
        },
        async willSendResponse({ response, operationName, errors }) {
          // A GraphQL answer is one credential's: no shared cache may keep it. (The replay plugin
          // replaces this with `private, max-age` for an answer it stored.) Set here rather than by
          // Apollo's cache-control plugin, which would wrap every resolver to compute the same.
          response.http.headers.set('cache-control', 'no-store');
          const note = (fields: OperationLogFields) => {
            if (contextValue.noteOperation) contextValue.noteOperation(fields);
            else contextValue.logger.info(fields, 'graphql operation');
          };
          // An answer in parts (`@defer`) is logged once, when its last part is written: the
          // errors of every part, the whole duration.
          if (response.body.kind === 'incremental') {
            const sent = [...(response.body.initialResult.errors ?? [])];
            followDeferredParts(response, {
              part: (part) => sent.push(...errorsOfPart(part)),
              end: () => note(operationFields(operationName, sent, started)),
            });
            return;
          }
          // The errors as sent (an idempotent replay or refusal answers without raising any).
          const sent =
            response.body.kind === 'single'
              ? response.body.singleResult.errors
              : errors?.map((error) => formatGraphQLError(error.toJSON(), error));
          stampRequestId(sent, contextValue.requestId);
          note(operationFields(operationName, sent, started));
        },
      };
    },
  };
}

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
      // The bound beside what was spent (docs/demand.md): never below `totals.upstream`.
      extensions.upstream = {
        ...facts.ledger.report(after ?? null),
        estimate:
          facts.estimate === undefined
            ? null
            : {
                calls: facts.estimate,
                ...(facts.refinedEstimate === undefined
                  ? {}
                  : { refinedCalls: facts.refinedEstimate }),
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
