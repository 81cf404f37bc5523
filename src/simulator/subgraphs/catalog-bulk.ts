/**
 * Bulk operations: one request that runs the same SKU operation over up to 100 items. The
 * simulator runs them at once, in order, item by item with the single-item rules (an item that
 * fails leaves no trace and the others still run), and keeps the outcome as a BulkOperation record:
 * COMPLETED when every item succeeded, FAILED when none did, PARTIALLY_FAILED otherwise.
 */
import { GraphQLError } from 'graphql';
import type {
  BulkItemResultRecord,
  BulkOperationKind,
  BulkOperationRecord,
  BulkOperationStatus,
} from '../fixtures/subgraph.fixtures.ts';
import { setLevelRecord } from './catalog-inventory.ts';
import {
  activateSkuRecord,
  archiveSkuRecord,
  createSkuRecord,
  deleteSkuRecord,
  setSkuAttributesRecord,
  setSkuClassificationRecord,
  updateSkuPricesRecord,
  updateSkuRecord,
  type AttributeInput,
  type CreateSkuInput,
  type UpdateSkuInput,
  type UpdateSkuPricesInput,
} from './catalog-skus.ts';
import { bulkOperations } from './catalog.lookups.ts';
import { badInput, isoNow, paginate, rootField, type SubgraphContext } from './subgraph-common.ts';
import type { SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "Which operation a bulk operation ran."
  enum BulkOperationKind {
    "bulkCreateSkus."
    CREATE_SKUS
    "bulkUpdateSkus."
    UPDATE_SKUS
    "bulkArchiveSkus."
    ARCHIVE_SKUS
    "bulkActivateSkus."
    ACTIVATE_SKUS
    "bulkDeleteSkus."
    DELETE_SKUS
    "bulkUpdateSkuPrices."
    UPDATE_SKU_PRICES
    "bulkSetInventoryLevels."
    SET_INVENTORY_LEVELS
    "bulkSetSkuAttributes."
    SET_SKU_ATTRIBUTES
    "bulkSetSkuTaxClassification."
    SET_SKU_TAX_CLASSIFICATION
  }

  "How a bulk operation ended."
  enum BulkOperationStatus {
    "Every item succeeded."
    COMPLETED
    "Some items failed; the others took effect."
    PARTIALLY_FAILED
    "Every item failed."
    FAILED
  }

  "The outcome of one item of a bulk operation."
  type BulkItemResult {
    "Position of the item in the request, 0 first."
    index: Int!
    "The record the item created or changed (the deleted id for a delete); null when it failed before naming one."
    id: ID
    "Whether the item took effect."
    succeeded: Boolean!
    "The error code of a failed item (BAD_USER_INPUT, NOT_FOUND, CONFLICT); null on success."
    errorCode: String
    "Why the item failed; null on success."
    message: String
  }

  "One run of a SKU operation over many items, and its outcome."
  type BulkOperation implements Node {
    "The bulk operation's id (blk_…)."
    id: ID!
    "Which operation ran."
    kind: BulkOperationKind!
    "How it ended."
    status: BulkOperationStatus!
    "How many items the request held."
    itemCount: Int!
    "How many items took effect."
    succeededCount: Int!
    "How many items failed."
    failedCount: Int!
    "The outcome of each item, in request order."
    results: [BulkItemResult!]!
    "When the request arrived (ISO 8601)."
    createdAt: String!
    "When the last item was done (ISO 8601)."
    completedAt: String!
  }

  "A bulk operation in a page of bulk operations."
  type BulkOperationEdge {
    "Where this operation is in the list: pass it as after to continue behind it."
    cursor: String!
    "The bulk operation."
    node: BulkOperation!
  }

  "A page of bulk operations."
  type BulkOperationConnection {
    "The operations of the page with their cursors."
    edges: [BulkOperationEdge!]!
    "The operations of the page."
    nodes: [BulkOperation!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many operations the whole list holds."
    totalCount: Int!
  }

  "Attributes to set on one SKU of a bulk request."
  input BulkSKUAttributesInput {
    "The SKU."
    skuId: String!
    "The attributes to set."
    attributes: [SKUAttributeInput!]!
  }

  extend type Query {
    "A bulk operation of the store by id; null when there is none."
    bulkOperation("The operation's id." id: String!): BulkOperation
    "The store's bulk operations, newest first, a page at a time."
    bulkOperations(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only operations of this kind."
      kind: BulkOperationKind
      "Only operations that ended this way."
      status: BulkOperationStatus
    ): BulkOperationConnection!
  }

  extend type Mutation {
    "Creates SKUs, 1-100 per request."
    bulkCreateSkus("The new SKUs." inputs: [CreateSKUInput!]!): BulkOperation
    "Changes SKUs, 1-100 per request."
    bulkUpdateSkus("The changes, one per SKU." inputs: [UpdateSKUInput!]!): BulkOperation
    "Archives SKUs, 1-100 per request."
    bulkArchiveSkus("The SKUs." ids: [String!]!): BulkOperation
    "Makes DRAFT SKUs ACTIVE, 1-100 per request."
    bulkActivateSkus("The SKUs." ids: [String!]!): BulkOperation
    "Deletes DRAFT or ARCHIVED SKUs, 1-100 per request."
    bulkDeleteSkus("The SKUs." ids: [String!]!): BulkOperation
    "Sets base prices of SKUs, 1-100 per request."
    bulkUpdateSkuPrices(
      "The prices, one entry per SKU."
      inputs: [UpdateSKUPricesInput!]!
    ): BulkOperation
    "Sets counted stock levels, 1-100 per request."
    bulkSetInventoryLevels("The counts." inputs: [SetInventoryLevelInput!]!): BulkOperation
    "Sets attributes of SKUs, 1-100 per request."
    bulkSetSkuAttributes(
      "The attributes, one entry per SKU."
      inputs: [BulkSKUAttributesInput!]!
    ): BulkOperation
    "Sets or clears the tax classification of SKUs, 1-100 per request."
    bulkSetSkuTaxClassification(
      "The SKUs."
      skuIds: [String!]!
      "A classification of the tax subgraph; null clears it."
      taxClassificationId: ID
    ): BulkOperation
    "Forgets a bulk operation record; what it did stays done."
    deleteBulkOperation("The operation." id: String!): DeletePayload
  }
`;

const MAX_ITEMS = 100;

/** Runs `apply` on every item and records the outcome. */
function run<T>(
  ctx: SubgraphContext,
  kind: BulkOperationKind,
  items: readonly T[],
  field: string,
  apply: (item: T) => { id: string },
): BulkOperationRecord {
  if (items.length === 0 || items.length > MAX_ITEMS) {
    throw badInput(`${field} must hold 1 to ${MAX_ITEMS} items`, field);
  }
  const createdAt = isoNow(ctx);
  const results: BulkItemResultRecord[] = items.map((item, index) => {
    try {
      return { index, id: apply(item).id, errorCode: null, message: null };
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      const code = error.extensions.code;
      return {
        index,
        id: null,
        errorCode: typeof code === 'string' ? code : 'BAD_USER_INPUT',
        message: error.message,
      };
    }
  });
  const failed = results.filter((result) => result.errorCode !== null).length;
  const status: BulkOperationStatus =
    failed === 0 ? 'COMPLETED' : failed === results.length ? 'FAILED' : 'PARTIALLY_FAILED';
  return bulkOperations.insert(ctx, {
    kind,
    status,
    results,
    createdAt,
    completedAt: isoNow(ctx),
  });
}

const failedCount = (op: BulkOperationRecord): number =>
  op.results.filter((result) => result.errorCode !== null).length;

export const bulkModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    BulkOperation: {
      itemCount: (op: BulkOperationRecord) => op.results.length,
      failedCount: (op: BulkOperationRecord) => failedCount(op),
      succeededCount: (op: BulkOperationRecord) => op.results.length - failedCount(op),
    },
    BulkItemResult: {
      succeeded: (result: BulkItemResultRecord) => result.errorCode === null,
    },
    Query: {
      bulkOperation: rootField((args: { id: string }, ctx: SubgraphContext) =>
        bulkOperations.find(ctx, args.id),
      ),
      bulkOperations: rootField(
        (
          args: {
            first?: number | null;
            after?: string | null;
            kind?: BulkOperationKind | null;
            status?: BulkOperationStatus | null;
          },
          ctx: SubgraphContext,
        ) =>
          paginate(
            bulkOperations
              .all(ctx)
              .reverse()
              .filter(
                (op) =>
                  (!args.kind || op.kind === args.kind) &&
                  (!args.status || op.status === args.status),
              ),
            args.first,
            args.after,
          ),
      ),
    },
    Mutation: {
      bulkCreateSkus: rootField(({ inputs }: { inputs: CreateSkuInput[] }, ctx: SubgraphContext) =>
        run(ctx, 'CREATE_SKUS', inputs, 'inputs', (input) => createSkuRecord(ctx, input)),
      ),
      bulkUpdateSkus: rootField(({ inputs }: { inputs: UpdateSkuInput[] }, ctx: SubgraphContext) =>
        run(ctx, 'UPDATE_SKUS', inputs, 'inputs', (input) => updateSkuRecord(ctx, input)),
      ),
      bulkArchiveSkus: rootField(({ ids }: { ids: string[] }, ctx: SubgraphContext) =>
        run(ctx, 'ARCHIVE_SKUS', ids, 'ids', (id) => archiveSkuRecord(ctx, id)),
      ),
      bulkActivateSkus: rootField(({ ids }: { ids: string[] }, ctx: SubgraphContext) =>
        run(ctx, 'ACTIVATE_SKUS', ids, 'ids', (id) => activateSkuRecord(ctx, id)),
      ),
      bulkDeleteSkus: rootField(({ ids }: { ids: string[] }, ctx: SubgraphContext) =>
        run(ctx, 'DELETE_SKUS', ids, 'ids', (id) => deleteSkuRecord(ctx, id)),
      ),
      bulkUpdateSkuPrices: rootField(
        ({ inputs }: { inputs: UpdateSkuPricesInput[] }, ctx: SubgraphContext) =>
          run(ctx, 'UPDATE_SKU_PRICES', inputs, 'inputs', (input) =>
            updateSkuPricesRecord(ctx, input),
          ),
      ),
      bulkSetInventoryLevels: rootField(
        (
          {
            inputs,
          }: {
            inputs: { skuId: string; locationId: string; onHand: number; note?: string | null }[];
          },
          ctx: SubgraphContext,
        ) =>
          run(ctx, 'SET_INVENTORY_LEVELS', inputs, 'inputs', (input) => setLevelRecord(ctx, input)),
      ),
      bulkSetSkuAttributes: rootField(
        (
          { inputs }: { inputs: { skuId: string; attributes: AttributeInput[] }[] },
          ctx: SubgraphContext,
        ) =>
          run(ctx, 'SET_SKU_ATTRIBUTES', inputs, 'inputs', (input) =>
            setSkuAttributesRecord(ctx, input),
          ),
      ),
      bulkSetSkuTaxClassification: rootField(
        (args: { skuIds: string[]; taxClassificationId?: string | null }, ctx: SubgraphContext) =>
          run(ctx, 'SET_SKU_TAX_CLASSIFICATION', args.skuIds, 'skuIds', (id) =>
            setSkuClassificationRecord(ctx, id, args.taxClassificationId),
          ),
      ),
      deleteBulkOperation: rootField((args: { id: string }, ctx: SubgraphContext) =>
        bulkOperations.remove(ctx, args.id),
      ),
    },
  },
};
