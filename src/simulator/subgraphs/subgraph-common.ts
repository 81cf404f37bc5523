/**
 * What the three subgraph schemas share: the resolver context, GraphQL errors with an
 * `extensions.code`, cursor pagination and money checks. Each subgraph still declares its own SDL
 * types (`PageInfo`, `Money`, …) as independent services would.
 */
import { GraphQLError } from 'graphql';
import type { AccountId } from '../accounts.ts';
import type { SubgraphState } from '../fixtures/subgraph.fixtures.ts';

/** The `contextValue` of every subgraph execution. */
export interface SubgraphContext {
  readonly state: SubgraphState;
  readonly accountId: AccountId;
  /** The resolved store (catalog, tax); `null` for the global order subgraph. */
  readonly storeId: string | null;
  readonly now: () => number;
}

export type SubgraphErrorCode = 'BAD_USER_INPUT' | 'NOT_FOUND' | 'CONFLICT';

/** A GraphQL error carrying `extensions.code` (and optional extra extensions). */
export const gqlError = (
  code: SubgraphErrorCode,
  message: string,
  extensions: Record<string, unknown> = {},
): GraphQLError => new GraphQLError(message, { extensions: { code, ...extensions } });

export const badInput = (message: string, field?: string): GraphQLError =>
  gqlError('BAD_USER_INPUT', message, field ? { field } : {});

/** The store of a store-scoped execution; the routes always set it for catalog and tax. */
export function storeOf(ctx: SubgraphContext): string {
  if (ctx.storeId === null) throw new Error('store-scoped resolver without a store');
  return ctx.storeId;
}

export const isoNow = (ctx: SubgraphContext): string => new Date(ctx.now()).toISOString();

/** A non-empty, trimmed string, or a BAD_USER_INPUT error naming `field`. */
export function requireText(value: string | null | undefined, field: string): string {
  const text = value?.trim() ?? '';
  if (text === '') throw badInput(`${field} must not be empty`, field);
  return text;
}

export interface MoneyInput {
  value: number;
  currencyCode: string;
}

const CURRENCY = /^[A-Z]{3}$/;

/** Checks a `SimpleMoneyInput`: a non-negative amount in minor units and an ISO 4217 code. */
export function checkMoney(input: MoneyInput, field: string): MoneyInput {
  if (input.value < 0) throw badInput(`${field}.value must not be negative`, `${field}.value`);
  return {
    value: input.value,
    currencyCode: checkCurrency(input.currencyCode, `${field}.currencyCode`),
  };
}

export function checkCurrency(code: string, field: string): string {
  if (!CURRENCY.test(code)) {
    throw badInput(`${field} must be a three-letter ISO 4217 code`, field);
  }
  return code;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

/** A connection page; every subgraph's `PageInfo` selects the fields it declares. */
export interface Page<T> {
  edges: Edge<T>[];
  nodes: T[];
  totalCount: number;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

const CURSOR_PREFIX = 'cursor:';
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export const encodeCursor = (id: string): string =>
  Buffer.from(`${CURSOR_PREFIX}${id}`).toString('base64url');

/**
 * Forward cursor pagination over an ordered list. A cursor names the last item of the previous
 * page, so pages stay stable while records are added; a malformed cursor, or one naming an item
 * that is no longer in the list, is a BAD_USER_INPUT error.
 */
export function paginate<T extends { id: string }>(
  items: readonly T[],
  first: number | null | undefined,
  after: string | null | undefined,
): Page<T> {
  const size = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE_SIZE) {
    throw badInput(`first must be between 0 and ${MAX_PAGE_SIZE}`, 'first');
  }
  let start = 0;
  if (after !== null && after !== undefined) {
    const decoded = Buffer.from(after, 'base64url').toString();
    const index = decoded.startsWith(CURSOR_PREFIX)
      ? items.findIndex((item) => item.id === decoded.slice(CURSOR_PREFIX.length))
      : -1;
    if (index < 0) throw badInput('after is not a valid cursor for this list', 'after');
    start = index + 1;
  }
  const slice = items.slice(start, start + size);
  const edges = slice.map((node) => ({ cursor: encodeCursor(node.id), node }));
  return {
    edges,
    nodes: slice,
    totalCount: items.length,
    pageInfo: {
      hasNextPage: start + slice.length < items.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

/** Keeps the first occurrence of each value, in order. */
export const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** A resolver of a root field: the arguments and the context, without the (unused) root. */
export const rootField =
  <A, R>(fn: (args: A, ctx: SubgraphContext) => R) =>
  (_root: unknown, args: A, ctx: SubgraphContext): R =>
    fn(args, ctx);

/** An ISO 8601 instant (`2025-01-31T12:00:00Z`), normalised; BAD_USER_INPUT otherwise. */
export function checkInstant(value: string, field: string): string {
  const time = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw badInput(`${field} must be an ISO 8601 date-time`, field);
  return new Date(time).toISOString();
}

/** An optional instant: `null`/absent stays `null`. */
export const optionalInstant = (value: string | null | undefined, field: string): string | null =>
  value === null || value === undefined ? null : checkInstant(value, field);

/** An https URL; BAD_USER_INPUT otherwise. */
export function checkHttpsUrl(value: string, field: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (url?.protocol !== 'https:') throw badInput(`${field} must be an https URL`, field);
  return url.toString();
}

/** An integer ≥ `min` (0 unless told); BAD_USER_INPUT naming `field` otherwise. */
export function checkInt(value: number, field: string, min = 0): number {
  if (!Number.isInteger(value) || value < min) {
    throw badInput(`${field} must be an integer of at least ${min}`, field);
  }
  return value;
}

/** A two-letter ISO 3166-1 country code. */
export function checkCountry(code: string, field: string): string {
  if (!/^[A-Z]{2}$/.test(code)) {
    throw badInput(`${field} must be a two-letter ISO 3166-1 code`, field);
  }
  return code;
}

/**
 * A new order for a list: `given` must hold exactly the ids of `current`, each once; BAD_USER_INPUT
 * naming `field` otherwise.
 */
export function checkReorder(current: readonly string[], given: readonly string[], field: string) {
  const same =
    given.length === current.length &&
    new Set(given).size === given.length &&
    given.every((id) => current.includes(id));
  if (!same) throw badInput(`${field} must list each current id exactly once`, field);
  return [...given];
}
