/**
 * Apollo Server as the gateway runs it: the schema, the one error formatter, the request policy's
 * options, the result encoded once (for the response cache and the answer) and the ordered plugins
 * (apollo-plugins.ts). Everything before Apollo (transport, document checks, replay) is the GraphQL
 * route's.
 */
import { ApolloServer } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../../config.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import { CSRF_PROOF_HEADERS } from '../graphql-route/csrf.ts';
import type { RequestPolicy } from '../request-policy.ts';
import type { ResultEncoding } from '../response-cache/result-encoding.ts';
import type { ResponseErrors } from '../response-errors.ts';
import { apolloPlugins, type ApolloPluginParts } from './apollo-plugins.ts';

export function createApolloServer(options: {
  readonly config: Config;
  readonly schema: GraphQLSchema;
  readonly policy: RequestPolicy;
  readonly resultEncoding: ResultEncoding;
  readonly responseErrors: ResponseErrors;
  readonly plugins: Omit<ApolloPluginParts, 'pipeline' | 'idempotency' | 'responseErrors'>;
}): ApolloServer<GatewayContext> {
  const { config, policy, responseErrors } = options;
  return new ApolloServer<GatewayContext>({
    schema: options.schema,
    introspection: config.INTROSPECTION,
    // A request with any of these headers cannot be a simple cross-site request (graphql-route/csrf.ts).
    csrfPrevention: { requestHeaders: [...CSRF_PROOF_HEADERS] },
    // Weft owns the signals (main.ts): Apollo's handler would re-raise SIGTERM after its own stop
    // and kill the process before the drain, Redis and tracing are done.
    stopOnTerminationSignals: false,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    stringifyResult: options.resultEncoding.stringifyResult,
    formatError: responseErrors.formatError,
    ...policy.apolloOptions,
    plugins: apolloPlugins({
      ...options.plugins,
      pipeline: policy.pipeline,
      idempotency: policy.idempotency,
      responseErrors,
    }),
  });
}
