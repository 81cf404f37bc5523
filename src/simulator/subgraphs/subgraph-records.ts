/**
 * CRUD over the state's maps for records of one store: the lookups every sub-domain repeats
 * (within the execution's store, a record of another store is absent), the two errors a missing
 * record gives (NOT_FOUND for the record a mutation acts on, BAD_USER_INPUT for one an input names)
 * and id hand-out on insert.
 */
import { nextId, type IdKind, type SubgraphState } from '../fixtures/subgraph-state.ts';
import {
  badInput,
  gqlError,
  isoNow,
  storeOf,
  unique,
  type SubgraphContext,
} from './subgraph-common.ts';

/** A record that belongs to one store. */
export interface StoreRecord {
  id: string;
  storeId: string;
}

/** What a delete answers (the subgraphs' `DeletePayload` / `DeleteResult`). */
export interface DeletePayload {
  id: string;
  deleted: true;
}

export interface StoreTable<T extends StoreRecord> {
  /** Names the record in messages: "SKU", "price list". */
  readonly label: string;
  /** The store's records, in creation order. */
  all(ctx: SubgraphContext): T[];
  find(ctx: SubgraphContext, id: string | null | undefined): T | null;
  /** The record a mutation acts on: NOT_FOUND when absent. */
  get(ctx: SubgraphContext, id: string): T;
  /** A record an input names: BAD_USER_INPUT naming `field` when absent. */
  ref(ctx: SubgraphContext, id: string, field: string): T;
  /** Several records an input names, each once, in the given order. */
  refs(ctx: SubgraphContext, ids: readonly string[], field: string): T[];
  /** Stores a new record of the execution's store with the next id of the table's kind. */
  insert(ctx: SubgraphContext, fields: Omit<T, 'id' | 'storeId'>): T;
  /** Deletes a record of the store (NOT_FOUND when absent). */
  remove(ctx: SubgraphContext, id: string): DeletePayload;
}

export function storeTable<T extends StoreRecord>(
  label: string,
  kind: IdKind,
  select: (state: SubgraphState) => Map<string, T>,
): StoreTable<T> {
  const find = (ctx: SubgraphContext, id: string | null | undefined): T | null => {
    if (id === null || id === undefined) return null;
    const record = select(ctx.state).get(id);
    return record && record.storeId === storeOf(ctx) ? record : null;
  };
  const get = (ctx: SubgraphContext, id: string): T => {
    const record = find(ctx, id);
    if (!record) throw gqlError('NOT_FOUND', `${label} ${id} was not found in this store`);
    return record;
  };
  const ref = (ctx: SubgraphContext, id: string, field: string): T => {
    const record = find(ctx, id);
    if (!record) throw badInput(`unknown ${label} ${id}`, field);
    return record;
  };
  return {
    label,
    all: (ctx) => [...select(ctx.state).values()].filter((r) => r.storeId === storeOf(ctx)),
    find,
    get,
    ref,
    refs: (ctx, ids, field) => unique(ids).map((id) => ref(ctx, id, field)),
    insert: (ctx, fields) => {
      const record = { ...fields, id: nextId(ctx.state, kind), storeId: storeOf(ctx) } as T;
      select(ctx.state).set(record.id, record);
      return record;
    },
    remove: (ctx, id) => {
      const record = get(ctx, id);
      select(ctx.state).delete(record.id);
      return { id: record.id, deleted: true };
    },
  };
}

/** Sets `updatedAt` to now. */
export const touch = <T extends { updatedAt: string }>(ctx: SubgraphContext, record: T): T => {
  record.updatedAt = isoNow(ctx);
  return record;
};

/** `createdAt` and `updatedAt` of a new record, both now. */
export const stamps = (ctx: SubgraphContext): { createdAt: string; updatedAt: string } => {
  const now = isoNow(ctx);
  return { createdAt: now, updatedAt: now };
};

/** One sub-domain of a subgraph: its SDL (types and `extend type` of the roots) and resolvers. */
export interface SubgraphModule {
  readonly typeDefs: string;
  readonly resolvers: Record<string, Record<string, unknown>>;
}
