/**
 * Demand control in upstream calls (docs/budget.md): before an operation spends anything, its
 * upper bound of upstream calls (`upstream-call-bound.ts`) is held against
 * - the per-operation maximum (`LIMIT_MAX_UPSTREAM_CALLS`): over it, the operation is refused
 *   whatever the budget, as a limit (`extensions.limit: "upstreamCalls"`, `max`, `actual`);
 * - what is left of the credential's window for it (a query may not take the write reserve, a
 *   request at a lower priority what its priority leaves to the others), or of
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
  DEFAULT_WRITE_RESERVE_SHARE,
  operationPriorityOf,
  reserveShareOf,
  reservedCalls,
  type CallPriority,
} from '../../upstream/budget/call-priority.ts';
import type { RequestPriority } from '../../upstream/request-scope.ts';
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
    /**
     * Who waits on its calls (`Weft-Priority`, an agent's MCP call): below a user's, a request
     * leaves more of the window's end to the others. Absent: a user's.
     */
    priority?: RequestPriority,
  ): GatewayError | undefined;
  /** The calls left of the window for an operation of this type at this priority. */
  leftFor(
    operationType: OperationDefinitionNode['operation'],
    budget: BudgetSnapshot,
    priority?: RequestPriority,
  ): number;
  /**
   * Whether an operation may start on what is left of the window for it: its refusal, or none —
   * with `heldToLists` when it is let in only on what it spends before its unpaged lists arrive,
   * and must be held to its bound again once their lengths are known.
   */
  admit(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
    budget: BudgetSnapshot,
    priority?: RequestPriority,
  ): { readonly refusal?: GatewayError; readonly heldToLists: boolean };
}

export function createUpstreamCallPolicy(
  declarations: CallBoundDeclarations,
  /** How long a call may wait for room (`UPSTREAM_BUCKET_WAIT_MS`). */
  maxWaitMs: number,
  /** The share of each window kept for writes (`UPSTREAM_WRITE_RESERVE_SHARE`). */
  writeReserveShare = DEFAULT_WRITE_RESERVE_SHARE,
): UpstreamCallPolicy {
  /** The calls at the window's end a call of `priority` leaves to the priorities before it. */
  const reserveOf = (priority: CallPriority, budget: BudgetSnapshot): number => {
    if (priority === 'write') return 0;
    // The budget says the read reserve itself (the store computes it from the same share).
    if (priority === 'read') return budget.writeReserve;
    return reservedCalls(budget.limit, reserveShareOf(priority, writeReserveShare));
  };
  // Apollo keeps one parsed document per text: its identity names the text.
  const remembered = new LRUCache<DocumentNode, Map<string, UpstreamCallBound>>({
    max: REMEMBERED_DOCUMENTS,
  });
  const policy: UpstreamCallPolicy = {
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
    refuseOverBudget(bound, operation, budget, priority = 'user') {
      // One call cannot fail half way: the limiter answers it (waiting for room, or naming what
      // said no), field by field.
      if (bound.calls <= 1) return undefined;
      // A query may not take what is kept for writes; a mutation may spend the window to its end;
      // a request at a lower priority stops where its calls stop (call-priority.ts).
      const reserve = reserveOf(operationPriorityOf(priority, operation.operation), budget);
      const left = policy.leftFor(operation.operation, budget, priority);
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
    leftFor: (operationType, budget, priority = 'user') =>
      Math.max(
        0,
        budget.remaining - reserveOf(operationPriorityOf(priority, operationType), budget),
      ),
    admit(schema, document, operation, variables, budget, priority) {
      const bound = policy.boundOf(schema, document, operation, variables);
      const refusal = policy.refuseOverBudget(bound, operation, budget, priority);
      if (!refusal) return { heldToLists: false };
      // A list that is not paged counts its assumed maximum and may hold far fewer: the operation
      // is let in when what runs before the lists arrive fits, and held again to its bound once
      // their lengths are known, before anything below them runs.
      if (bound.unpaged.length === 0) return { refusal, heldToLists: false };
      const none = new Map(bound.unpaged.map((field) => [field, 0]));
      const beforeLists = policy.boundWith(schema, document, operation, variables, none);
      return policy.refuseOverBudget(beforeLists, operation, budget, priority)
        ? { refusal, heldToLists: false }
        : { heldToLists: true };
    },
  };
  return policy;
}
