/** Catalog settings: the store-wide defaults of weights, stock thresholds and backorders. */
import type { WeightUnit } from '../fixtures/subgraph.fixtures.ts';
import { catalogSettingsOf } from './catalog.lookups.ts';
import { checkInt, rootField, type SubgraphContext } from './subgraph-common.ts';
import { touch, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "A unit of weight."
  enum WeightUnit {
    "Grams."
    G
    "Kilograms."
    KG
    "Ounces."
    OZ
    "Pounds."
    LB
  }

  "How the store's catalog behaves by default."
  type CatalogSettings {
    "Unit shown for weights entered without one."
    defaultWeightUnit: WeightUnit!
    "Available quantity at or below which a stock level counts as low, unless the level sets its own."
    defaultLowStockThreshold: Int!
    "Whether new SKUs may be sold beyond their stock."
    allowBackordersByDefault: Boolean!
    "When the settings last changed (ISO 8601)."
    updatedAt: String!
  }

  "Changes to the catalog settings; omitted fields keep their values."
  input UpdateCatalogSettingsInput {
    "New default weight unit."
    defaultWeightUnit: WeightUnit
    "New default low-stock threshold; zero or more."
    defaultLowStockThreshold: Int
    "Whether new SKUs allow backorders."
    allowBackordersByDefault: Boolean
  }

  extend type Query {
    "The store's catalog settings."
    catalogSettings: CatalogSettings!
  }

  extend type Mutation {
    "Changes the store's catalog settings; omitted fields keep their values."
    updateCatalogSettings(
      "The settings to change."
      input: UpdateCatalogSettingsInput!
    ): CatalogSettings
  }
`;

interface UpdateSettingsInput {
  defaultWeightUnit?: WeightUnit | null;
  defaultLowStockThreshold?: number | null;
  allowBackordersByDefault?: boolean | null;
}

export const settingsModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Query: {
      catalogSettings: rootField((_args: unknown, ctx: SubgraphContext) => catalogSettingsOf(ctx)),
    },
    Mutation: {
      updateCatalogSettings: rootField(
        ({ input }: { input: UpdateSettingsInput }, ctx: SubgraphContext) => {
          const settings = catalogSettingsOf(ctx);
          const threshold =
            input.defaultLowStockThreshold == null
              ? settings.defaultLowStockThreshold
              : checkInt(input.defaultLowStockThreshold, 'defaultLowStockThreshold');
          settings.defaultWeightUnit = input.defaultWeightUnit ?? settings.defaultWeightUnit;
          settings.defaultLowStockThreshold = threshold;
          settings.allowBackordersByDefault =
            input.allowBackordersByDefault ?? settings.allowBackordersByDefault;
          return touch(ctx, settings);
        },
      ),
    },
  },
};
