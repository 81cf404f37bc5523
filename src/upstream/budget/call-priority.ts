/**
 * Which calls go first when a credential's window runs low (docs/budget.md "Priorities"). Every
 * upstream call has one of four priorities, in this order:
 * 1. `write` — a write a client asked for (a mutation's upstream call, from an app or the explorer):
 *    may spend the window to its last call;
 * 2. `read` — a read for a client's query: stops where the write reserve begins;
 * 3. `background` — work nobody is waiting on this instant (subscription pollers): stops a little
 *    earlier, so that a screen's reads still find room;
 * 4. `explorer` — reads from the explorer (or a client that asks to be served last with
 *    `Weft-Priority`): stops earliest.
 * A priority is kept out of the last part of the window: {@link reserveShareOf} of it. The stores
 * (memory and the Redis script) apply it on every take, so one view holds across replicas. The same
 * rule holds in every route class (the upstream's per-IP limits, and a tenant's fair share of them):
 * {@link classRoomOf}, so background and explorer reads stop while a screen's reads still find room.
 */
import type { RoutePolicy } from '../route-policy.ts';
import { operationTypeOf } from '../graphql-operation.ts';
import type { RequestPriority } from '../request-scope.ts';
import type { RoutedCall } from '../upstream-routes.ts';

export type CallPriority = 'write' | 'read' | 'background' | 'explorer';

/** The default share of each window kept for writes (`UPSTREAM_WRITE_RESERVE_SHARE`). */
export const DEFAULT_WRITE_RESERVE_SHARE = 0.1;
/** How much earlier than reads each lower priority stops, as a share of the window. */
export const BACKGROUND_EXTRA_SHARE = 0.05;
export const EXPLORER_EXTRA_SHARE = 0.1;

/** The share of the window (from its end) a call of this priority may not take. */
export function reserveShareOf(priority: CallPriority, writeReserveShare: number): number {
  switch (priority) {
    case 'write':
      return 0;
    case 'read':
      return writeReserveShare;
    case 'background':
      return Math.min(1, writeReserveShare + BACKGROUND_EXTRA_SHARE);
    case 'explorer':
      return Math.min(1, writeReserveShare + EXPLORER_EXTRA_SHARE);
  }
}

/** Calls of a window of `cap` a priority leaves untouched (the Redis script computes the same). */
export const reservedCalls = (cap: number, share: number): number => Math.floor(cap * share);

/**
 * The write reserve of a route class: none. Hosting's per-IP classes keep reads and writes apart
 * (reads, writes, uploads and deploys each have their own), so a tenth of the read class kept for
 * writes would be a tenth of every tenant's reads lost; writes keep their reserve in the
 * credential's window. Background and explorer still stop their 5 and 10 points before the end.
 */
export const CLASS_WRITE_RESERVE_SHARE = 0;

/**
 * The calls of a route class's `limit` (the class's, or one credential's fair share of it) that a
 * call of this priority may use: the limit less what the priorities before it keep, as in the
 * credential's window (both stores and both Redis scripts take this number as the class's limit).
 */
export const classRoomOf = (limit: number, priority: CallPriority): number =>
  limit - reservedCalls(limit, reserveShareOf(priority, CLASS_WRITE_RESERVE_SHARE));

/** Whether a call may change something upstream (anything not known to be a read is). */
function writes(policy: RoutePolicy | undefined, call: RoutedCall): boolean {
  switch (policy?.type) {
    case 'cache':
      return false;
    case 'invalidate':
      return true;
    case 'graphql':
      return operationTypeOf(call.body) !== 'query';
    default:
      return call.method !== 'GET';
  }
}

/** The priority of one call: its request's, raised to `write` when it writes for a person. */
export function priorityOf(call: RoutedCall): CallPriority {
  const requested = call.scope?.priority ?? 'user';
  if (requested !== 'background' && writes(call.declared?.cache, call)) return 'write';
  return requested === 'user' ? 'read' : requested;
}

/**
 * The priority an operation is held to as a whole before it runs (docs/budget.md): a mutation's
 * calls are writes, unless its request runs in the background (as {@link priorityOf} treats each
 * call); a query's are its request's reads.
 */
export function operationPriorityOf(
  requested: RequestPriority,
  operationType: string,
): CallPriority {
  if (operationType === 'mutation' && requested !== 'background') return 'write';
  return requested === 'user' ? 'read' : requested;
}

/**
 * The `Weft-Priority` request header: a client may ask to be served after others (`background`
 * for prefetching, `explorer`), never before; anything else is an ordinary user request.
 */
export function requestPriorityOf(header: string | string[] | undefined): RequestPriority {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  return value === 'background' || value === 'explorer' ? value : 'user';
}
