/**
 * Tax classifications: the tax categories SKUs are assigned to (catalog `SKU.taxClassificationId`).
 * A name is unique in the store (case-insensitive). An INACTIVE classification's own rates do not
 * apply: its lines are taxed at the area's general rates. A classification that rates, exemptions
 * or the settings still name cannot be deleted (CONFLICT).
 */
import type { ClassificationRecord, TaxStatus } from '../fixtures/subgraph.fixtures.ts';
import {
  gqlError,
  badInput,
  requireText,
  rootField,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';
import { classifications, exemptions, rates, taxSettingsOf } from './tax.lookups.ts';

const typeDefs = /* GraphQL */ `
  "A tax category that SKUs are assigned to (catalog SKU.taxClassificationId)."
  type Classification {
    "The classification's id (txc_…)."
    id: ID!
    "Machine name, unique in the store (case-insensitive)."
    name: String!
    "Display label."
    label: String!
    "Long description; null when none."
    description: String
    "Whether its own rates apply; an INACTIVE one is taxed at the general rates."
    status: Status!
    "Its rates over every tax area."
    rates: [Rate!]!
    "When the classification was created (ISO 8601)."
    createdAt: String!
    "When the classification last changed (ISO 8601)."
    updatedAt: String!
  }

  "A new classification."
  input MutationCreateClassificationInput {
    "Machine name, unique in the store."
    name: String!
    "Display label, not empty."
    label: String!
    "Long description."
    description: String
    "ACTIVE unless told."
    status: Status = ACTIVE
  }

  "Changes to a classification; omitted fields keep their values."
  input MutationUpdateClassificationInput {
    "The classification."
    id: ID!
    "New machine name, unique in the store."
    name: String
    "New display label."
    label: String
    "New description; null clears it."
    description: String
    "New status."
    status: Status
  }

  "A copy of a classification with copies of its rates."
  input MutationDuplicateClassificationInput {
    "The classification to copy."
    id: ID!
    "Machine name of the copy, unique in the store."
    name: String!
    "Display label of the copy; the original's unless given."
    label: String
  }

  extend type Query {
    "A classification of the store by id; null when there is none."
    classification("The classification's id." id: ID!): Classification
    "The store's classifications in creation order."
    classifications("Only classifications in this status." status: Status): [Classification!]!
  }

  extend type Mutation {
    "Creates a classification."
    createClassification(
      "The new classification."
      input: MutationCreateClassificationInput!
    ): Classification
    "Changes a classification."
    updateClassification("The changes." input: MutationUpdateClassificationInput!): Classification
    "Deletes a classification that no rate, exemption or setting names."
    deleteClassification("The classification." id: ID!): DeleteResult
    "Makes a classification ACTIVE: its own rates apply again."
    activateClassification("The classification." id: ID!): Classification
    "Makes a classification INACTIVE: its lines are taxed at the general rates."
    deactivateClassification("The classification." id: ID!): Classification
    "Copies a classification with its rates (the copies keep their areas, jurisdictions and windows)."
    duplicateClassification(
      "What to copy and the copy's name."
      input: MutationDuplicateClassificationInput!
    ): Classification
  }
`;

interface ClassificationInput {
  name?: string | null;
  label?: string | null;
  description?: string | null;
  status?: TaxStatus | null;
}

function checkClassificationName(ctx: SubgraphContext, name: string, exceptId?: string): string {
  const text = requireText(name, 'name');
  const taken = classifications
    .all(ctx)
    .some((cls) => cls.id !== exceptId && cls.name.toLowerCase() === text.toLowerCase());
  if (taken) throw badInput(`a classification named ${text} already exists`, 'name');
  return text;
}

function setStatus(ctx: SubgraphContext, id: string, status: TaxStatus): ClassificationRecord {
  const cls = classifications.get(ctx, id);
  if (cls.status === status) return cls;
  cls.status = status;
  return touch(ctx, cls);
}

type Id = { id: string };

export const classificationModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Classification: {
      rates: (cls: ClassificationRecord, _args: unknown, ctx: SubgraphContext) =>
        rates.all(ctx).filter((rate) => rate.classificationId === cls.id),
    },
    Query: {
      classification: rootField((args: Id, ctx: SubgraphContext) =>
        classifications.find(ctx, args.id),
      ),
      classifications: rootField((args: { status?: TaxStatus | null }, ctx: SubgraphContext) =>
        classifications.all(ctx).filter((cls) => !args.status || cls.status === args.status),
      ),
    },
    Mutation: {
      createClassification: rootField(
        (
          { input }: { input: ClassificationInput & { name: string; label: string } },
          ctx: SubgraphContext,
        ) =>
          classifications.insert(ctx, {
            name: checkClassificationName(ctx, input.name),
            label: requireText(input.label, 'label'),
            description: input.description ?? null,
            status: input.status ?? 'ACTIVE',
            ...stamps(ctx),
          }),
      ),
      updateClassification: rootField(
        ({ input }: { input: ClassificationInput & { id: string } }, ctx: SubgraphContext) => {
          const cls = classifications.get(ctx, input.id);
          const next: Partial<ClassificationRecord> = {};
          if (input.name != null) next.name = checkClassificationName(ctx, input.name, cls.id);
          if (input.label != null) next.label = requireText(input.label, 'label');
          if (input.description !== undefined) next.description = input.description;
          if (input.status != null) next.status = input.status;
          Object.assign(cls, next);
          return touch(ctx, cls);
        },
      ),
      deleteClassification: rootField((args: Id, ctx: SubgraphContext) => {
        const cls = classifications.get(ctx, args.id);
        const used = rates.all(ctx).filter((rate) => rate.classificationId === cls.id);
        if (used.length > 0) {
          throw gqlError(
            'CONFLICT',
            `classification ${cls.id} is used by ${used.length} rate(s); delete them first`,
            { rateIds: used.map((rate) => rate.id) },
          );
        }
        const covered = exemptions.all(ctx).filter((e) => e.classificationIds.includes(cls.id));
        if (covered.length > 0) {
          throw gqlError(
            'CONFLICT',
            `classification ${cls.id} is named by ${covered.length} exemption(s)`,
            { exemptionIds: covered.map((e) => e.id) },
          );
        }
        const settings = taxSettingsOf(ctx);
        if (
          [settings.defaultClassificationId, settings.shippingClassificationId].includes(cls.id)
        ) {
          throw gqlError(
            'CONFLICT',
            `classification ${cls.id} is named by the tax settings; change them first`,
          );
        }
        return classifications.remove(ctx, cls.id);
      }),
      activateClassification: rootField((args: Id, ctx: SubgraphContext) =>
        setStatus(ctx, args.id, 'ACTIVE'),
      ),
      deactivateClassification: rootField((args: Id, ctx: SubgraphContext) =>
        setStatus(ctx, args.id, 'INACTIVE'),
      ),
      duplicateClassification: rootField(
        (
          { input }: { input: { id: string; name: string; label?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const original = classifications.get(ctx, input.id);
          const copy = classifications.insert(ctx, {
            name: checkClassificationName(ctx, input.name),
            label: input.label == null ? original.label : requireText(input.label, 'label'),
            description: original.description,
            status: original.status,
            ...stamps(ctx),
          });
          for (const rate of rates.all(ctx).filter((r) => r.classificationId === original.id)) {
            const { id: _id, storeId: _storeId, ...fields } = rate;
            rates.insert(ctx, { ...fields, classificationId: copy.id, ...stamps(ctx) });
          }
          return copy;
        },
      ),
    },
  },
};
