/**
 * What each hosting field costs in upstream calls, at most (`kit/call-bounds.ts`, docs/demand.md).
 */
import type { CallBoundDeclarations } from '../kit/call-bounds.ts';

export const HOSTING_CALL_BOUNDS: CallBoundDeclarations = {};
