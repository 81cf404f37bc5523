/**
 * Store customers as a Relay connection over the v1 cursor (`limit`, `marker`). A cursor is the
 * customer id it stands for, which is exactly the upstream marker, so every page is one call and a
 * client walks the pages sequentially, as the document asks.
 *
 * An invalid marker (its customer was deleted, or a crafted cursor) makes the upstream restart from
 * its first page without an error. Items come ordered by id, so a page whose first id is at or
 * before the marker is such a restart: the connection then says `restarted: true` and drops the
 * customers at or before the marker instead of repeating them.
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import type { CommerceApi } from './commerce.api.ts';
import { toStoreCustomer, type StoreCustomerParent } from './commerce.mappers.ts';

const PREFIX = 'm:';
const MARKER = /^[A-Za-z0-9._:-]{1,128}$/;
/** `first` of the customer connection: the document's v1 `limit` bounds (1–100, default 20). */
export const CUSTOMER_PAGE = { defaultFirst: 20, maxFirst: 100 } as const;
/** The upstream's largest `limit`. */
const MAX_LIMIT = 100;

/** The cursor of a customer: its id, which is the upstream marker. */
export const encodeMarkerCursor = (id: string): string =>
  Buffer.from(`${PREFIX}${id}`).toString('base64url');

/** The marker inside an `after` cursor; BAD_USER_INPUT when it is not one of ours. */
export function decodeMarkerCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const marker = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : '';
  if (!MARKER.test(marker)) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      '`after` is not a cursor from this connection',
      {
        field: 'after',
      },
    );
  }
  return marker;
}

/** `StoreCustomerConnection` as the resolvers return it. */
export interface StoreCustomerConnection {
  edges: { cursor: string; node: StoreCustomerParent }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  restarted: boolean;
}

/** One page of a store's customers: one upstream call. */
export async function storeCustomerConnection(
  api: CommerceApi,
  storeId: string,
  args: { first?: number | null; after?: string | null },
): Promise<StoreCustomerConnection> {
  const first = args.first ?? CUSTOMER_PAGE.defaultFirst;
  if (!Number.isInteger(first) || first < 1 || first > CUSTOMER_PAGE.maxFirst) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      `\`first\` must be between 1 and ${CUSTOMER_PAGE.maxFirst}`,
      { field: 'first' },
    );
  }
  const marker = args.after == null ? undefined : decodeMarkerCursor(args.after).toLowerCase();
  // One item more than asked tells whether a next page exists, in the same call.
  const limit = Math.min(first + 1, MAX_LIMIT);
  const items = (await api.customers(storeId, limit, marker))
    .map((raw) => toStoreCustomer(raw, storeId))
    .filter((customer): customer is StoreCustomerParent => customer !== null);

  const firstId = items[0]?.customerId.toLowerCase();
  const restarted = marker !== undefined && firstId !== undefined && firstId <= marker;
  const fresh = restarted
    ? items.filter((customer) => customer.customerId.toLowerCase() > marker)
    : items;
  const nodes = fresh.slice(0, first);
  const fullPage = items.length === limit;
  const hasNextPage = fresh.length > first || (fullPage && (limit === first || restarted));
  const edges = nodes.map((node) => ({ cursor: encodeMarkerCursor(node.customerId), node }));
  // After a restart whose page held only customers already seen, the cursor to continue from is the
  // page's last customer (the next marker), although it is not an edge of this page.
  const lastSeen = items.at(-1);
  const endCursor =
    edges.at(-1)?.cursor ??
    (restarted && hasNextPage && lastSeen ? encodeMarkerCursor(lastSeen.customerId) : null);
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: marker !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor,
    },
    restarted,
  };
}
