/**
 * Every field's upstream-call bound, from the domains' own declarations (`kit/call-bounds.ts`): the
 * operation pipeline bounds each operation's upstream calls with this table (docs/budget.md).
 */
import {
  CERTIFICATE_DETAIL,
  CERTIFICATES_CALL_BOUNDS,
} from '../certificates/certificates.call-bounds.ts';
import { CHANNEL_WALK_PAGES, COMMERCE_CALL_BOUNDS } from '../commerce/commerce.call-bounds.ts';
import { HOSTING_CALL_BOUNDS } from '../hosting/hosting.call-bounds.ts';
import type { CallBoundDeclarations, FieldArgs, FieldCallBound } from '../kit/call-bounds.ts';
import { decodeGlobalId } from '../kit/global-id.ts';
import { SUBGRAPH_CALL_BOUNDS } from '../stitching/subgraph.call-bounds.ts';

/**
 * What `node(id:)` costs for each `Node` type (graph/node.resolvers.ts NODE_LOADERS): the load of
 * the object again from its id, before its fields (which count as the type's own). Certificate: its
 * detail or its entitlement's list, one call (loader); Store, StoreCustomer, App: one read (loader);
 * Transaction: the by-id batch of its store, one call; Channel: get-by-id, and on a 401 the walk of
 * the channels (`Query.channel`'s bound). A test holds these keys to the schema's `Node` types.
 */
export const NODE_CALLS: Readonly<Record<string, number>> = {
  Certificate: 1,
  Store: 1,
  Channel: 1 + CHANNEL_WALK_PAGES,
  StoreCustomer: 1,
  Transaction: 1,
  App: 1,
};
const COSTLIEST_NODE = Math.max(...Object.values(NODE_CALLS));

/**
 * The calls of `node(id:)` for this id: its type's (the id names it, and the bound is computed per
 * variables). An id that does not decode is refused before any call. A type missing from
 * {@link NODE_CALLS} (one without a loader answers null without a call, but a new `Node` type may
 * not be declared yet) counts as the costliest.
 */
export function nodeCalls(args: FieldArgs): number {
  const id = args['id'];
  if (typeof id !== 'string') return COSTLIEST_NODE;
  let typename: string;
  try {
    typename = decodeGlobalId(id).typename;
  } catch {
    return 0;
  }
  return NODE_CALLS[typename] ?? COSTLIEST_NODE;
}

/** Fields of the graph's own assembly. */
const GRAPH_CALL_BOUNDS: CallBoundDeclarations = {
  // A certificate read by id comes with its detail, as from `certificate(certificateId:)`.
  'Query.node': { calls: nodeCalls, provides: CERTIFICATE_DETAIL },
  // The token bucket's own state.
  'Query.viewer': { calls: 0 },
  'Viewer.rateLimit': { calls: 0 },
};

export function callBounds(): CallBoundDeclarations {
  const all: Record<string, FieldCallBound> = {};
  for (const table of [
    GRAPH_CALL_BOUNDS,
    CERTIFICATES_CALL_BOUNDS,
    HOSTING_CALL_BOUNDS,
    COMMERCE_CALL_BOUNDS,
    SUBGRAPH_CALL_BOUNDS,
  ]) {
    for (const [field, bound] of Object.entries(table)) {
      if (all[field]) throw new Error(`the call bound of ${field} is declared twice`);
      all[field] = bound;
    }
  }
  return all;
}
