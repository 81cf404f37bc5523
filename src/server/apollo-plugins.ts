/** Apollo Server plugins: request-id stamping, error logging, and the operation log line. */
import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from './context.js';
import { rootCauseOf, stampRequestId } from '../errors/graphql-errors.js';
import { GatewayError, UpstreamError } from '../errors/gateway-errors.js';

export function requestLifecyclePlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      return {
        async didEncounterErrors({ errors, operationName }) {
          for (const error of errors) {
            const original = rootCauseOf(error);
            if (original instanceof UpstreamError || original instanceof GatewayError) continue;
            if (!error.originalError) continue; // parse/validation errors: the client's, not ours
            contextValue.logger.error(
              { err: original, operationName: operationName ?? null, path: error.path },
              'resolver failed',
            );
          }
        },
        async willSendResponse({ response, operationName, errors }) {
          if (response.body.kind === 'single') {
            stampRequestId(response.body.singleResult.errors, contextValue.requestId);
          }
          contextValue.logger.info(
            {
              operationName: operationName ?? null,
              errors: errors?.length ?? 0,
              durationMs: Math.round(performance.now() - started),
            },
            'graphql operation',
          );
        },
      };
    },
  };
}

/**
 * Reports back what the upstream layer learned while serving the request (see
 * `upstream/request-facts.ts`): when it spent budget, the caller's budget after the last spend as
 * `RateLimit-Limit/Remaining/Reset` headers and `extensions.rateLimit`; when a value was served
 * stale because the upstream failed, `extensions.stale` with its age and the upstream routes.
 */
export function upstreamFactsPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          const facts = contextValue.facts;
          if (!facts) return;
          const extensions: Record<string, unknown> = {};
          const budget = facts.spent > 0 ? facts.budget : undefined;
          if (budget) {
            response.http.headers.set('ratelimit-limit', String(budget.limit));
            response.http.headers.set('ratelimit-remaining', String(budget.remaining));
            response.http.headers.set('ratelimit-reset', String(budget.resetSec));
            extensions.rateLimit = { ...budget };
          }
          if (facts.stale.length > 0) {
            extensions.stale = {
              ageSec: Math.max(...facts.stale.map((fact) => fact.ageSec)),
              sources: facts.stale.map((fact) => ({ ...fact })),
            };
          }
          if (Object.keys(extensions).length === 0 || response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          result.extensions = { ...result.extensions, ...extensions };
        },
      };
    },
  };
}
