/**
 * Store transactions as a Relay connection over the v2 list (page/pageSize): the window a client
 * asks for is served by the one upstream page that covers it (`pageCovering`). Filters are checked
 * before any call; `totalRequired` is sent only when the query selects `totalCount`.
 */
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { badInput } from '../kit/bad-input.ts';
import type { TransactionFilter } from '../generated/resolvers.ts';
import { isCalendarDateTime } from '../kit/date-time.ts';
import {
  offsetConnection,
  pageCovering,
  resolveWindow,
  type Connection,
} from '../kit/offset-cursor.ts';
import type { CommerceApi, TransactionQuery } from './commerce.api.ts';
import { toTransaction, type TransactionParent } from './commerce.mappers.ts';
import { checkTransactionId } from './commerce-ids.ts';

/** The document's defaults and bounds: pageSize default 10; at most 100 per page and ids. */
export const TRANSACTION_PAGE = { defaultFirst: 10, maxFirst: 100 } as const;
const MAX_IDS = 100;

/**
 * `updatedAtAfter`/`updatedAtBefore`: RFC 3339 date-time, 20 to 64 characters (document), and a day
 * the calendar has.
 */
function checkDateTime(value: string | null | undefined, field: string): string | undefined {
  if (value == null) return undefined;
  if (value.length < 20 || value.length > 64) {
    throw badInput(field, `\`${field}\` must have 20 to 64 characters`);
  }
  if (!isCalendarDateTime(value)) {
    throw badInput(field, `\`${field}\` must be an RFC 3339 date-time, e.g. 2026-01-31T00:00:00Z`);
  }
  return value;
}

/** The upstream filters of a `TransactionFilter`, validated. */
export function transactionFilterQuery(
  filter: TransactionFilter | null | undefined,
): Omit<TransactionQuery, 'page' | 'pageSize'> {
  const ids = filter?.transactionIds ?? undefined;
  if (ids && ids.length > MAX_IDS) {
    throw badInput('filter.transactionIds', `at most ${MAX_IDS} \`transactionIds\``);
  }
  const after = checkDateTime(filter?.updatedAtAfter, 'filter.updatedAtAfter');
  const before = checkDateTime(filter?.updatedAtBefore, 'filter.updatedAtBefore');
  return {
    ...(ids && ids.length > 0
      ? {
          transactionIds: ids.map((id, i) => checkTransactionId(id, `filter.transactionIds.${i}`)),
        }
      : {}),
    ...(after === undefined ? {} : { updatedAtAfter: after }),
    ...(before === undefined ? {} : { updatedAtBefore: before }),
    ...(filter?.sortOrder ? { sortOrder: filter.sortOrder } : {}),
  };
}

/** Whether the field being resolved selects `name` directly (through fragments too). */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined): boolean =>
    (selectionSet?.selections ?? []).some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === name;
      if (selection.kind === Kind.INLINE_FRAGMENT) return visit(selection.selectionSet);
      if (seen.has(selection.name.value)) return false;
      seen.add(selection.name.value);
      return visit(info.fragments[selection.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}

/** One window of a store's transactions: one upstream call. */
export async function transactionConnection(
  api: CommerceApi,
  storeId: string,
  args: { first?: number | null; after?: string | null; filter?: TransactionFilter | null },
  info: GraphQLResolveInfo,
): Promise<Connection<TransactionParent>> {
  const { start, first } = resolveWindow(args, TRANSACTION_PAGE);
  const filters = transactionFilterQuery(args.filter);
  const totalRequired = selectsField(info, 'totalCount');
  const { page, pageSize, skip } = pageCovering(start, first, TRANSACTION_PAGE.maxFirst);
  const result = await api.transactions(storeId, {
    page,
    pageSize,
    ...filters,
    ...(totalRequired ? { totalRequired: true } : {}),
  });
  const nodes = result.items
    .slice(skip, skip + first)
    .map((item) => toTransaction(item, storeId))
    .filter((node): node is TransactionParent => node !== null);
  const hasNextPage =
    result.totalItems !== null
      ? start + nodes.length < result.totalItems
      : result.items.length > skip + first || result.hasNextLink;
  return offsetConnection(nodes, start, hasNextPage, result.totalItems);
}
