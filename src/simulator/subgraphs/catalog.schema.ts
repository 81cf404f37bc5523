/**
 * The catalog subgraph (`POST /v2/commerce/stores/{storeId}/catalog-subgraph`): SKUs, SKU groups and
 * categories of one store. The document names `sku(id: String!)` and `createSku(input:
 * CreateSKUInput!)` with `id name status`, `SimpleMoneyInput.value` in minor units, and a schema of
 * 27 query and 108 mutation fields; the simulator carries a representative handful.
 *
 * Deliberately like an independent service: it declares its own `Node`, `PageInfo`, `Money`,
 * `Status` and `SimpleMoneyInput`, some of which collide with the tax and order subgraphs.
 */
import type { GraphQLSchema } from 'graphql';
import type {
  CatalogStatus,
  CategoryRecord,
  PriceType,
  SkuGroupRecord,
  SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import {
  filterSkus,
  findCategory,
  findGroup,
  findSku,
  storeCategories,
  storeSkus,
  type SkuFilter,
} from './catalog.lookups.ts';
import { catalogMutations } from './catalog.mutations.ts';
import { catalogTypeDefs } from './catalog.sdl.ts';
import { paginate, storeOf, type SubgraphContext } from './subgraph-common.ts';
import { makeExecutableSchema } from '@graphql-tools/schema';

interface PageArgs {
  first?: number | null;
  after?: string | null;
}

const resolvers = {
  Node: {
    __resolveType: (record: { id: string }): string | null => {
      if (record.id.startsWith('sku_')) return 'SKU';
      if (record.id.startsWith('skg_')) return 'SKUGroup';
      if (record.id.startsWith('cat_')) return 'Category';
      return null;
    },
  },
  SKU: {
    prices: (sku: SkuRecord) =>
      sku.prices.map((price) => ({
        type: price.type,
        money: { value: price.value, currencyCode: price.currencyCode },
      })),
    price: (
      sku: SkuRecord,
      args: { type: PriceType; currencyCode?: string | null },
      ctx: SubgraphContext,
    ) => {
      const currency = args.currencyCode ?? ctx.state.storeCurrency[sku.storeId];
      const price = sku.prices.find((p) => p.type === args.type && p.currencyCode === currency);
      return price ? { value: price.value, currencyCode: price.currencyCode } : null;
    },
    categories: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) =>
      sku.categoryIds.map((id) => ctx.state.categories.get(id)).filter((cat) => cat !== undefined),
    groups: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) =>
      [...ctx.state.skuGroups.values()].filter((group) => group.skuIds.includes(sku.id)),
  },
  SKUGroup: {
    skuCount: (group: SkuGroupRecord) => group.skuIds.length,
    skus: (group: SkuGroupRecord, args: PageArgs, ctx: SubgraphContext) =>
      paginate(
        group.skuIds.map((id) => ctx.state.skus.get(id)).filter((sku) => sku !== undefined),
        args.first,
        args.after,
      ),
  },
  Category: {
    parent: (cat: CategoryRecord, _args: unknown, ctx: SubgraphContext) =>
      cat.parentId ? (ctx.state.categories.get(cat.parentId) ?? null) : null,
    children: (cat: CategoryRecord, _args: unknown, ctx: SubgraphContext) =>
      storeCategories(ctx).filter((child) => child.parentId === cat.id),
    skus: (cat: CategoryRecord, args: PageArgs, ctx: SubgraphContext) =>
      paginate(filterSkus(ctx, { categoryId: cat.id }), args.first, args.after),
  },
  Query: {
    node: (_root: unknown, args: { id: string }, ctx: SubgraphContext) =>
      findSku(ctx, args.id) ?? findGroup(ctx, args.id) ?? findCategory(ctx, args.id),
    sku: (_root: unknown, args: { id: string }, ctx: SubgraphContext) => findSku(ctx, args.id),
    skuByCode: (_root: unknown, args: { code: string }, ctx: SubgraphContext) =>
      storeSkus(ctx).find((sku) => sku.code.toLowerCase() === args.code.toLowerCase()) ?? null,
    skus: (_root: unknown, args: PageArgs & { filter?: SkuFilter | null }, ctx: SubgraphContext) =>
      paginate(filterSkus(ctx, args.filter), args.first, args.after),
    skuGroup: (_root: unknown, args: { id: string }, ctx: SubgraphContext) =>
      findGroup(ctx, args.id),
    skuGroups: (
      _root: unknown,
      args: PageArgs & { status?: CatalogStatus | null },
      ctx: SubgraphContext,
    ) =>
      paginate(
        [...ctx.state.skuGroups.values()].filter(
          (group) =>
            group.storeId === storeOf(ctx) && (!args.status || group.status === args.status),
        ),
        args.first,
        args.after,
      ),
    category: (_root: unknown, args: { id: string }, ctx: SubgraphContext) =>
      findCategory(ctx, args.id),
    categories: (_root: unknown, args: { parentId?: string | null }, ctx: SubgraphContext) =>
      storeCategories(ctx).filter((cat) =>
        args.parentId ? cat.parentId === args.parentId : cat.parentId === null,
      ),
  },
  Mutation: catalogMutations,
};

/** Builds the catalog schema; resolvers read the store and state from the execution context. */
export function createCatalogSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: catalogTypeDefs, resolvers });
}
