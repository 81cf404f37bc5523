/**
 * Tax settings and registrations: how the store's prices and rounding work, which area and
 * classifications apply by default, and where the store is registered to collect tax (at most one
 * registration per area). `resetTaxSettings` goes back to tax-exclusive prices, half-up rounding
 * and no defaults.
 */
import {
  defaultTaxArea,
  defaultTaxSettings,
  type RegistrationRecord,
  type RoundingMode,
  type TaxAreaRecord,
  type TaxSettingsRecord,
} from '../fixtures/subgraph.fixtures.ts';
import {
  badInput,
  checkInstant,
  isoNow,
  requireText,
  rootField,
  storeOf,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';
import { classifications, registrations, taxAreas, taxSettingsOf } from './tax.lookups.ts';

const typeDefs = /* GraphQL */ `
  "How a tax amount is rounded to a whole minor unit."
  enum RoundingMode {
    "Halves go up (0.5 → 1)."
    HALF_UP
    "Halves go to the even neighbour (0.5 → 0, 1.5 → 2)."
    HALF_EVEN
    "Any fraction goes up."
    UP
    "Any fraction goes."
    DOWN
  }

  "The store's tax setup."
  type TaxSettings {
    "Whether the store's prices include tax (the tax is taken out of them) or have it added."
    pricesIncludeTax: Boolean!
    "How each line's tax is rounded."
    roundingMode: RoundingMode!
    "The area used when none is named: the chosen one, else the store's first."
    defaultTaxArea: TaxArea
    "The classification of lines that name none; null: the general rates."
    defaultClassification: Classification
    "The classification of shipping amounts; null: the general rates."
    shippingClassification: Classification
    "Where the store is registered to collect tax."
    registrations: [TaxRegistration!]!
    "When the settings last changed (ISO 8601)."
    updatedAt: String!
  }

  "The store's registration to collect tax in an area."
  type TaxRegistration {
    "The registration's id (txg_…)."
    id: ID!
    "The area."
    taxArea: TaxArea!
    "The number the tax authority issued."
    registrationNumber: String!
    "Since when the registration holds (ISO 8601)."
    effectiveFrom: String!
    "When the registration was created (ISO 8601)."
    createdAt: String!
    "When the registration last changed (ISO 8601)."
    updatedAt: String!
  }

  "Changes to the tax settings; omitted fields keep their values."
  input MutationUpdateTaxSettingsInput {
    "Whether prices include tax."
    pricesIncludeTax: Boolean
    "How each line's tax is rounded."
    roundingMode: RoundingMode
  }

  "A new registration."
  input MutationCreateTaxRegistrationInput {
    "The area; it must not have a registration yet."
    taxAreaId: ID!
    "The number the tax authority issued, not empty."
    registrationNumber: String!
    "Since when it holds (ISO 8601); now unless given."
    effectiveFrom: String
  }

  "Changes to a registration; omitted fields keep their values."
  input MutationUpdateTaxRegistrationInput {
    "The registration."
    id: ID!
    "New number."
    registrationNumber: String
    "New start (ISO 8601)."
    effectiveFrom: String
  }

  extend type TaxArea {
    "The store's registration in this area; null when it has none."
    registration: TaxRegistration
  }

  extend type Query {
    "The store's tax setup: prices, rounding, defaults, registrations and customer exemptions."
    taxSettings: TaxSettings!
  }

  extend type Mutation {
    "Changes how prices and rounding work."
    updateTaxSettings("The changes." input: MutationUpdateTaxSettingsInput!): TaxSettings
    "Sets or clears the classification of shipping amounts."
    setShippingTaxClassification(
      "A classification of the store; null: the general rates."
      classificationId: ID
    ): TaxSettings
    "Sets or clears the classification of lines that name none."
    setDefaultClassification(
      "A classification of the store; null: the general rates."
      classificationId: ID
    ): TaxSettings
    "Goes back to the initial settings: tax-exclusive prices, half-up rounding, no defaults."
    resetTaxSettings: TaxSettings
    "Registers the store to collect tax in an area."
    createTaxRegistration(
      "The new registration."
      input: MutationCreateTaxRegistrationInput!
    ): TaxRegistration
    "Changes a registration."
    updateTaxRegistration(
      "The changes."
      input: MutationUpdateTaxRegistrationInput!
    ): TaxRegistration
    "Deletes a registration."
    deleteTaxRegistration("The registration." id: ID!): DeleteResult
  }
`;

function classificationOrNull(ctx: SubgraphContext, id: string | null | undefined): string | null {
  if (id === null || id === undefined) return null;
  return classifications.ref(ctx, id, 'classificationId').id;
}

const settingsAt = (ctx: SubgraphContext) => taxSettingsOf(ctx);

export const settingsModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    TaxSettings: {
      defaultTaxArea: (_settings: TaxSettingsRecord, _args: unknown, ctx: SubgraphContext) =>
        defaultTaxArea(ctx.state, storeOf(ctx)) ?? null,
      defaultClassification: (settings: TaxSettingsRecord, _args: unknown, ctx: SubgraphContext) =>
        classifications.find(ctx, settings.defaultClassificationId),
      shippingClassification: (settings: TaxSettingsRecord, _args: unknown, ctx: SubgraphContext) =>
        classifications.find(ctx, settings.shippingClassificationId),
      registrations: (_settings: TaxSettingsRecord, _args: unknown, ctx: SubgraphContext) =>
        registrations.all(ctx),
    },
    TaxRegistration: {
      taxArea: (registration: RegistrationRecord, _args: unknown, ctx: SubgraphContext) =>
        taxAreas.find(ctx, registration.taxAreaId),
    },
    TaxArea: {
      registration: (area: TaxAreaRecord, _args: unknown, ctx: SubgraphContext) =>
        registrations.all(ctx).find((r) => r.taxAreaId === area.id) ?? null,
    },
    Query: {
      taxSettings: rootField((_args: unknown, ctx: SubgraphContext) => settingsAt(ctx)),
    },
    Mutation: {
      updateTaxSettings: rootField(
        (
          {
            input,
          }: { input: { pricesIncludeTax?: boolean | null; roundingMode?: RoundingMode | null } },
          ctx: SubgraphContext,
        ) => {
          const settings = settingsAt(ctx);
          settings.pricesIncludeTax = input.pricesIncludeTax ?? settings.pricesIncludeTax;
          settings.roundingMode = input.roundingMode ?? settings.roundingMode;
          return touch(ctx, settings);
        },
      ),
      setShippingTaxClassification: rootField(
        (args: { classificationId?: string | null }, ctx: SubgraphContext) => {
          const id = classificationOrNull(ctx, args.classificationId);
          const settings = settingsAt(ctx);
          settings.shippingClassificationId = id;
          return touch(ctx, settings);
        },
      ),
      setDefaultClassification: rootField(
        (args: { classificationId?: string | null }, ctx: SubgraphContext) => {
          const id = classificationOrNull(ctx, args.classificationId);
          const settings = settingsAt(ctx);
          settings.defaultClassificationId = id;
          return touch(ctx, settings);
        },
      ),
      resetTaxSettings: rootField((_args: unknown, ctx: SubgraphContext) => {
        const fresh = defaultTaxSettings(storeOf(ctx), isoNow(ctx));
        ctx.state.taxSettings.set(fresh.storeId, fresh);
        return fresh;
      }),
      createTaxRegistration: rootField(
        (
          {
            input,
          }: {
            input: { taxAreaId: string; registrationNumber: string; effectiveFrom?: string | null };
          },
          ctx: SubgraphContext,
        ) => {
          const area = taxAreas.ref(ctx, input.taxAreaId, 'taxAreaId');
          if (registrations.all(ctx).some((r) => r.taxAreaId === area.id)) {
            throw badInput(`tax area ${area.id} already has a registration`, 'taxAreaId');
          }
          return registrations.insert(ctx, {
            taxAreaId: area.id,
            registrationNumber: requireText(input.registrationNumber, 'registrationNumber'),
            effectiveFrom:
              input.effectiveFrom == null
                ? isoNow(ctx)
                : checkInstant(input.effectiveFrom, 'effectiveFrom'),
            ...stamps(ctx),
          });
        },
      ),
      updateTaxRegistration: rootField(
        (
          {
            input,
          }: {
            input: {
              id: string;
              registrationNumber?: string | null;
              effectiveFrom?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const registration = registrations.get(ctx, input.id);
          const registrationNumber =
            input.registrationNumber == null
              ? registration.registrationNumber
              : requireText(input.registrationNumber, 'registrationNumber');
          const effectiveFrom =
            input.effectiveFrom == null
              ? registration.effectiveFrom
              : checkInstant(input.effectiveFrom, 'effectiveFrom');
          Object.assign(registration, { registrationNumber, effectiveFrom });
          return touch(ctx, registration);
        },
      ),
      deleteTaxRegistration: rootField((args: { id: string }, ctx: SubgraphContext) =>
        registrations.remove(ctx, args.id),
      ),
    },
  },
};
