/**
 * Attribute definitions: the typed facts a store expects on its SKUs. A SKU attribute whose name
 * is the code of a definition must fit it (a number, true/false, or one of the allowed values);
 * other attributes stay free-form. A category names the definitions its SKUs should carry, and a
 * SKU lists the ones it still lacks. A change that would make a SKU's value no longer fit is
 * refused (CONFLICT).
 */
import type {
  AttributeDefinitionRecord,
  AttributeType,
  CategoryRecord,
  SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { attributeDefinitions, categories, storeSkus } from './catalog.lookups.ts';
import {
  badInput,
  gqlError,
  requireText,
  rootField,
  unique,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "The kind of value an attribute holds."
  enum AttributeType {
    "Any text."
    TEXT
    "A decimal number, such as 2 or 1.5."
    NUMBER
    "true or false."
    BOOLEAN
    "One of the definition's allowed values."
    SELECT
  }

  "A typed fact the store expects on its SKUs, such as color or capacity."
  type AttributeDefinition implements Node {
    "The definition's id (atd_…)."
    id: ID!
    "The SKU attribute name it governs: lower-case, unique in the store."
    code: String!
    "Display name."
    name: String!
    "The kind of value."
    type: AttributeType!
    "The values a SELECT attribute may take, in display order; empty for other types."
    allowedValues: [String!]!
    "Categories whose SKUs should carry it."
    categories: [Category!]!
    "When the definition was created (ISO 8601)."
    createdAt: String!
    "When the definition last changed (ISO 8601)."
    updatedAt: String!
  }

  "A new attribute definition."
  input CreateAttributeDefinitionInput {
    "Attribute name it governs: a lower-case letter, then up to 39 lower-case letters, digits or underscores; unique in the store."
    code: String!
    "Display name, not empty."
    name: String!
    "The kind of value."
    type: AttributeType!
    "Allowed values; required (at least one) for SELECT, refused for other types."
    allowedValues: [String!]
  }

  "Changes to an attribute definition; omitted fields keep their values."
  input UpdateAttributeDefinitionInput {
    "The definition."
    id: String!
    "New display name."
    name: String
    "New type; every SKU value must fit it (a SELECT needs allowed values first)."
    type: AttributeType
  }

  extend type Category {
    "Attribute definitions the SKUs of this category should carry."
    attributeDefinitions: [AttributeDefinition!]!
  }

  extend type SKU {
    "Attribute definitions its categories ask for that the SKU does not carry."
    missingAttributes: [AttributeDefinition!]!
  }

  extend type Query {
    "An attribute definition of the store by id; null when there is none."
    attributeDefinition("The definition's id." id: String!): AttributeDefinition
    "The store's attribute definitions in creation order."
    attributeDefinitions(
      "Only definitions of this type."
      type: AttributeType
    ): [AttributeDefinition!]!
  }

  extend type Mutation {
    "Creates an attribute definition."
    createAttributeDefinition(
      "The new definition."
      input: CreateAttributeDefinitionInput!
    ): AttributeDefinition
    "Renames an attribute definition or changes its type."
    updateAttributeDefinition(
      "The changes."
      input: UpdateAttributeDefinitionInput!
    ): AttributeDefinition
    "Deletes an attribute definition; categories stop asking for it and SKU values stay as free-form attributes."
    deleteAttributeDefinition("The definition." id: String!): DeletePayload
    "Adds allowed values to a SELECT definition."
    addAttributeAllowedValues(
      "The definition."
      id: String!
      "The values; one already allowed is ignored."
      values: [String!]!
    ): AttributeDefinition
    "Takes allowed values off a SELECT definition; a value a SKU carries cannot go."
    removeAttributeAllowedValues(
      "The definition."
      id: String!
      "The values."
      values: [String!]!
    ): AttributeDefinition
    "Sets the attribute definitions a category's SKUs should carry (replaces them)."
    setCategoryAttributes(
      "The category."
      categoryId: String!
      "The definitions."
      attributeDefinitionIds: [String!]!
    ): Category
  }
`;

const CODE = /^[a-z][a-z0-9_]{0,39}$/;

/** Whether a value fits a type (and, for SELECT, the allowed values). */
function fits(type: AttributeType, allowed: readonly string[], value: string): boolean {
  switch (type) {
    case 'NUMBER':
      return value.trim() !== '' && Number.isFinite(Number(value));
    case 'BOOLEAN':
      return value === 'true' || value === 'false';
    case 'SELECT':
      return allowed.includes(value);
    default:
      return true;
  }
}

const definitionFor = (ctx: SubgraphContext, name: string) =>
  attributeDefinitions.all(ctx).find((def) => def.code === name) ?? null;

/** SKU attributes as given, checked against the store's definitions; names must not repeat. */
export function checkSkuAttributes(
  ctx: SubgraphContext,
  attributes: readonly { name: string; value: string }[],
): { name: string; value: string }[] {
  const seen = new Set<string>();
  return attributes.map((attr, index) => {
    const name = requireText(attr.name, `attributes[${index}].name`);
    if (seen.has(name)) throw badInput(`attributes repeat ${name}`, `attributes[${index}].name`);
    seen.add(name);
    const def = definitionFor(ctx, name);
    if (def && !fits(def.type, def.allowedValues, attr.value)) {
      const expected =
        def.type === 'SELECT' ? `one of ${def.allowedValues.join(', ')}` : `a ${def.type} value`;
      throw badInput(`attribute ${name} must be ${expected}`, `attributes[${index}].value`);
    }
    return { name, value: attr.value };
  });
}

/** SKUs whose value of a definition's attribute would not fit `type`/`allowed`. */
const misfits = (
  ctx: SubgraphContext,
  code: string,
  type: AttributeType,
  allowed: readonly string[],
): SkuRecord[] =>
  storeSkus(ctx).filter((sku) =>
    sku.attributes.some((attr) => attr.name === code && !fits(type, allowed, attr.value)),
  );

/** CONFLICT when SKUs carry values of `code` that would not fit. */
function refuseMisfits(code: string, users: readonly SkuRecord[]): void {
  if (users.length > 0) {
    throw gqlError('CONFLICT', `${users.length} SKU(s) carry ${code} values that would not fit`, {
      skuIds: users.map((sku) => sku.id),
    });
  }
}

const selectOnly = (def: AttributeDefinitionRecord): void => {
  if (def.type !== 'SELECT') {
    throw badInput(
      `attribute definition ${def.id} is ${def.type}; only SELECT has allowed values`,
      'id',
    );
  }
};

export const attributeModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    AttributeDefinition: {
      categories: (def: AttributeDefinitionRecord, _args: unknown, ctx: SubgraphContext) =>
        categories.all(ctx).filter((cat) => cat.attributeDefinitionIds.includes(def.id)),
    },
    Category: {
      attributeDefinitions: (cat: CategoryRecord, _args: unknown, ctx: SubgraphContext) =>
        cat.attributeDefinitionIds
          .map((id) => attributeDefinitions.find(ctx, id))
          .filter((def) => def !== null),
    },
    SKU: {
      missingAttributes: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) => {
        const wanted = unique(
          sku.categoryIds.flatMap((id) => categories.find(ctx, id)?.attributeDefinitionIds ?? []),
        );
        const carried = new Set(sku.attributes.map((attr) => attr.name));
        return wanted
          .map((id) => attributeDefinitions.find(ctx, id))
          .filter((def) => def !== null && !carried.has(def.code));
      },
    },
    Query: {
      attributeDefinition: rootField((args: { id: string }, ctx: SubgraphContext) =>
        attributeDefinitions.find(ctx, args.id),
      ),
      attributeDefinitions: rootField(
        (args: { type?: AttributeType | null }, ctx: SubgraphContext) =>
          attributeDefinitions.all(ctx).filter((def) => !args.type || def.type === args.type),
      ),
    },
    Mutation: {
      createAttributeDefinition: rootField(
        (
          {
            input,
          }: {
            input: {
              code: string;
              name: string;
              type: AttributeType;
              allowedValues?: string[] | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          if (!CODE.test(input.code)) {
            throw badInput(
              'code must be a lower-case letter followed by up to 39 lower-case letters, digits or underscores',
              'code',
            );
          }
          if (definitionFor(ctx, input.code)) {
            throw badInput(
              `an attribute definition with code ${input.code} already exists`,
              'code',
            );
          }
          const allowed = unique(
            (input.allowedValues ?? []).map((v) => requireText(v, 'allowedValues')),
          );
          if (input.type === 'SELECT' && allowed.length === 0) {
            throw badInput('a SELECT definition needs at least one allowed value', 'allowedValues');
          }
          if (input.type !== 'SELECT' && allowed.length > 0) {
            throw badInput('only a SELECT definition has allowed values', 'allowedValues');
          }
          const name = requireText(input.name, 'name');
          // Existing free-form values of this name must fit the new definition.
          refuseMisfits(input.code, misfits(ctx, input.code, input.type, allowed));
          return attributeDefinitions.insert(ctx, {
            code: input.code,
            name,
            type: input.type,
            allowedValues: allowed,
            ...stamps(ctx),
          });
        },
      ),
      updateAttributeDefinition: rootField(
        (
          { input }: { input: { id: string; name?: string | null; type?: AttributeType | null } },
          ctx: SubgraphContext,
        ) => {
          const def = attributeDefinitions.get(ctx, input.id);
          const name = input.name == null ? def.name : requireText(input.name, 'name');
          const type = input.type ?? def.type;
          if (type === 'SELECT' && def.type !== 'SELECT') {
            throw badInput(
              'a definition cannot become SELECT; create a SELECT definition instead',
              'type',
            );
          }
          refuseMisfits(def.code, misfits(ctx, def.code, type, def.allowedValues));
          def.name = name;
          if (type !== def.type) {
            def.type = type;
            if (type !== 'SELECT') def.allowedValues = [];
          }
          return touch(ctx, def);
        },
      ),
      deleteAttributeDefinition: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const def = attributeDefinitions.get(ctx, args.id);
        for (const cat of categories.all(ctx)) {
          if (cat.attributeDefinitionIds.includes(def.id)) {
            cat.attributeDefinitionIds = cat.attributeDefinitionIds.filter((id) => id !== def.id);
            touch(ctx, cat);
          }
        }
        return attributeDefinitions.remove(ctx, def.id);
      }),
      addAttributeAllowedValues: rootField(
        (args: { id: string; values: string[] }, ctx: SubgraphContext) => {
          const def = attributeDefinitions.get(ctx, args.id);
          selectOnly(def);
          const values = args.values.map((v) => requireText(v, 'values'));
          def.allowedValues = unique([...def.allowedValues, ...values]);
          return touch(ctx, def);
        },
      ),
      removeAttributeAllowedValues: rootField(
        (args: { id: string; values: string[] }, ctx: SubgraphContext) => {
          const def = attributeDefinitions.get(ctx, args.id);
          selectOnly(def);
          const remaining = def.allowedValues.filter((v) => !args.values.includes(v));
          if (remaining.length === 0) {
            throw badInput('a SELECT definition keeps at least one allowed value', 'values');
          }
          refuseMisfits(def.code, misfits(ctx, def.code, 'SELECT', remaining));
          def.allowedValues = remaining;
          return touch(ctx, def);
        },
      ),
      setCategoryAttributes: rootField(
        (args: { categoryId: string; attributeDefinitionIds: string[] }, ctx: SubgraphContext) => {
          const cat = categories.get(ctx, args.categoryId);
          cat.attributeDefinitionIds = attributeDefinitions
            .refs(ctx, args.attributeDefinitionIds, 'attributeDefinitionIds')
            .map((def) => def.id);
          return touch(ctx, cat);
        },
      ),
    },
  },
};
