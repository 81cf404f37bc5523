/**
 * Options and option values: the axes a product varies on (Color: slate, moss; Size: S, M, L). A
 * SKU group names the options its SKUs vary on; a SKU carries at most one value of each option. An
 * option or value still carried by a SKU cannot be deleted (CONFLICT).
 */
import type {
  OptionRecord,
  OptionValueRecord,
  SkuGroupRecord,
  SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { nextId } from '../fixtures/subgraph.fixtures.ts';
import {
  changeableSku,
  findOptionValue,
  options,
  skuGroups,
  storeSkus,
} from './catalog.lookups.ts';
import {
  badInput,
  checkReorder,
  gqlError,
  paginate,
  requireText,
  rootField,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "An axis SKUs vary on, such as Color or Size."
  type Option implements Node {
    "The option's id (opt_…)."
    id: ID!
    "Display name, unique in the store."
    name: String!
    "Its values in display order."
    values: [OptionValue!]!
    "When the option was created (ISO 8601)."
    createdAt: String!
    "When the option or its values last changed (ISO 8601)."
    updatedAt: String!
  }

  "One value of an option, such as slate for Color."
  type OptionValue {
    "The value's id (ov_…)."
    id: ID!
    "Display name, unique in its option."
    name: String!
    "Place in the option's display order, 0 first."
    position: Int!
    "The option it belongs to."
    option: Option!
  }

  "An option in a page of options."
  type OptionEdge {
    "Where this option is in the list: pass it as after to continue behind it."
    cursor: String!
    "The option."
    node: Option!
  }

  "A page of options."
  type OptionConnection {
    "The options of the page with their cursors."
    edges: [OptionEdge!]!
    "The options of the page."
    nodes: [Option!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many options the whole list holds."
    totalCount: Int!
  }

  "A new option with its first values."
  input CreateOptionInput {
    "Display name, unique in the store."
    name: String!
    "Value names in display order, each unique in the option."
    values: [String!]!
  }

  "A new value of an option."
  input CreateOptionValueInput {
    "The option."
    optionId: String!
    "Display name, unique in the option."
    name: String!
    "Where to insert it, 0 first; last unless given."
    position: Int
  }

  "The option values a SKU carries."
  input SetSKUOptionValuesInput {
    "The SKU."
    skuId: String!
    "At most one value per option; replaces the SKU's values."
    optionValueIds: [String!]!
  }

  extend type SKU {
    "The option values that tell this SKU apart from its siblings (Color: slate)."
    optionValues: [OptionValue!]!
  }

  extend type SKUGroup {
    "The options the group's SKUs vary on."
    options: [Option!]!
  }

  extend type Query {
    "An option of the store by id; null when there is none."
    option("The option's id." id: String!): Option
    "The store's options in creation order, a page at a time."
    options(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
    ): OptionConnection!
  }

  extend type Mutation {
    "Creates an option with its values."
    createOption("The new option." input: CreateOptionInput!): Option
    "Renames an option."
    updateOption(
      "The option."
      id: String!
      "New display name, unique in the store."
      name: String!
    ): Option
    "Deletes an option that no SKU carries a value of; SKU groups stop naming it."
    deleteOption("The option." id: String!): DeletePayload
    "Adds a value to an option."
    createOptionValue("The new value." input: CreateOptionValueInput!): Option
    "Renames an option value."
    updateOptionValue(
      "The value."
      id: String!
      "New display name, unique in its option."
      name: String!
    ): Option
    "Deletes an option value that no SKU carries."
    deleteOptionValue("The value." id: String!): Option
    "Puts an option's values in a new order; valueIds must list each value exactly once."
    reorderOptionValues(
      "The option."
      optionId: String!
      "Its values in the new order."
      valueIds: [String!]!
    ): Option
    "Sets the options a SKU group varies on (replaces them)."
    setSkuGroupOptions(
      "The group."
      groupId: String!
      "The options."
      optionIds: [String!]!
    ): SKUGroup
    "Sets the option values of a SKU (replaces them)."
    setSkuOptionValues("The SKU and its values." input: SetSKUOptionValuesInput!): SKU
  }
`;

type PositionedValue = OptionValueRecord & { position: number };

const withPositions = (option: OptionRecord): PositionedValue[] =>
  option.values.map((value, position) => ({ ...value, position }));

function checkOptionName(ctx: SubgraphContext, name: string, exceptId?: string): string {
  const text = requireText(name, 'name');
  const taken = options
    .all(ctx)
    .some((opt) => opt.id !== exceptId && opt.name.toLowerCase() === text.toLowerCase());
  if (taken) throw badInput(`an option named ${text} already exists in this store`, 'name');
  return text;
}

function checkValueNames(names: readonly string[], field: string): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    const text = requireText(name, field);
    if (seen.has(text.toLowerCase())) throw badInput(`${field} repeats ${text}`, field);
    seen.add(text.toLowerCase());
    return text;
  });
}

/** SKUs of the store carrying any of the given option value ids. */
const carriers = (ctx: SubgraphContext, valueIds: readonly string[]): SkuRecord[] =>
  storeSkus(ctx).filter((sku) => sku.optionValueIds.some((id) => valueIds.includes(id)));

function valueOrThrow(ctx: SubgraphContext, id: string) {
  const found = findOptionValue(ctx, id);
  if (!found) throw gqlError('NOT_FOUND', `option value ${id} was not found in this store`);
  return found;
}

type Id = { id: string };

export const optionModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Option: {
      values: (option: OptionRecord) => withPositions(option),
    },
    OptionValue: {
      option: (value: OptionValueRecord, _args: unknown, ctx: SubgraphContext) =>
        options.find(ctx, value.optionId),
    },
    SKU: {
      optionValues: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) =>
        sku.optionValueIds.flatMap((id) => {
          const found = findOptionValue(ctx, id);
          return found ? (withPositions(found.option).find((v) => v.id === id) ?? []) : [];
        }),
    },
    SKUGroup: {
      options: (group: SkuGroupRecord, _args: unknown, ctx: SubgraphContext) =>
        group.optionIds.map((id) => options.find(ctx, id)).filter((opt) => opt !== null),
    },
    Query: {
      option: rootField((args: Id, ctx: SubgraphContext) => options.find(ctx, args.id)),
      options: rootField(
        (args: { first?: number | null; after?: string | null }, ctx: SubgraphContext) =>
          paginate(options.all(ctx), args.first, args.after),
      ),
    },
    Mutation: {
      createOption: rootField(
        ({ input }: { input: { name: string; values: string[] } }, ctx: SubgraphContext) => {
          const name = checkOptionName(ctx, input.name);
          const names = checkValueNames(input.values, 'values');
          const option = options.insert(ctx, { name, values: [], ...stamps(ctx) });
          option.values = names.map((value) => ({
            id: nextId(ctx.state, 'ov'),
            optionId: option.id,
            name: value,
          }));
          return option;
        },
      ),
      updateOption: rootField((args: { id: string; name: string }, ctx: SubgraphContext) => {
        const option = options.get(ctx, args.id);
        option.name = checkOptionName(ctx, args.name, option.id);
        return touch(ctx, option);
      }),
      deleteOption: rootField((args: Id, ctx: SubgraphContext) => {
        const option = options.get(ctx, args.id);
        const users = carriers(
          ctx,
          option.values.map((value) => value.id),
        );
        if (users.length > 0) {
          throw gqlError(
            'CONFLICT',
            `option ${option.id} has values carried by ${users.length} SKU(s)`,
            { skuIds: users.map((sku) => sku.id) },
          );
        }
        for (const group of skuGroups.all(ctx)) {
          if (group.optionIds.includes(option.id)) {
            group.optionIds = group.optionIds.filter((id) => id !== option.id);
            touch(ctx, group);
          }
        }
        return options.remove(ctx, option.id);
      }),
      createOptionValue: rootField(
        (
          { input }: { input: { optionId: string; name: string; position?: number | null } },
          ctx: SubgraphContext,
        ) => {
          const option = options.get(ctx, input.optionId);
          const [name = ''] = checkValueNames(
            [...option.values.map((v) => v.name), input.name],
            'name',
          ).slice(-1);
          const position = input.position ?? option.values.length;
          if (!Number.isInteger(position) || position < 0 || position > option.values.length) {
            throw badInput(`position must be between 0 and ${option.values.length}`, 'position');
          }
          option.values.splice(position, 0, {
            id: nextId(ctx.state, 'ov'),
            optionId: option.id,
            name,
          });
          return touch(ctx, option);
        },
      ),
      updateOptionValue: rootField((args: { id: string; name: string }, ctx: SubgraphContext) => {
        const { option, value } = valueOrThrow(ctx, args.id);
        const others = option.values.filter((v) => v.id !== value.id).map((v) => v.name);
        const [name = ''] = checkValueNames([...others, args.name], 'name').slice(-1);
        value.name = name;
        return touch(ctx, option);
      }),
      deleteOptionValue: rootField((args: Id, ctx: SubgraphContext) => {
        const { option, value } = valueOrThrow(ctx, args.id);
        const users = carriers(ctx, [value.id]);
        if (users.length > 0) {
          throw gqlError(
            'CONFLICT',
            `option value ${value.id} is carried by ${users.length} SKU(s)`,
            {
              skuIds: users.map((sku) => sku.id),
            },
          );
        }
        option.values = option.values.filter((v) => v.id !== value.id);
        return touch(ctx, option);
      }),
      reorderOptionValues: rootField(
        (args: { optionId: string; valueIds: string[] }, ctx: SubgraphContext) => {
          const option = options.get(ctx, args.optionId);
          const order = checkReorder(
            option.values.map((v) => v.id),
            args.valueIds,
            'valueIds',
          );
          option.values = order
            .map((id) => option.values.find((v) => v.id === id))
            .filter((v) => v !== undefined);
          return touch(ctx, option);
        },
      ),
      setSkuGroupOptions: rootField(
        (args: { groupId: string; optionIds: string[] }, ctx: SubgraphContext) => {
          const group = skuGroups.get(ctx, args.groupId);
          group.optionIds = options.refs(ctx, args.optionIds, 'optionIds').map((opt) => opt.id);
          return touch(ctx, group);
        },
      ),
      setSkuOptionValues: rootField(
        (
          { input }: { input: { skuId: string; optionValueIds: string[] } },
          ctx: SubgraphContext,
        ) => {
          const sku = changeableSku(ctx, input.skuId);
          const seen = new Set<string>();
          const ids = [...new Set(input.optionValueIds)].map((id) => {
            const found = findOptionValue(ctx, id);
            if (!found) throw badInput(`unknown option value ${id}`, 'optionValueIds');
            if (seen.has(found.option.id)) {
              throw badInput(
                `two values of option ${found.option.name} given; a SKU carries at most one`,
                'optionValueIds',
              );
            }
            seen.add(found.option.id);
            return id;
          });
          sku.optionValueIds = ids;
          return touch(ctx, sku);
        },
      ),
    },
  },
};
