/**
 * Relay connections over the upstream's position-based paging (offset/limit and page/pageSize).
 * A cursor is an opaque token for an absolute 0-based position; `after` means "start after it".
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';

const PREFIX = 'o:';

export const encodeOffsetCursor = (position: number): string =>
  Buffer.from(`${PREFIX}${position}`).toString('base64url');

export function decodeOffsetCursor(cursor: string, argument = 'after'): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^o:(\d{1,9})$/.exec(text);
  if (!match) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      `\`${argument}\` is not a cursor from this connection`,
      {
        field: argument,
      },
    );
  }
  return Number(match[1]);
}

export interface WindowArgs {
  first?: number | null;
  after?: string | null;
  offset?: number | null;
}

export interface WindowBounds {
  defaultFirst: number;
  maxFirst: number;
}

/** The slice a connection asks for, validated before any upstream call. */
export function resolveWindow(
  args: WindowArgs,
  bounds: WindowBounds,
): { start: number; first: number } {
  const first = args.first ?? bounds.defaultFirst;
  if (!Number.isInteger(first) || first < 1 || first > bounds.maxFirst) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      `\`first\` must be between 1 and ${bounds.maxFirst}`,
      {
        field: 'first',
      },
    );
  }
  if (args.after != null && args.offset != null) {
    throw new GatewayError(ErrorCode.BAD_USER_INPUT, 'Pass either `after` or `offset`, not both', {
      field: 'offset',
    });
  }
  if (args.offset != null && (!Number.isInteger(args.offset) || args.offset < 0)) {
    throw new GatewayError(ErrorCode.BAD_USER_INPUT, '`offset` must be 0 or more', {
      field: 'offset',
    });
  }
  const start = args.after != null ? decodeOffsetCursor(args.after) + 1 : (args.offset ?? 0);
  return { start, first };
}

/**
 * The upstream `offset` for a window that starts at 0-based position `start`, or `undefined` (leave
 * the parameter out) for the first page. The certificate document's customer list takes `offset`
 * "digits only, positive": read as the number of records skipped before the page (its ordinary
 * meaning, with the list's items at 0-based positions), so a first page, which skips none, is asked
 * for without it. Positions stay 0-based end to end: page k of size n is `offset = k·n`, no page is
 * skipped or repeated.
 */
export const positiveOffset = (start: number): number | undefined =>
  start > 0 ? start : undefined;

/**
 * The upstream page/pageSize request that covers [start, start+first) in ONE call: the smallest
 * pageSize ≥ first whose page holds the whole window (a client walking with a fixed `first` always
 * gets pageSize = first).
 */
export function pageCovering(
  start: number,
  first: number,
  maxPageSize: number,
): { page: number; pageSize: number; skip: number } {
  for (let pageSize = first; pageSize <= maxPageSize; pageSize += 1) {
    const page = Math.floor(start / pageSize);
    if (Math.floor((start + first - 1) / pageSize) === page) {
      return { page: page + 1, pageSize, skip: start - page * pageSize };
    }
  }
  // No single page fits under the cap: fall back to pageSize = first from the window's own page.
  const page = Math.floor(start / first);
  return { page: page + 1, pageSize: first, skip: start - page * first };
}

export interface Connection<N> {
  edges: { cursor: string; node: N }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  totalCount: number | null;
}

/**
 * An edge whose cursor is encoded when read: most screens select the nodes alone, and a cursor
 * each (a Buffer and its base64) was garbage on every page.
 */
class OffsetEdge<N> {
  readonly node: N;
  readonly #position: number;

  constructor(node: N, position: number) {
    this.node = node;
    this.#position = position;
  }

  get cursor(): string {
    return encodeOffsetCursor(this.#position);
  }
}

/**
 * A page's info, its cursors read from its edges when asked. A class, not an object literal with
 * getters: such a literal makes a hidden class per page holding its getters, and young-generation
 * collections keep what those reach — the page's records — until the next full collection
 * (docs/performance.md "Memory and start-up").
 */
class OffsetPageInfo<N> {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
  readonly #edges: readonly OffsetEdge<N>[];

  constructor(edges: readonly OffsetEdge<N>[], hasNextPage: boolean, hasPreviousPage: boolean) {
    this.hasNextPage = hasNextPage;
    this.hasPreviousPage = hasPreviousPage;
    this.#edges = edges;
  }

  get startCursor(): string | null {
    return this.#edges[0]?.cursor ?? null;
  }

  get endCursor(): string | null {
    return this.#edges.at(-1)?.cursor ?? null;
  }
}

/** Builds a connection for items that start at absolute position `start`. */
export function offsetConnection<N>(
  nodes: readonly N[],
  start: number,
  hasNextPage: boolean,
  totalCount: number | null,
): Connection<N> {
  const edges = nodes.map((node, i) => new OffsetEdge(node, start + i));
  return { edges, pageInfo: new OffsetPageInfo(edges, hasNextPage, start > 0), totalCount };
}
