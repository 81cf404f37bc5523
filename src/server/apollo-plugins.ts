/** Apollo Server plugins: request-id stamping, error logging, and the operation log line. */
import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayContext } from './context.js';
import { stampRequestId } from '../errors/graphql-errors.js';
import { GatewayError, UpstreamError } from '../errors/gateway-errors.js';
import { unwrapResolverError } from '@apollo/server/errors';

export function requestLifecyclePlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const started = performance.now();
      return {
        async didEncounterErrors({ errors, operationName }) {
          for (const error of errors) {
            const original = unwrapResolverError(error);
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
