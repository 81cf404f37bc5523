/**
 * Tax areas (zones) and their jurisdictions. An area is a country, optionally narrowed to a
 * first-level region and to postal codes (exact codes or `941*` prefixes, each held by at most one
 * area of the store); `calculateTax` can find the area by postal code. The store's default area is
 * the one its settings name, else its first one. An area that rates, registrations or exemptions
 * still name cannot be deleted (CONFLICT); its jurisdictions go with it.
 */
import type {
  JurisdictionLevel,
  JurisdictionRecord,
  TaxAreaRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { defaultTaxArea } from '../fixtures/subgraph.fixtures.ts';
import {
  badInput,
  checkCountry,
  gqlError,
  requireText,
  rootField,
  storeOf,
  unique,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';
import {
  exemptions,
  jurisdictions,
  rates,
  registrations,
  taxAreas,
  taxSettingsOf,
} from './tax.lookups.ts';

const typeDefs = /* GraphQL */ `
  "A zone the store collects tax in: a country, optionally a region and postal codes."
  type TaxArea {
    "The area's id (txa_…)."
    id: ID!
    "Display name, unique in the store."
    name: String!
    "ISO 3166-1 alpha-2 country code."
    countryCode: String!
    "First-level region (state, province); null for the whole country."
    adminArea1: String
    "Postal codes it covers: exact codes or prefixes ending in *; empty when not narrowed."
    postalCodes: [String!]!
    "Whether it is the store's default area."
    isDefault: Boolean!
    "The jurisdictions that levy tax in it."
    jurisdictions: [Jurisdiction!]!
    "Its rates."
    rates: [Rate!]!
    "When the area was created (ISO 8601)."
    createdAt: String!
    "When the area last changed (ISO 8601)."
    updatedAt: String!
  }

  "The level of government a jurisdiction is."
  enum JurisdictionLevel {
    "A country."
    COUNTRY
    "A state or province."
    STATE
    "A county."
    COUNTY
    "A city."
    CITY
    "A special district (transit, tourism)."
    DISTRICT
    "Any other taxing body."
    SPECIAL
  }

  "A government body that levies tax in an area."
  type Jurisdiction {
    "The jurisdiction's id (txj_…)."
    id: ID!
    "Display name."
    name: String!
    "Which level of government it is."
    level: JurisdictionLevel!
    "Its code, unique in its area, e.g. CA or NY-NYC."
    code: String!
    "The area it levies tax in."
    taxArea: TaxArea!
    "The rates it levies."
    rates: [Rate!]!
    "When the jurisdiction was created (ISO 8601)."
    createdAt: String!
    "When the jurisdiction last changed (ISO 8601)."
    updatedAt: String!
  }

  "A new tax area."
  input MutationCreateTaxAreaInput {
    "Display name, unique in the store."
    name: String!
    "ISO 3166-1 alpha-2 country code."
    countryCode: String!
    "First-level region."
    adminArea1: String
    "Postal codes it covers: exact codes or prefixes ending in *."
    postalCodes: [String!]
  }

  "Changes to a tax area; omitted fields keep their values."
  input MutationUpdateTaxAreaInput {
    "The area."
    id: ID!
    "New display name, unique in the store."
    name: String
    "New first-level region; null clears it."
    adminArea1: String
  }

  "A new jurisdiction."
  input MutationCreateJurisdictionInput {
    "The area it levies tax in."
    taxAreaId: ID!
    "Display name, not empty."
    name: String!
    "Which level of government it is."
    level: JurisdictionLevel!
    "Its code, unique in the area."
    code: String!
  }

  "Changes to a jurisdiction; omitted fields keep their values."
  input MutationUpdateJurisdictionInput {
    "The jurisdiction."
    id: ID!
    "New display name."
    name: String
    "New level."
    level: JurisdictionLevel
    "New code, unique in the area."
    code: String
  }

  extend type Query {
    "A tax area of the store by id; null when there is none."
    taxArea("The area's id." id: ID!): TaxArea
    "The store's tax areas in creation order."
    taxAreas: [TaxArea!]!
  }

  extend type Mutation {
    "Creates a tax area."
    createTaxArea("The new area." input: MutationCreateTaxAreaInput!): TaxArea
    "Renames a tax area or changes its region."
    updateTaxArea("The changes." input: MutationUpdateTaxAreaInput!): TaxArea
    "Deletes a tax area that no rate, registration or exemption names, with its jurisdictions."
    deleteTaxArea("The area." id: ID!): DeleteResult
    "Makes a tax area the store's default (used when a calculation or order names none)."
    setDefaultTaxArea("The area." id: ID!): TaxArea
    "Adds postal codes to a tax area."
    addTaxAreaPostalCodes(
      "The area."
      id: ID!
      "Exact codes or prefixes ending in *; none may belong to another area of the store."
      postalCodes: [String!]!
    ): TaxArea
    "Takes postal codes off a tax area; a code it lacks is ignored."
    removeTaxAreaPostalCodes("The area." id: ID!, "The codes." postalCodes: [String!]!): TaxArea
    "Creates a jurisdiction in a tax area."
    createJurisdiction(
      "The new jurisdiction."
      input: MutationCreateJurisdictionInput!
    ): Jurisdiction
    "Changes a jurisdiction."
    updateJurisdiction("The changes." input: MutationUpdateJurisdictionInput!): Jurisdiction
    "Deletes a jurisdiction that no rate names."
    deleteJurisdiction("The jurisdiction." id: ID!): DeleteResult
  }
`;

const POSTAL = /^[A-Z0-9][A-Z0-9 -]{0,9}\*?$/;

function checkAreaName(ctx: SubgraphContext, name: string, exceptId?: string): string {
  const text = requireText(name, 'name');
  const taken = taxAreas
    .all(ctx)
    .some((area) => area.id !== exceptId && area.name.toLowerCase() === text.toLowerCase());
  if (taken) throw badInput(`a tax area named ${text} already exists`, 'name');
  return text;
}

function checkPostalCodes(
  ctx: SubgraphContext,
  codes: readonly string[],
  exceptAreaId?: string,
): string[] {
  return unique(
    codes.map((code) => {
      const normal = code.trim().toUpperCase();
      if (!POSTAL.test(normal)) {
        throw badInput(
          `postal code ${code} must be 1-10 letters, digits, spaces or dashes, optionally ending in *`,
          'postalCodes',
        );
      }
      const holder = taxAreas
        .all(ctx)
        .find((area) => area.id !== exceptAreaId && area.postalCodes.includes(normal));
      if (holder) {
        throw badInput(
          `postal code ${normal} already belongs to tax area ${holder.id}`,
          'postalCodes',
        );
      }
      return normal;
    }),
  );
}

function checkJurisdictionCode(
  ctx: SubgraphContext,
  areaId: string,
  code: string,
  exceptId?: string,
): string {
  const text = requireText(code, 'code').toUpperCase();
  const taken = jurisdictions
    .all(ctx)
    .some((j) => j.id !== exceptId && j.taxAreaId === areaId && j.code === text);
  if (taken) throw badInput(`a jurisdiction with code ${text} already exists in the area`, 'code');
  return text;
}

function refuseIfNamed(what: string, id: string, users: readonly { id: string }[], by: string) {
  if (users.length > 0) {
    throw gqlError(
      'CONFLICT',
      `${what} ${id} is named by ${users.length} ${by}; change them first`,
      {
        ids: users.map((user) => user.id),
      },
    );
  }
}

export const areaModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    TaxArea: {
      isDefault: (area: TaxAreaRecord, _args: unknown, ctx: SubgraphContext) =>
        defaultTaxArea(ctx.state, storeOf(ctx))?.id === area.id,
      jurisdictions: (area: TaxAreaRecord, _args: unknown, ctx: SubgraphContext) =>
        jurisdictions.all(ctx).filter((j) => j.taxAreaId === area.id),
      rates: (area: TaxAreaRecord, _args: unknown, ctx: SubgraphContext) =>
        rates.all(ctx).filter((rate) => rate.taxAreaId === area.id),
    },
    Jurisdiction: {
      taxArea: (j: JurisdictionRecord, _args: unknown, ctx: SubgraphContext) =>
        taxAreas.find(ctx, j.taxAreaId),
      rates: (j: JurisdictionRecord, _args: unknown, ctx: SubgraphContext) =>
        rates.all(ctx).filter((rate) => rate.jurisdictionId === j.id),
    },
    Query: {
      taxArea: rootField((args: { id: string }, ctx: SubgraphContext) =>
        taxAreas.find(ctx, args.id),
      ),
      taxAreas: rootField((_args: unknown, ctx: SubgraphContext) => taxAreas.all(ctx)),
    },
    Mutation: {
      createTaxArea: rootField(
        (
          {
            input,
          }: {
            input: {
              name: string;
              countryCode: string;
              adminArea1?: string | null;
              postalCodes?: string[] | null;
            };
          },
          ctx: SubgraphContext,
        ) =>
          taxAreas.insert(ctx, {
            name: checkAreaName(ctx, input.name),
            countryCode: checkCountry(input.countryCode, 'countryCode'),
            adminArea1: input.adminArea1?.trim() || null,
            postalCodes: checkPostalCodes(ctx, input.postalCodes ?? []),
            ...stamps(ctx),
          }),
      ),
      updateTaxArea: rootField(
        (
          { input }: { input: { id: string; name?: string | null; adminArea1?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const area = taxAreas.get(ctx, input.id);
          area.name = input.name == null ? area.name : checkAreaName(ctx, input.name, area.id);
          if (input.adminArea1 !== undefined) area.adminArea1 = input.adminArea1?.trim() || null;
          return touch(ctx, area);
        },
      ),
      deleteTaxArea: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const area = taxAreas.get(ctx, args.id);
        refuseIfNamed(
          'tax area',
          area.id,
          rates.all(ctx).filter((r) => r.taxAreaId === area.id),
          'rate(s)',
        );
        refuseIfNamed(
          'tax area',
          area.id,
          registrations.all(ctx).filter((r) => r.taxAreaId === area.id),
          'registration(s)',
        );
        refuseIfNamed(
          'tax area',
          area.id,
          exemptions.all(ctx).filter((e) => e.taxAreaIds.includes(area.id)),
          'exemption(s)',
        );
        for (const j of jurisdictions.all(ctx)) {
          if (j.taxAreaId === area.id) ctx.state.jurisdictions.delete(j.id);
        }
        const settings = taxSettingsOf(ctx);
        if (settings.defaultTaxAreaId === area.id) settings.defaultTaxAreaId = null;
        return taxAreas.remove(ctx, area.id);
      }),
      setDefaultTaxArea: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const area = taxAreas.get(ctx, args.id);
        const settings = taxSettingsOf(ctx);
        if (settings.defaultTaxAreaId !== area.id) {
          settings.defaultTaxAreaId = area.id;
          touch(ctx, settings);
        }
        return area;
      }),
      addTaxAreaPostalCodes: rootField(
        (args: { id: string; postalCodes: string[] }, ctx: SubgraphContext) => {
          const area = taxAreas.get(ctx, args.id);
          const codes = checkPostalCodes(ctx, args.postalCodes, area.id);
          area.postalCodes = unique([...area.postalCodes, ...codes]);
          return touch(ctx, area);
        },
      ),
      removeTaxAreaPostalCodes: rootField(
        (args: { id: string; postalCodes: string[] }, ctx: SubgraphContext) => {
          const area = taxAreas.get(ctx, args.id);
          const gone = new Set(args.postalCodes.map((code) => code.trim().toUpperCase()));
          area.postalCodes = area.postalCodes.filter((code) => !gone.has(code));
          return touch(ctx, area);
        },
      ),
      createJurisdiction: rootField(
        (
          {
            input,
          }: { input: { taxAreaId: string; name: string; level: JurisdictionLevel; code: string } },
          ctx: SubgraphContext,
        ) => {
          const area = taxAreas.ref(ctx, input.taxAreaId, 'taxAreaId');
          return jurisdictions.insert(ctx, {
            taxAreaId: area.id,
            name: requireText(input.name, 'name'),
            level: input.level,
            code: checkJurisdictionCode(ctx, area.id, input.code),
            ...stamps(ctx),
          });
        },
      ),
      updateJurisdiction: rootField(
        (
          {
            input,
          }: {
            input: {
              id: string;
              name?: string | null;
              level?: JurisdictionLevel | null;
              code?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const j = jurisdictions.get(ctx, input.id);
          const name = input.name == null ? j.name : requireText(input.name, 'name');
          const code =
            input.code == null ? j.code : checkJurisdictionCode(ctx, j.taxAreaId, input.code, j.id);
          Object.assign(j, { name, code, level: input.level ?? j.level });
          return touch(ctx, j);
        },
      ),
      deleteJurisdiction: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const j = jurisdictions.get(ctx, args.id);
        refuseIfNamed(
          'jurisdiction',
          j.id,
          rates.all(ctx).filter((r) => r.jurisdictionId === j.id),
          'rate(s)',
        );
        return jurisdictions.remove(ctx, j.id);
      }),
    },
  },
};
