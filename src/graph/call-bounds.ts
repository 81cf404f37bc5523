/**
 * Every field's upstream-call bound, from the domains' own declarations (`kit/call-bounds.ts`): the
 * operation pipeline bounds each operation's upstream calls with this table (docs/demand.md).
 */
import { CERTIFICATES_CALL_BOUNDS } from '../certificates/certificates.call-bounds.ts';
import { COMMERCE_CALL_BOUNDS } from '../commerce/commerce.call-bounds.ts';
import { HOSTING_CALL_BOUNDS } from '../hosting/hosting.call-bounds.ts';
import type { CallBoundDeclarations, FieldCallBound } from '../kit/call-bounds.ts';
import { SUBGRAPH_CALL_BOUNDS } from '../stitching/subgraph.call-bounds.ts';

/** Fields of the graph's own assembly. */
const GRAPH_CALL_BOUNDS: CallBoundDeclarations = {
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
