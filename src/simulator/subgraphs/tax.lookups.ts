/** The tax subgraph's tables, always within the execution's store. */
import type {
  ClassificationRecord,
  ExemptionRecord,
  JurisdictionRecord,
  RateRecord,
  RegistrationRecord,
  TaxAreaRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { settingsOf, type TaxSettingsRecord } from '../fixtures/subgraph.fixtures.ts';
import { storeOf, type SubgraphContext } from './subgraph-common.ts';
import { storeTable } from './subgraph-records.ts';

export const classifications = storeTable<ClassificationRecord>(
  'classification',
  'txc',
  (s) => s.classifications,
);
export const rates = storeTable<RateRecord>('rate', 'txr', (s) => s.rates);
export const taxAreas = storeTable<TaxAreaRecord>('tax area', 'txa', (s) => s.taxAreas);
export const jurisdictions = storeTable<JurisdictionRecord>(
  'jurisdiction',
  'txj',
  (s) => s.jurisdictions,
);
export const exemptions = storeTable<ExemptionRecord>('exemption', 'txe', (s) => s.exemptions);
export const registrations = storeTable<RegistrationRecord>(
  'registration',
  'txg',
  (s) => s.registrations,
);

/** The store's tax settings. */
export const taxSettingsOf = (ctx: SubgraphContext): TaxSettingsRecord =>
  settingsOf(ctx.state, storeOf(ctx));
