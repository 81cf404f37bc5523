/**
 * SKU groups: named, ordered sets of SKUs (a product with its variants, a kit, a theme). A group is
 * ACTIVE or ARCHIVED; membership changes are allowed in both (archiving only hides the group from
 * merchandising), and a SKU may be in several groups.
 */
import type { CatalogStatus, SkuGroupRecord } from '../fixtures/subgraph.fixtures.ts';
import { skuGroups, skus } from './catalog.lookups.ts';
import {
  checkReorder,
  gqlError,
  paginate,
  requireText,
  rootField,
  unique,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "A named, ordered set of SKUs: a product with its variants, a kit or a theme."
  type SKUGroup implements Node {
    "The group's id (skg_…)."
    id: ID!
    "Display name."
    name: String!
    "Long description; null when none."
    description: String
    "ACTIVE or ARCHIVED."
    status: Status!
    "How many SKUs the group holds."
    skuCount: Int!
    "The group's SKUs in the group's order, a page at a time."
    skus(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
    ): SKUConnection!
    "When the group was created (ISO 8601)."
    createdAt: String!
    "When the group last changed (ISO 8601)."
    updatedAt: String!
  }

  "A SKU group in a page of SKU groups."
  type SKUGroupEdge {
    "Where this group is in the list: pass it as after to continue behind it."
    cursor: String!
    "The SKU group."
    node: SKUGroup!
  }

  "A page of SKU groups."
  type SKUGroupConnection {
    "The groups of the page with their cursors."
    edges: [SKUGroupEdge!]!
    "The groups of the page."
    nodes: [SKUGroup!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many groups the whole list holds."
    totalCount: Int!
  }

  "A new SKU group (ACTIVE)."
  input CreateSKUGroupInput {
    "Display name, not empty."
    name: String!
    "Long description."
    description: String
    "Its first SKUs, in order."
    skuIds: [String!]
  }

  "Changes to a SKU group; omitted fields keep their values."
  input UpdateSKUGroupInput {
    "The group."
    id: String!
    "New display name."
    name: String
    "New description; null clears it."
    description: String
  }

  "SKUs to add to or take out of a group."
  input SKUGroupMembershipInput {
    "The group."
    groupId: String!
    "The SKUs; added ones go to the end in this order."
    skuIds: [String!]!
  }

  extend type Query {
    "A SKU group of the store by id; null when there is none."
    skuGroup("The group's id." id: String!): SKUGroup
    "The store's SKU groups in creation order, a page at a time."
    skuGroups(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only groups in this status."
      status: Status
    ): SKUGroupConnection!
  }

  extend type Mutation {
    "Creates a SKU group."
    createSkuGroup("The new group." input: CreateSKUGroupInput!): SKUGroup
    "Renames or re-describes a SKU group."
    updateSkuGroup("The changes." input: UpdateSKUGroupInput!): SKUGroup
    "Adds SKUs to the end of a group; SKUs already in it stay where they are."
    addSkusToGroup("The group and the SKUs." input: SKUGroupMembershipInput!): SKUGroup
    "Takes SKUs out of a group; a SKU not in it is ignored."
    removeSkusFromGroup("The group and the SKUs." input: SKUGroupMembershipInput!): SKUGroup
    "Puts a group's SKUs in a new order; skuIds must list each member exactly once."
    reorderSkuGroup(
      "The group and its members in the new order."
      input: SKUGroupMembershipInput!
    ): SKUGroup
    "Archives a SKU group; archiving an archived group changes nothing."
    archiveSkuGroup("The group." id: String!): SKUGroup
    "Makes an archived SKU group ACTIVE again."
    unarchiveSkuGroup("The group." id: String!): SKUGroup
    "Deletes a SKU group; its SKUs stay."
    deleteSkuGroup("The group." id: String!): DeletePayload
    "Creates an ACTIVE copy of a SKU group with the same SKUs, options and media."
    duplicateSkuGroup(
      "The group to copy."
      id: String!
      "Name of the copy, not empty."
      name: String!
    ): SKUGroup
  }
`;

interface Membership {
  groupId: string;
  skuIds: string[];
}

const skuIdsOf = (ctx: SubgraphContext, ids: readonly string[]): string[] =>
  skus.refs(ctx, ids, 'skuIds').map((sku) => sku.id);

type Id = { id: string };

export const groupModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    SKUGroup: {
      skuCount: (group: SkuGroupRecord) => group.skuIds.length,
      skus: (
        group: SkuGroupRecord,
        args: { first?: number | null; after?: string | null },
        ctx: SubgraphContext,
      ) =>
        paginate(
          group.skuIds.map((id) => skus.find(ctx, id)).filter((sku) => sku !== null),
          args.first,
          args.after,
        ),
    },
    Query: {
      skuGroup: rootField((args: Id, ctx: SubgraphContext) => skuGroups.find(ctx, args.id)),
      skuGroups: rootField(
        (
          args: { first?: number | null; after?: string | null; status?: CatalogStatus | null },
          ctx: SubgraphContext,
        ) =>
          paginate(
            skuGroups.all(ctx).filter((group) => !args.status || group.status === args.status),
            args.first,
            args.after,
          ),
      ),
    },
    Mutation: {
      createSkuGroup: rootField(
        (
          {
            input,
          }: { input: { name: string; description?: string | null; skuIds?: string[] | null } },
          ctx: SubgraphContext,
        ) =>
          skuGroups.insert(ctx, {
            name: requireText(input.name, 'name'),
            description: input.description ?? null,
            status: 'ACTIVE',
            skuIds: skuIdsOf(ctx, input.skuIds ?? []),
            optionIds: [],
            mediaIds: [],
            ...stamps(ctx),
          }),
      ),
      updateSkuGroup: rootField(
        (
          { input }: { input: { id: string; name?: string | null; description?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const group = skuGroups.get(ctx, input.id);
          const name = input.name == null ? group.name : requireText(input.name, 'name');
          group.name = name;
          if (input.description !== undefined) group.description = input.description;
          return touch(ctx, group);
        },
      ),
      addSkusToGroup: rootField(({ input }: { input: Membership }, ctx: SubgraphContext) => {
        const group = skuGroups.get(ctx, input.groupId);
        group.skuIds = unique([...group.skuIds, ...skuIdsOf(ctx, input.skuIds)]);
        return touch(ctx, group);
      }),
      removeSkusFromGroup: rootField(({ input }: { input: Membership }, ctx: SubgraphContext) => {
        const group = skuGroups.get(ctx, input.groupId);
        const removed = new Set(input.skuIds);
        group.skuIds = group.skuIds.filter((id) => !removed.has(id));
        return touch(ctx, group);
      }),
      reorderSkuGroup: rootField(({ input }: { input: Membership }, ctx: SubgraphContext) => {
        const group = skuGroups.get(ctx, input.groupId);
        group.skuIds = checkReorder(group.skuIds, input.skuIds, 'skuIds');
        return touch(ctx, group);
      }),
      archiveSkuGroup: rootField((args: Id, ctx: SubgraphContext) => {
        const group = skuGroups.get(ctx, args.id);
        if (group.status === 'ARCHIVED') return group;
        group.status = 'ARCHIVED';
        return touch(ctx, group);
      }),
      unarchiveSkuGroup: rootField((args: Id, ctx: SubgraphContext) => {
        const group = skuGroups.get(ctx, args.id);
        if (group.status !== 'ARCHIVED') {
          throw gqlError('CONFLICT', `SKU group ${group.id} is ${group.status}, not ARCHIVED`);
        }
        group.status = 'ACTIVE';
        return touch(ctx, group);
      }),
      deleteSkuGroup: rootField((args: Id, ctx: SubgraphContext) => skuGroups.remove(ctx, args.id)),
      duplicateSkuGroup: rootField((args: { id: string; name: string }, ctx: SubgraphContext) => {
        const original = skuGroups.get(ctx, args.id);
        return skuGroups.insert(ctx, {
          name: requireText(args.name, 'name'),
          description: original.description,
          status: 'ACTIVE',
          skuIds: [...original.skuIds],
          optionIds: [...original.optionIds],
          mediaIds: [...original.mediaIds],
          ...stamps(ctx),
        });
      }),
    },
  },
};
