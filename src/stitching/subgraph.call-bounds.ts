/**
 * What the stitched subgraphs' fields cost in upstream calls, at most (`kit/call-bounds.ts`,
 * docs/demand.md).
 */
import type { CallBoundDeclarations } from '../kit/call-bounds.ts';

export const SUBGRAPH_CALL_BOUNDS: CallBoundDeclarations = {};
