/**
 * Demand control in upstream calls (docs/demand.md): before an operation spends anything, its
 * upper bound of upstream calls (`upstream-call-bound.ts`) is held against
 * - the per-operation maximum (`LIMIT_MAX_UPSTREAM_CALLS`): over it, the operation is refused
 *   whatever the budget, as a limit (`extensions.limit: "upstreamCalls"`, `max`, `actual`);
 * - what is left of the credential's window for it (a query may not take the write reserve), or of
 *   the next window when this one ends within the wait a call is allowed: over it, an operation of
 *   more than one call (one call cannot fail half way: the limiter answers it) is refused with RATE_LIMITED (`limiter: "OPERATION_BOUND"`, the bound, what is
 *   left, `retryAfterSec` until the window's end) — unless the client accepts partial results
 *   (`Weft-Accept-Partial: 1`): then it runs, and the fields the budget cannot pay fail alone.
 * The bound of a document and variables is remembered: the same screen asks the same again.
 */
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import type { CallBoundDeclarations } from '../../kit/call-bounds.ts';
import type { BudgetSnapshot } from '../../upstream/budget-tracker.ts';
import {
  upstreamCallBound,
  type ListLengths,
  type UpstreamCallBound,
} from './upstream-call-bound.ts';

/** The request header with which a client accepts partial results rather than a refusal. */
export const ACCEPT_PARTIAL_HEADER = 'weft-accept-partial';
/** The request header that asks for the bound alone: the operation is not run. */
export const ESTIMATE_HEADER = 'weft-estimate';

/** Bounds remembered per document (by its variables), documents kept at most. */
const REMEMBERED_DOCUMENTS = 2_000;
const REMEMBERED_VARIABLE_SETS = 32;

export interface UpstreamCallPolicy {
  /** The operation's bound (remembered per document and variables). */
  boundOf(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
  ): UpstreamCallBound;
  /**
   * The bound with some unpaged lists' lengths known (not remembered: they change). With every
   * such list at 0, it is what an operation spends before its lists arrive.
   */
  boundWith(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
    lengths: ListLengths,
  ): UpstreamCallBound;
  /** The refusal of an operation whose bound the credential's window cannot pay. */
  refuseOverBudget(
    bound: UpstreamCallBound,
    operation: OperationDefinitionNode,
    budget: BudgetSnapshot,
  ): GatewayError | undefined;
}

export function createUpstreamCallPolicy(
  declarations: CallBoundDeclarations,
  /** How long a call may wait for room (`UPSTREAM_BUCKET_WAIT_MS`). */
  maxWaitMs: number,
): UpstreamCallPolicy {
  // Apollo keeps one parsed document per text: its identity names the text.
  const remembered = new LRUCache<DocumentNode, Map<string, UpstreamCallBound>>({
    max: REMEMBERED_DOCUMENTS,
  });
  return {
    boundOf(schema, document, operation, variables) {
      const key = `${operation.name?.value ?? ''}\u0000${JSON.stringify(variables ?? {})}`;
      let byVariables = remembered.get(document);
      const known = byVariables?.get(key);
      if (known) return known;
      const bound = upstreamCallBound(schema, document, operation, variables ?? {}, declarations);
      if (!byVariables) {
        byVariables = new Map();
        remembered.set(document, byVariables);
      }
      if (byVariables.size >= REMEMBERED_VARIABLE_SETS) byVariables.clear();
      byVariables.set(key, bound);
      return bound;
    },
    boundWith: (schema, document, operation, variables, lengths) =>
      upstreamCallBound(schema, document, operation, variables ?? {}, declarations, lengths),
    refuseOverBudget(bound, operation, budget) {
      // One call cannot fail half way: the limiter answers it (waiting for room, or naming what
      // said no), field by field.
      if (bound.calls <= 1) return undefined;
      // A query may not take what is kept for writes; a mutation may spend the window to its end.
      const reserve = operation.operation === 'mutation' ? 0 : budget.writeReserve;
      const left = Math.max(0, budget.remaining - reserve);
      if (bound.calls <= left) return undefined;
      // A window that ends while the operation's calls may still wait for it is room too.
      if (budget.resetSec * 1000 <= maxWaitMs && bound.calls <= budget.limit - reserve) {
        return undefined;
      }
      const retryAfterSec = Math.max(1, budget.resetSec);
      return new GatewayError(
        ErrorCode.RATE_LIMITED,
        `This operation can make up to ${bound.calls} upstream calls; ${left} are left for it in ` +
          `this window. Retry in ${retryAfterSec} s, ask for less, or accept partial results ` +
          `(Weft-Accept-Partial: 1).`,
        { limiter: 'OPERATION_BOUND', bound: bound.calls, remaining: left, retryAfterSec },
      );
    },
  };
}
