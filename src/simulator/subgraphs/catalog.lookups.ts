/**
 * The catalog's tables and shared lookups, always within the execution's store (a record of
 * another store is absent), and the checks several sub-domains make on SKUs.
 */
import type {
  AttributeDefinitionRecord,
  BulkOperationRecord,
  CatalogSettingsRecord,
  CatalogStatus,
  CategoryRecord,
  ChannelListingRecord,
  InventoryAdjustmentRecord,
  InventoryLevelRecord,
  InventoryLocationRecord,
  MediaRecord,
  OptionRecord,
  OptionValueRecord,
  PriceListRecord,
  SkuGroupRecord,
  SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { badInput, gqlError, isoNow, storeOf, type SubgraphContext } from './subgraph-common.ts';
import { storeTable } from './subgraph-records.ts';

export const skus = storeTable<SkuRecord>('SKU', 'sku', (s) => s.skus);
export const skuGroups = storeTable<SkuGroupRecord>('SKU group', 'skg', (s) => s.skuGroups);
export const categories = storeTable<CategoryRecord>('category', 'cat', (s) => s.categories);
export const options = storeTable<OptionRecord>('option', 'opt', (s) => s.options);
export const priceLists = storeTable<PriceListRecord>('price list', 'prl', (s) => s.priceLists);
export const locations = storeTable<InventoryLocationRecord>(
  'inventory location',
  'loc',
  (s) => s.inventoryLocations,
);
export const levels = storeTable<InventoryLevelRecord>(
  'inventory level',
  'ivl',
  (s) => s.inventoryLevels,
);
export const adjustments = storeTable<InventoryAdjustmentRecord>(
  'inventory adjustment',
  'iva',
  (s) => s.inventoryAdjustments,
);
export const media = storeTable<MediaRecord>('media asset', 'med', (s) => s.media);
export const listings = storeTable<ChannelListingRecord>(
  'channel listing',
  'chl',
  (s) => s.channelListings,
);
export const attributeDefinitions = storeTable<AttributeDefinitionRecord>(
  'attribute definition',
  'atd',
  (s) => s.attributeDefinitions,
);
export const bulkOperations = storeTable<BulkOperationRecord>(
  'bulk operation',
  'blk',
  (s) => s.bulkOperations,
);

export interface SkuFilter {
  status?: CatalogStatus | null;
  categoryId?: string | null;
  groupId?: string | null;
  search?: string | null;
  codes?: string[] | null;
  tag?: string | null;
  barcode?: string | null;
}

export const inStore = <T extends { storeId: string }>(
  ctx: SubgraphContext,
  record: T | undefined,
): T | null => (record && record.storeId === storeOf(ctx) ? record : null);

export const storeSkus = (ctx: SubgraphContext): SkuRecord[] => skus.all(ctx);
export const storeCategories = (ctx: SubgraphContext): CategoryRecord[] =>
  categories.all(ctx).sort((a, b) => a.position - b.position);

export const findSku = (ctx: SubgraphContext, id: string): SkuRecord | null => skus.find(ctx, id);
export const findGroup = (ctx: SubgraphContext, id: string): SkuGroupRecord | null =>
  skuGroups.find(ctx, id);
export const findCategory = (ctx: SubgraphContext, id: string): CategoryRecord | null =>
  categories.find(ctx, id);

export const skuOrThrow = (ctx: SubgraphContext, id: string): SkuRecord => skus.get(ctx, id);
export const groupOrThrow = (ctx: SubgraphContext, id: string): SkuGroupRecord =>
  skuGroups.get(ctx, id);

/** A SKU that may still change: CONFLICT for an archived one. */
export function changeableSku(ctx: SubgraphContext, id: string): SkuRecord {
  const sku = skus.get(ctx, id);
  if (sku.status === 'ARCHIVED') {
    throw gqlError('CONFLICT', `SKU ${sku.id} is archived and can no longer change`);
  }
  return sku;
}

/** The store's catalog settings. */
export function catalogSettingsOf(ctx: SubgraphContext): CatalogSettingsRecord {
  const storeId = storeOf(ctx);
  let settings = ctx.state.catalogSettings.get(storeId);
  if (!settings) {
    settings = {
      storeId,
      defaultWeightUnit: 'KG',
      defaultLowStockThreshold: 5,
      allowBackordersByDefault: false,
      updatedAt: isoNow(ctx),
    };
    ctx.state.catalogSettings.set(storeId, settings);
  }
  return settings;
}

/** An option value of the store by id, with its option. */
export function findOptionValue(
  ctx: SubgraphContext,
  id: string,
): { option: OptionRecord; value: OptionValueRecord } | null {
  for (const option of options.all(ctx)) {
    const value = option.values.find((v) => v.id === id);
    if (value) return { option, value };
  }
  return null;
}

/** A tax classification id of the store (a reference into the tax subgraph), or `null`. */
export function checkClassificationId(
  ctx: SubgraphContext,
  id: string | null | undefined,
  field = 'taxClassificationId',
): string | null {
  if (id === null || id === undefined) return null;
  const cls = ctx.state.classifications.get(id);
  if (!cls || cls.storeId !== storeOf(ctx)) {
    throw badInput(`unknown tax classification ${id}`, field);
  }
  return id;
}

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

export function filterSkus(
  ctx: SubgraphContext,
  filter: SkuFilter | null | undefined,
): SkuRecord[] {
  let list = storeSkus(ctx);
  if (!filter) return list;
  if (filter.status) list = list.filter((sku) => sku.status === filter.status);
  if (filter.categoryId) {
    const tree = categoryTree(ctx, filter.categoryId);
    list = list.filter((sku) => sku.categoryIds.some((id) => tree.has(id)));
  }
  if (filter.groupId) {
    const members = new Set(findGroup(ctx, filter.groupId)?.skuIds ?? []);
    list = list.filter((sku) => members.has(sku.id));
  }
  if (filter.search) {
    const needle = filter.search.toLowerCase();
    list = list.filter(
      (sku) => sku.name.toLowerCase().includes(needle) || sku.code.toLowerCase().includes(needle),
    );
  }
  if (filter.codes) {
    const codes = new Set(filter.codes.map((code) => code.toLowerCase()));
    list = list.filter((sku) => codes.has(sku.code.toLowerCase()));
  }
  if (filter.tag) {
    const tag = filter.tag.toLowerCase();
    list = list.filter((sku) => sku.tags.includes(tag));
  }
  if (filter.barcode) list = list.filter((sku) => sku.barcode === filter.barcode);
  return list;
}
