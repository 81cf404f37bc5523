/**
 * The stitching executor of a remote subgraph: prints the (already batched and transformed) request,
 * sends it through the request's {@link SubgraphClient}, and turns the answer into an execution
 * result whose errors carry typed upstream errors (subgraph-errors.ts), so they come out with the
 * gateway's codes like every other upstream failure.
 */
import { GraphQLError, print } from 'graphql';
import type { ExecutionRequest, ExecutionResult, Executor } from '@graphql-tools/utils';
import {
  malformedSubgraphResponse,
  readSubgraphError,
  subgraphError,
} from '../errors/subgraph-errors.ts';
import type { RemoteSubgraph } from './remote-subgraphs.ts';
import type { SubgraphScope } from './store-routing.ts';
import { subgraphsOf } from './subgraph.request.ts';
import { isRecord } from '../kit/is-record.ts';
import { thawed } from '../upstream/cache/frozen-value.ts';

/** Reads an HTTP 200 body as a GraphQL result; anything else is an UPSTREAM_ERROR. */
export function toExecutionResult(
  body: unknown,
  call: { method: string; route: string },
): ExecutionResult {
  if (!isRecord(body) || (!('data' in body) && !('errors' in body))) {
    throw malformedSubgraphResponse(call);
  }
  // Stitching annotates the objects it merges; a cached answer is shared and frozen: hand it a copy.
  const data = isRecord(body.data) ? thawed(body.data) : null;
  const rawErrors = Array.isArray(body.errors) ? body.errors : [];
  if (data === null && rawErrors.length === 0) throw malformedSubgraphResponse(call);
  const errors = rawErrors.map((raw) => {
    const wire = readSubgraphError(raw);
    // The GraphQL error keeps the path so stitching can place it; the typed error inside decides
    // how it is reported (graphql-errors.ts digs it out).
    return new GraphQLError(wire.message, {
      path: wire.path,
      originalError: subgraphError(wire, call),
    });
  });
  return errors.length > 0 ? { data, errors } : { data };
}

/** The executor of one subgraph; the request's context is the {@link SubgraphScope}. */
export function createSubgraphExecutor(subgraph: RemoteSubgraph): Executor {
  const call = { method: 'POST', route: subgraph.route };
  const executor = async (request: ExecutionRequest): Promise<ExecutionResult> => {
    const scope = request.context as SubgraphScope | undefined;
    if (!scope?.gateway) {
      throw new Error(`the ${subgraph.name} subgraph was called without a subgraph scope`);
    }
    const body = await subgraphsOf(scope.gateway).execute(
      subgraph,
      scope.storeId,
      {
        query: print(request.document),
        ...(request.variables && Object.keys(request.variables).length > 0
          ? { variables: request.variables }
          : {}),
        ...(request.operationName ? { operationName: request.operationName } : {}),
      },
      request.operationType === 'query',
    );
    return toExecutionResult(body, call);
  };
  return executor as Executor;
}
