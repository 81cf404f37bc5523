/**
 * The tax subgraph (`POST /v2/commerce/stores/{storeId}/tax-subgraph`): the tax setup of one store
 * and a tax calculation. The document names `classification(id: ID!)` with `id name label` and
 * `createRate(input: MutationCreateRateInput!)` with `label` and `value { percentage }`, in a
 * schema of 8 query and 38 mutation fields; the simulator has exactly that many, by sub-domain:
 *
 * | module | what |
 * |---|---|
 * | tax-classifications.ts | classifications |
 * | tax-rates.ts | rates (with windows and jurisdictions) |
 * | tax-areas.ts | tax areas (zones, postal codes) and jurisdictions |
 * | tax-exemptions.ts | customer exemption certificates |
 * | tax-settings.ts | settings (prices, rounding, defaults) and registrations |
 * | tax-calculation.ts | `calculateTax` |
 *
 * With 8 query fields, exemptions and registrations are read through `taxSettings` (the store's
 * tax setup) rather than root fields of their own.
 *
 * Its own `Status` (ACTIVE, INACTIVE) and `PageInfo` (forward only) collide by name, not by shape,
 * with the catalog's.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { areaModule } from './tax-areas.ts';
import { calculationModule } from './tax-calculation.ts';
import { classificationModule } from './tax-classifications.ts';
import { exemptionModule } from './tax-exemptions.ts';
import { rateModule } from './tax-rates.ts';
import { settingsModule } from './tax-settings.ts';
import { taxTypeDefs } from './tax.sdl.ts';

export const TAX_MODULES = [
  classificationModule,
  rateModule,
  areaModule,
  exemptionModule,
  settingsModule,
  calculationModule,
];

/** Builds the tax schema; resolvers read the store and state from the execution context. */
export function createTaxSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: [taxTypeDefs, ...TAX_MODULES.map((module) => module.typeDefs)],
    resolvers: TAX_MODULES.map((module) => module.resolvers),
  });
}
