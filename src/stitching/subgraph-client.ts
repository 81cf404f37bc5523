/**
 * GraphQL over HTTP to the commerce subgraphs, through the upstream client like every other call:
 * the subgraph requests share the credential's budget, the metrics and the error translation of
 * REST calls. One instance per GraphQL request (it carries the request's credential).
 */
import type { UpstreamClient } from '../upstream/upstream-call.ts';
import { callerOf, type RequestScope } from '../upstream/request-scope.ts';
import type { RemoteSubgraph } from './remote-subgraphs.ts';

/** The request body the subgraph endpoints take. */
export interface SubgraphRequestBody {
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>>;
  readonly operationName?: string;
}

/** What an HTTP 200 answer holds (unchecked: the executor checks it). */
export type SubgraphResponseBody = unknown;

/** Sends operations to the commerce subgraphs for one request. */
export interface SubgraphClient {
  /**
   * POSTs one operation. `storeId` is required for a store-scoped subgraph and goes both into the
   * path and into `x-store-id` (the document says they must agree; the header wins upstream).
   * `readOnly` marks a query: safe to retry, like a GET.
   */
  execute(
    subgraph: RemoteSubgraph,
    storeId: string | null,
    body: SubgraphRequestBody,
    readOnly: boolean,
  ): Promise<SubgraphResponseBody>;
}

/** A {@link SubgraphClient} on behalf of one request (its credential and request id). */
export function createSubgraphClient(
  upstream: UpstreamClient,
  scope: RequestScope,
): SubgraphClient {
  return {
    async execute(subgraph, storeId, body, readOnly) {
      if (subgraph.storeScoped && storeId === null) {
        throw new Error(`the ${subgraph.name} subgraph needs a store id`);
      }
      const store = subgraph.storeScoped && storeId !== null ? storeId : undefined;
      const response = await upstream.request<unknown>({
        method: 'POST',
        route: subgraph.route,
        ...(store === undefined
          ? {}
          : { params: { storeId: store }, headers: { 'x-store-id': store } }),
        body,
        idempotent: readOnly,
        ...callerOf(scope),
      });
      return response.data;
    },
  };
}
