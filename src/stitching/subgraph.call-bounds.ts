/**
 * What the stitched subgraphs' fields cost in upstream calls, at most (`kit/call-bounds.ts`,
 * docs/budget.md, "Stitched subgraphs").
 *
 * Derived from the snapshots in schema/remote/ when this module loads (built once per process and
 * shared with the subschemas, remote-snapshots.ts), with the same collision
 * renames as the gateway (`planRenames`), so a field added by `npm run schema:pull` is declared
 * without anyone writing it down: every `Query` and `Mutation` root field of catalog, tax and order,
 * and for the store-scoped subgraphs (catalog, tax) every `Store` field store-extension.ts adds.
 *
 * What execution does (remote-subschemas.ts, store-extension.ts, store-routing.ts): each such field
 * is ONE `delegateToSchema`, whose request goes to the subgraph's batching executor (`batch: true`)
 * keyed by the per-(request, store) scope; the delegations of one tick for one subgraph and one store
 * leave as one POST. Nothing in this graph merges types (no `merge` config), so no delegation makes a
 * second request, and the fields of a subgraph's result are read from that result. Hence:
 *
 * - one call per field per parent is an upper bound. Execution often makes fewer: siblings of one
 *   subgraph and one store share a request ("one per subgraph per store per request"),
 *   but not always (delegations of different ticks, e.g. below a field that awaited a call, leave
 *   separately; mutation root fields run one after another, one request each), so the declaration
 *   does not claim the sharing;
 * - no `oncePerRequest`: a `Store` field has no `storeId` argument (the store is the parent), so equal
 *   arguments do not mean the same store;
 * - no `items`: below a subgraph's lists, only that subgraph's own types, whose fields cost nothing.
 *
 * Queries are sent as idempotent (the retry layer may repeat them); mutations are not. The bound
 * counts logical calls.
 */
import { ONE_CALL, type CallBoundDeclarations, type FieldCallBound } from '../kit/call-bounds.ts';
import { localSdlDocuments } from '../kit/local-sdl.ts';
import { localNames, planRenames } from './name-collisions.ts';
import { REMOTE_SUBGRAPHS, type RemoteSubgraph } from './remote-subgraphs.ts';
import { snapshotSchema } from './remote-snapshots.ts';
import { STORE_TYPE } from './store-extension.ts';

/** The declarations of the stitched root fields and `Store` fields of these subgraphs. */
export function subgraphCallBounds(
  subgraphs: readonly RemoteSubgraph[] = REMOTE_SUBGRAPHS,
): CallBoundDeclarations {
  const snapshots = subgraphs.map((subgraph) => ({ subgraph, schema: snapshotSchema(subgraph) }));
  const plan = planRenames(localNames(localSdlDocuments()), snapshots);
  const declarations: Record<string, FieldCallBound> = {};
  for (const { subgraph, schema } of snapshots) {
    const renamed = plan.get(subgraph.name)?.rootFields;
    const roots = [
      ['Query', schema.getQueryType()],
      ['Mutation', schema.getMutationType()],
    ] as const;
    for (const [operation, type] of roots) {
      for (const field of Object.keys(type?.getFields() ?? {})) {
        const name = renamed?.get(operation)?.get(field) ?? field;
        // One delegation, one request at most (see above).
        declarations[`${operation}.${name}`] = ONE_CALL;
        // The same read as a field of `Store`, for the parent store (store-extension.ts).
        if (operation === 'Query' && subgraph.storeScoped) {
          declarations[`${STORE_TYPE}.${name}`] = ONE_CALL;
        }
      }
    }
  }
  return declarations;
}

export const SUBGRAPH_CALL_BOUNDS: CallBoundDeclarations = subgraphCallBounds();
