/**
 * The catalog subgraph (`POST /v2/commerce/stores/{storeId}/catalog-subgraph`): the catalog of one
 * store. The document names `sku(id: String!)` and `createSku(input: CreateSKUInput!)` with
 * `id name status`, `SimpleMoneyInput.value` in minor units, and a schema of 27 query and 108
 * mutation fields; the simulator has exactly that many, by sub-domain:
 *
 * | module | what |
 * |---|---|
 * | catalog-skus.ts | SKUs: lifecycle, base prices, attributes, tags, barcode, weight, relations |
 * | catalog-groups.ts | SKU groups |
 * | catalog-categories.ts | the category tree |
 * | catalog-options.ts | options and option values (variants) |
 * | catalog-prices.ts | price lists and the effective price |
 * | catalog-inventory.ts | locations, stock levels, adjustments |
 * | catalog-media.ts | media assets |
 * | catalog-channels.ts | channel listings |
 * | catalog-attributes.ts | attribute definitions |
 * | catalog-bulk.ts | bulk operations |
 * | catalog-settings.ts | catalog settings |
 *
 * Deliberately like an independent service: it declares its own `Node`, `PageInfo`, `Money`,
 * `Status` and `SimpleMoneyInput`, some of which collide with the tax and order subgraphs.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { kindOf, type IdKind } from '../fixtures/subgraph.fixtures.ts';
import { attributeModule } from './catalog-attributes.ts';
import { bulkModule } from './catalog-bulk.ts';
import { categoryModule } from './catalog-categories.ts';
import { channelModule } from './catalog-channels.ts';
import { groupModule } from './catalog-groups.ts';
import { inventoryModule } from './catalog-inventory.ts';
import { mediaModule } from './catalog-media.ts';
import { optionModule } from './catalog-options.ts';
import { priceModule } from './catalog-prices.ts';
import { settingsModule } from './catalog-settings.ts';
import { skuModule } from './catalog-skus.ts';
import {
  attributeDefinitions,
  bulkOperations,
  categories,
  listings,
  locations,
  media,
  options,
  priceLists,
  skuGroups,
  skus,
} from './catalog.lookups.ts';
import { catalogTypeDefs } from './catalog.sdl.ts';
import { rootField, type SubgraphContext } from './subgraph-common.ts';
import type { StoreRecord, StoreTable } from './subgraph-records.ts';

export const CATALOG_MODULES = [
  skuModule,
  groupModule,
  categoryModule,
  optionModule,
  priceModule,
  inventoryModule,
  mediaModule,
  channelModule,
  attributeModule,
  bulkModule,
  settingsModule,
];

/** The tables `node(id)` reads, by id prefix, with the GraphQL type of their records. */
const NODES: Partial<Record<IdKind, [StoreTable<StoreRecord>, string]>> = {
  sku: [skus, 'SKU'],
  skg: [skuGroups, 'SKUGroup'],
  cat: [categories, 'Category'],
  opt: [options, 'Option'],
  prl: [priceLists, 'PriceList'],
  loc: [locations, 'InventoryLocation'],
  med: [media, 'MediaAsset'],
  chl: [listings, 'ChannelListing'],
  atd: [attributeDefinitions, 'AttributeDefinition'],
  blk: [bulkOperations, 'BulkOperation'],
};

const nodeEntry = (id: string) => {
  const kind = kindOf(id);
  return kind === null ? undefined : NODES[kind];
};

const baseResolvers = {
  Node: {
    __resolveType: (record: { id: string }): string | null => nodeEntry(record.id)?.[1] ?? null,
  },
  Query: {
    node: rootField((args: { id: string }, ctx: SubgraphContext) => {
      const entry = nodeEntry(args.id);
      return entry ? entry[0].find(ctx, args.id) : null;
    }),
  },
};

/** Builds the catalog schema; resolvers read the store and state from the execution context. */
export function createCatalogSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: [catalogTypeDefs, ...CATALOG_MODULES.map((module) => module.typeDefs)],
    resolvers: [baseResolvers, ...CATALOG_MODULES.map((module) => module.resolvers)],
  });
}
