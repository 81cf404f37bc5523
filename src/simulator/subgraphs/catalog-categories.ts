/**
 * Categories: a tree per store, siblings ordered by position. A slug is unique in the store; a
 * category with children cannot be deleted (CONFLICT), and a move or merge that would make a
 * category its own ancestor is refused (BAD_USER_INPUT).
 */
import type { CategoryRecord } from '../fixtures/subgraph.fixtures.ts';
import {
  categories,
  categoryTree,
  changeableSku,
  filterSkus,
  skus,
  storeCategories,
  storeSkus,
} from './catalog.lookups.ts';
import {
  badInput,
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
  "A node of the store's category tree."
  type Category implements Node {
    "The category's id (cat_…)."
    id: ID!
    "Display name."
    name: String!
    "URL-safe name, unique in the store."
    slug: String!
    "Long description; null when none."
    description: String
    "Order among its siblings, 0 first."
    position: Int!
    "The parent category; null for a top-level one."
    parent: Category
    "The child categories in position order."
    children: [Category!]!
    "SKUs of this category and of its descendants."
    skus(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
    ): SKUConnection!
    "When the category was created (ISO 8601)."
    createdAt: String!
    "When the category last changed (ISO 8601)."
    updatedAt: String!
  }

  "A new category, placed last among its siblings."
  input CreateCategoryInput {
    "Display name, not empty."
    name: String!
    "URL-safe name; made from the name unless given."
    slug: String
    "Long description."
    description: String
    "The parent; top level unless given."
    parentId: String
  }

  "Changes to a category; omitted fields keep their values."
  input UpdateCategoryInput {
    "The category."
    id: String!
    "New display name."
    name: String
    "New slug, unique in the store."
    slug: String
    "New description; null clears it."
    description: String
  }

  "SKUs to put in a category or take out of it."
  input CategorySKUsInput {
    "The category."
    categoryId: String!
    "The SKUs; archived ones cannot change."
    skuIds: [String!]!
  }

  extend type Query {
    "A category of the store by id; null when there is none."
    category("The category's id." id: String!): Category
    "The children of a category in position order, or the top-level categories."
    categories("The parent; the top level unless given." parentId: String): [Category!]!
    "A category of the store by slug; null when there is none."
    categoryBySlug("The slug." slug: String!): Category
  }

  extend type Mutation {
    "Creates a category."
    createCategory("The new category." input: CreateCategoryInput!): Category
    "Renames, re-slugs or re-describes a category."
    updateCategory("The changes." input: UpdateCategoryInput!): Category
    "Moves a category, with its subtree, under another parent (last among its new siblings)."
    moveCategory(
      "The category."
      id: String!
      "The new parent; the top level when null."
      parentId: String
    ): Category
    "Puts the children of a parent in a new order; categoryIds must list each child exactly once."
    reorderCategories(
      "The parent; the top level when null."
      parentId: String
      "The children in the new order."
      categoryIds: [String!]!
    ): [Category!]!
    "Merges a category into another: its SKUs and children move to the target, then it is deleted."
    mergeCategories(
      "The category that goes away."
      sourceId: String!
      "The category that stays; not inside the source's subtree."
      targetId: String!
    ): Category
    "Deletes a category without children; its SKUs leave it."
    deleteCategory("The category." id: String!): DeletePayload
    "Puts SKUs in a category."
    assignSkusToCategory("The category and the SKUs." input: CategorySKUsInput!): Category
    "Takes SKUs out of a category."
    unassignSkusFromCategory("The category and the SKUs." input: CategorySKUsInput!): Category
  }
`;

const slugify = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function checkSlug(ctx: SubgraphContext, text: string, exceptId?: string): string {
  const slug = slugify(text);
  if (slug === '') throw badInput('slug must contain a letter or digit', 'slug');
  if (storeCategories(ctx).some((cat) => cat.id !== exceptId && cat.slug === slug)) {
    throw badInput(`a category with slug ${slug} already exists in this store`, 'slug');
  }
  return slug;
}

const childrenOf = (ctx: SubgraphContext, parentId: string | null): CategoryRecord[] =>
  storeCategories(ctx).filter((cat) => cat.parentId === parentId);

/** Numbers the children of a parent 0, 1, … in their current order. */
const renumber = (ctx: SubgraphContext, parentId: string | null): void => {
  childrenOf(ctx, parentId).forEach((cat, index) => {
    cat.position = index;
  });
};

/** Moves a category under a new parent, last among its siblings. */
function reparent(ctx: SubgraphContext, cat: CategoryRecord, parentId: string | null): void {
  const from = cat.parentId;
  cat.parentId = parentId;
  cat.position = Number.MAX_SAFE_INTEGER;
  renumber(ctx, parentId);
  if (from !== parentId) renumber(ctx, from);
  touch(ctx, cat);
}

/** The SKUs named by an input, each one changeable, checked before any changes. */
const changeableSkus = (ctx: SubgraphContext, ids: readonly string[]) =>
  skus.refs(ctx, ids, 'skuIds').map((sku) => changeableSku(ctx, sku.id));

type Id = { id: string };

export const categoryModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Category: {
      parent: (cat: CategoryRecord, _args: unknown, ctx: SubgraphContext) =>
        categories.find(ctx, cat.parentId),
      children: (cat: CategoryRecord, _args: unknown, ctx: SubgraphContext) =>
        childrenOf(ctx, cat.id),
      skus: (
        cat: CategoryRecord,
        args: { first?: number | null; after?: string | null },
        ctx: SubgraphContext,
      ) => paginate(filterSkus(ctx, { categoryId: cat.id }), args.first, args.after),
    },
    Query: {
      category: rootField((args: Id, ctx: SubgraphContext) => categories.find(ctx, args.id)),
      categories: rootField((args: { parentId?: string | null }, ctx: SubgraphContext) =>
        childrenOf(ctx, args.parentId ?? null),
      ),
      categoryBySlug: rootField(
        (args: { slug: string }, ctx: SubgraphContext) =>
          storeCategories(ctx).find((cat) => cat.slug === args.slug.toLowerCase()) ?? null,
      ),
    },
    Mutation: {
      createCategory: rootField(
        (
          {
            input,
          }: {
            input: {
              name: string;
              slug?: string | null;
              description?: string | null;
              parentId?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const name = requireText(input.name, 'name');
          const slug = checkSlug(ctx, input.slug ?? name);
          const parentId = input.parentId
            ? categories.ref(ctx, input.parentId, 'parentId').id
            : null;
          return categories.insert(ctx, {
            name,
            slug,
            description: input.description ?? null,
            parentId,
            position: childrenOf(ctx, parentId).length,
            imageId: null,
            attributeDefinitionIds: [],
            ...stamps(ctx),
          });
        },
      ),
      updateCategory: rootField(
        (
          {
            input,
          }: {
            input: {
              id: string;
              name?: string | null;
              slug?: string | null;
              description?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const cat = categories.get(ctx, input.id);
          const name = input.name == null ? cat.name : requireText(input.name, 'name');
          const slug = input.slug == null ? cat.slug : checkSlug(ctx, input.slug, cat.id);
          Object.assign(cat, { name, slug });
          if (input.description !== undefined) cat.description = input.description;
          return touch(ctx, cat);
        },
      ),
      moveCategory: rootField(
        (args: { id: string; parentId?: string | null }, ctx: SubgraphContext) => {
          const cat = categories.get(ctx, args.id);
          const parentId = args.parentId ? categories.ref(ctx, args.parentId, 'parentId').id : null;
          if (parentId !== null && categoryTree(ctx, cat.id).has(parentId)) {
            throw badInput('a category cannot move under itself or its descendants', 'parentId');
          }
          if (parentId !== cat.parentId) reparent(ctx, cat, parentId);
          return cat;
        },
      ),
      reorderCategories: rootField(
        (args: { parentId?: string | null; categoryIds: string[] }, ctx: SubgraphContext) => {
          const parentId = args.parentId ? categories.ref(ctx, args.parentId, 'parentId').id : null;
          const current = childrenOf(ctx, parentId).map((cat) => cat.id);
          const order = checkReorder(current, args.categoryIds, 'categoryIds');
          order.forEach((id, position) => {
            const cat = categories.get(ctx, id);
            if (cat.position !== position) {
              cat.position = position;
              touch(ctx, cat);
            }
          });
          return childrenOf(ctx, parentId);
        },
      ),
      mergeCategories: rootField(
        (args: { sourceId: string; targetId: string }, ctx: SubgraphContext) => {
          const source = categories.get(ctx, args.sourceId);
          const target = categories.ref(ctx, args.targetId, 'targetId');
          if (categoryTree(ctx, source.id).has(target.id)) {
            throw badInput('the target must not be the source or inside its subtree', 'targetId');
          }
          for (const sku of storeSkus(ctx)) {
            if (!sku.categoryIds.includes(source.id)) continue;
            sku.categoryIds = unique(
              sku.categoryIds.map((id) => (id === source.id ? target.id : id)),
            );
            touch(ctx, sku);
          }
          for (const child of childrenOf(ctx, source.id)) reparent(ctx, child, target.id);
          categories.remove(ctx, source.id);
          renumber(ctx, source.parentId);
          return touch(ctx, target);
        },
      ),
      deleteCategory: rootField((args: Id, ctx: SubgraphContext) => {
        const cat = categories.get(ctx, args.id);
        const children = childrenOf(ctx, cat.id);
        if (children.length > 0) {
          throw gqlError(
            'CONFLICT',
            `category ${cat.id} has ${children.length} child categories; move or delete them first`,
            { childIds: children.map((child) => child.id) },
          );
        }
        for (const sku of storeSkus(ctx)) {
          if (sku.categoryIds.includes(cat.id)) {
            sku.categoryIds = sku.categoryIds.filter((id) => id !== cat.id);
            touch(ctx, sku);
          }
        }
        const deleted = categories.remove(ctx, cat.id);
        renumber(ctx, cat.parentId);
        return deleted;
      }),
      assignSkusToCategory: rootField(
        ({ input }: { input: { categoryId: string; skuIds: string[] } }, ctx: SubgraphContext) => {
          const cat = categories.get(ctx, input.categoryId);
          for (const sku of changeableSkus(ctx, input.skuIds)) {
            if (sku.categoryIds.includes(cat.id)) continue;
            sku.categoryIds.push(cat.id);
            touch(ctx, sku);
          }
          return cat;
        },
      ),
      unassignSkusFromCategory: rootField(
        ({ input }: { input: { categoryId: string; skuIds: string[] } }, ctx: SubgraphContext) => {
          const cat = categories.get(ctx, input.categoryId);
          for (const sku of changeableSkus(ctx, input.skuIds)) {
            if (!sku.categoryIds.includes(cat.id)) continue;
            sku.categoryIds = sku.categoryIds.filter((id) => id !== cat.id);
            touch(ctx, sku);
          }
          return cat;
        },
      ),
    },
  },
};
