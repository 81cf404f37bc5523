/**
 * The catalog's mutations. Inputs are checked before anything changes, so a rejected mutation
 * (BAD_USER_INPUT, NOT_FOUND, CONFLICT for an archived SKU) leaves the state as it was.
 */
import {
  nextId,
  type CatalogStatus,
  type CategoryRecord,
  type PriceType,
  type SkuGroupRecord,
  type SkuPriceRecord,
  type SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import {
  findCategory,
  findSku,
  groupOrThrow,
  skuOrThrow,
  storeCategories,
  storeSkus,
} from './catalog.lookups.ts';
import {
  badInput,
  checkMoney,
  gqlError,
  isoNow,
  requireText,
  storeOf,
  unique,
  type MoneyInput,
  type SubgraphContext,
} from './subgraph-common.ts';

interface PriceInput {
  type: PriceType;
  money: MoneyInput;
}

interface AttributeInput {
  name: string;
  value: string;
}

interface CreateSkuInput {
  code: string;
  name: string;
  description?: string | null;
  status: CatalogStatus;
  prices?: PriceInput[] | null;
  categoryIds?: string[] | null;
  taxClassificationId?: string | null;
  attributes?: AttributeInput[] | null;
}

interface UpdateSkuInput {
  id: string;
  code?: string | null;
  name?: string | null;
  description?: string | null;
  status?: CatalogStatus | null;
  categoryIds?: string[] | null;
  taxClassificationId?: string | null;
  attributes?: AttributeInput[] | null;
}

const SKU_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function checkCode(ctx: SubgraphContext, code: string, exceptId?: string): string {
  if (!SKU_CODE.test(code)) {
    throw badInput('code must be 1-64 letters, digits, dots, dashes or underscores', 'code');
  }
  const taken = storeSkus(ctx).some(
    (sku) => sku.id !== exceptId && sku.code.toLowerCase() === code.toLowerCase(),
  );
  if (taken) throw badInput(`a SKU with code ${code} already exists in this store`, 'code');
  return code;
}

function checkPrices(prices: readonly PriceInput[], field: string): SkuPriceRecord[] {
  const seen = new Set<string>();
  return prices.map((price, index) => {
    const money = checkMoney(price.money, `${field}[${index}].money`);
    const key = `${price.type}/${money.currencyCode}`;
    if (seen.has(key)) {
      throw badInput(`${field} has two ${price.type} prices in ${money.currencyCode}`, field);
    }
    seen.add(key);
    return { type: price.type, value: money.value, currencyCode: money.currencyCode };
  });
}

function checkCategoryIds(ctx: SubgraphContext, ids: readonly string[]): string[] {
  for (const id of ids) {
    if (!findCategory(ctx, id)) throw badInput(`unknown category ${id}`, 'categoryIds');
  }
  return unique(ids);
}

function checkSkuIds(ctx: SubgraphContext, ids: readonly string[]): string[] {
  for (const id of ids) {
    if (!findSku(ctx, id)) throw badInput(`unknown SKU ${id}`, 'skuIds');
  }
  return unique(ids);
}

function checkClassificationId(ctx: SubgraphContext, id: string | null | undefined): string | null {
  if (id === null || id === undefined) return null;
  const cls = ctx.state.classifications.get(id);
  if (!cls || cls.storeId !== storeOf(ctx)) {
    throw badInput(`unknown tax classification ${id}`, 'taxClassificationId');
  }
  return id;
}

const checkAttributes = (attributes: readonly AttributeInput[]): AttributeInput[] =>
  attributes.map((attr) => ({
    name: requireText(attr.name, 'attributes.name'),
    value: attr.value,
  }));

const touch = (ctx: SubgraphContext, record: { updatedAt: string }): void => {
  record.updatedAt = isoNow(ctx);
};

/** Resolvers of the catalog's `Mutation` type. */
export const catalogMutations = {
  createSku: (_root: unknown, { input }: { input: CreateSkuInput }, ctx: SubgraphContext) => {
    if (input.status === 'ARCHIVED') throw badInput('a new SKU cannot be ARCHIVED', 'status');
    const sku: SkuRecord = {
      id: '',
      storeId: storeOf(ctx),
      code: checkCode(ctx, input.code),
      name: requireText(input.name, 'name'),
      description: input.description ?? null,
      status: input.status,
      prices: checkPrices(input.prices ?? [], 'prices'),
      categoryIds: checkCategoryIds(ctx, input.categoryIds ?? []),
      taxClassificationId: checkClassificationId(ctx, input.taxClassificationId),
      attributes: checkAttributes(input.attributes ?? []),
      createdAt: isoNow(ctx),
      updatedAt: isoNow(ctx),
    };
    sku.id = nextId(ctx.state, 'sku');
    ctx.state.skus.set(sku.id, sku);
    return sku;
  },
  updateSku: (_root: unknown, { input }: { input: UpdateSkuInput }, ctx: SubgraphContext) => {
    const sku = skuOrThrow(ctx, input.id);
    if (sku.status === 'ARCHIVED') {
      throw gqlError('CONFLICT', `SKU ${sku.id} is archived and can no longer change`);
    }
    if (input.status === 'ARCHIVED') throw badInput('use archiveSku to archive', 'status');
    // Check everything before changing anything: a failed update leaves the SKU as it was.
    const next: Partial<SkuRecord> = {};
    if (input.code != null) next.code = checkCode(ctx, input.code, sku.id);
    if (input.name != null) next.name = requireText(input.name, 'name');
    if (input.description !== undefined) next.description = input.description;
    if (input.status != null) next.status = input.status;
    if (input.categoryIds != null) next.categoryIds = checkCategoryIds(ctx, input.categoryIds);
    if (input.taxClassificationId !== undefined) {
      next.taxClassificationId = checkClassificationId(ctx, input.taxClassificationId);
    }
    if (input.attributes != null) next.attributes = checkAttributes(input.attributes);
    Object.assign(sku, next);
    touch(ctx, sku);
    return sku;
  },
  archiveSku: (_root: unknown, args: { id: string }, ctx: SubgraphContext) => {
    const sku = skuOrThrow(ctx, args.id);
    if (sku.status !== 'ARCHIVED') {
      sku.status = 'ARCHIVED';
      touch(ctx, sku);
    }
    return sku;
  },
  updateSkuPrices: (
    _root: unknown,
    { input }: { input: { skuId: string; prices: PriceInput[] } },
    ctx: SubgraphContext,
  ) => {
    const sku = skuOrThrow(ctx, input.skuId);
    if (sku.status === 'ARCHIVED') {
      throw gqlError('CONFLICT', `SKU ${sku.id} is archived and can no longer change`);
    }
    if (input.prices.length === 0) throw badInput('prices must not be empty', 'prices');
    const prices = checkPrices(input.prices, 'prices');
    const key = (p: SkuPriceRecord): string => `${p.type}/${p.currencyCode}`;
    const replaced = new Set(prices.map(key));
    sku.prices = [...sku.prices.filter((p) => !replaced.has(key(p))), ...prices];
    touch(ctx, sku);
    return sku;
  },
  createSkuGroup: (
    _root: unknown,
    { input }: { input: { name: string; description?: string | null; skuIds?: string[] | null } },
    ctx: SubgraphContext,
  ) => {
    const name = requireText(input.name, 'name');
    const skuIds = checkSkuIds(ctx, input.skuIds ?? []);
    const group: SkuGroupRecord = {
      id: nextId(ctx.state, 'skg'),
      storeId: storeOf(ctx),
      name,
      description: input.description ?? null,
      status: 'ACTIVE',
      skuIds,
      createdAt: isoNow(ctx),
      updatedAt: isoNow(ctx),
    };
    ctx.state.skuGroups.set(group.id, group);
    return group;
  },
  addSkusToGroup: (
    _root: unknown,
    { input }: { input: { groupId: string; skuIds: string[] } },
    ctx: SubgraphContext,
  ) => {
    const group = groupOrThrow(ctx, input.groupId);
    group.skuIds = unique([...group.skuIds, ...checkSkuIds(ctx, input.skuIds)]);
    touch(ctx, group);
    return group;
  },
  removeSkusFromGroup: (
    _root: unknown,
    { input }: { input: { groupId: string; skuIds: string[] } },
    ctx: SubgraphContext,
  ) => {
    const group = groupOrThrow(ctx, input.groupId);
    const removed = new Set(input.skuIds);
    group.skuIds = group.skuIds.filter((id) => !removed.has(id));
    touch(ctx, group);
    return group;
  },
  archiveSkuGroup: (_root: unknown, args: { id: string }, ctx: SubgraphContext) => {
    const group = groupOrThrow(ctx, args.id);
    if (group.status !== 'ARCHIVED') {
      group.status = 'ARCHIVED';
      touch(ctx, group);
    }
    return group;
  },
  createCategory: (
    _root: unknown,
    { input }: { input: { name: string; slug?: string | null; parentId?: string | null } },
    ctx: SubgraphContext,
  ) => {
    const name = requireText(input.name, 'name');
    const slug = (input.slug ?? name)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    if (slug === '') throw badInput('slug must contain a letter or digit', 'slug');
    if (storeCategories(ctx).some((cat) => cat.slug === slug)) {
      throw badInput(`a category with slug ${slug} already exists in this store`, 'slug');
    }
    if (input.parentId && !findCategory(ctx, input.parentId)) {
      throw badInput(`unknown category ${input.parentId}`, 'parentId');
    }
    const category: CategoryRecord = {
      id: nextId(ctx.state, 'cat'),
      storeId: storeOf(ctx),
      name,
      slug,
      parentId: input.parentId ?? null,
      createdAt: isoNow(ctx),
    };
    ctx.state.categories.set(category.id, category);
    return category;
  },
};
