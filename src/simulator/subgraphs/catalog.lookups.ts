/** Catalog lookups, always within the execution's store (a record of another store is absent). */
import type {
  CatalogStatus,
  CategoryRecord,
  SkuGroupRecord,
  SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { gqlError, storeOf, type SubgraphContext } from './subgraph-common.ts';

export interface SkuFilter {
  status?: CatalogStatus | null;
  categoryId?: string | null;
  groupId?: string | null;
  search?: string | null;
  codes?: string[] | null;
}

export const inStore = <T extends { storeId: string }>(
  ctx: SubgraphContext,
  record: T | undefined,
): T | null => (record && record.storeId === storeOf(ctx) ? record : null);

export const storeSkus = (ctx: SubgraphContext): SkuRecord[] =>
  [...ctx.state.skus.values()].filter((sku) => sku.storeId === storeOf(ctx));

export const storeCategories = (ctx: SubgraphContext): CategoryRecord[] =>
  [...ctx.state.categories.values()].filter((cat) => cat.storeId === storeOf(ctx));

export const findSku = (ctx: SubgraphContext, id: string): SkuRecord | null =>
  inStore(ctx, ctx.state.skus.get(id));

export const findGroup = (ctx: SubgraphContext, id: string): SkuGroupRecord | null =>
  inStore(ctx, ctx.state.skuGroups.get(id));

export const findCategory = (ctx: SubgraphContext, id: string): CategoryRecord | null =>
  inStore(ctx, ctx.state.categories.get(id));

/** A category id and the ids of all its descendants. */
export function categoryTree(ctx: SubgraphContext, rootId: string): Set<string> {
  const ids = new Set([rootId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const cat of storeCategories(ctx)) {
      if (cat.parentId && ids.has(cat.parentId) && !ids.has(cat.id)) {
        ids.add(cat.id);
        grew = true;
      }
    }
  }
  return ids;
}

export function skuOrThrow(ctx: SubgraphContext, id: string): SkuRecord {
  const sku = findSku(ctx, id);
  if (!sku) throw gqlError('NOT_FOUND', `SKU ${id} was not found in this store`);
  return sku;
}

export function groupOrThrow(ctx: SubgraphContext, id: string): SkuGroupRecord {
  const group = findGroup(ctx, id);
  if (!group) throw gqlError('NOT_FOUND', `SKU group ${id} was not found in this store`);
  return group;
}

export function filterSkus(
  ctx: SubgraphContext,
  filter: SkuFilter | null | undefined,
): SkuRecord[] {
  let skus = storeSkus(ctx);
  if (!filter) return skus;
  if (filter.status) skus = skus.filter((sku) => sku.status === filter.status);
  if (filter.categoryId) {
    const tree = categoryTree(ctx, filter.categoryId);
    skus = skus.filter((sku) => sku.categoryIds.some((id) => tree.has(id)));
  }
  if (filter.groupId) {
    const members = new Set(findGroup(ctx, filter.groupId)?.skuIds ?? []);
    skus = skus.filter((sku) => members.has(sku.id));
  }
  if (filter.search) {
    const needle = filter.search.toLowerCase();
    skus = skus.filter(
      (sku) => sku.name.toLowerCase().includes(needle) || sku.code.toLowerCase().includes(needle),
    );
  }
  if (filter.codes) {
    const codes = new Set(filter.codes.map((code) => code.toLowerCase()));
    skus = skus.filter((sku) => codes.has(sku.code.toLowerCase()));
  }
  return skus;
}
