/**
 * Media: images, videos and 3D models by https URL (the simulator stores the URL; nothing is
 * uploaded). An asset can be shown on several SKUs and groups and as a category image; SKUs and
 * groups keep their media in display order, the first being the primary one. Deleting an asset
 * takes it off everything that shows it.
 */
import type {
  CategoryRecord,
  MediaKind,
  MediaRecord,
  SkuGroupRecord,
  SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { categories, changeableSku, media, skuGroups, storeSkus } from './catalog.lookups.ts';
import {
  badInput,
  checkHttpsUrl,
  checkReorder,
  paginate,
  rootField,
  unique,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "What a media asset is."
  enum MediaKind {
    "A still image."
    IMAGE
    "A video."
    VIDEO
    "A 3D model."
    MODEL_3D
  }

  "An image, video or 3D model shown with SKUs, groups or categories."
  type MediaAsset implements Node {
    "The asset's id (med_…)."
    id: ID!
    "Where the file is served (https)."
    url: String!
    "Text that describes the asset to someone who cannot see it; null when none."
    altText: String
    "What the asset is."
    kind: MediaKind!
    "SKUs that show it."
    skus: [SKU!]!
    "When the asset was created (ISO 8601)."
    createdAt: String!
    "When the asset last changed (ISO 8601)."
    updatedAt: String!
  }

  "A media asset in a page of media assets."
  type MediaAssetEdge {
    "Where this asset is in the list: pass it as after to continue behind it."
    cursor: String!
    "The media asset."
    node: MediaAsset!
  }

  "A page of media assets."
  type MediaAssetConnection {
    "The assets of the page with their cursors."
    edges: [MediaAssetEdge!]!
    "The assets of the page."
    nodes: [MediaAsset!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many assets the whole list holds."
    totalCount: Int!
  }

  "A new media asset."
  input CreateMediaAssetInput {
    "Where the file is served; must be https."
    url: String!
    "Text that describes the asset."
    altText: String
    "What the asset is; IMAGE unless told."
    kind: MediaKind = IMAGE
  }

  "Changes to a media asset; omitted fields keep their values."
  input UpdateMediaAssetInput {
    "The asset."
    id: String!
    "New https URL."
    url: String
    "New alt text; null clears it."
    altText: String
  }

  "Media to show on a SKU."
  input AttachSKUMediaInput {
    "The SKU."
    skuId: String!
    "The assets, in order; one already shown stays where it is."
    mediaIds: [String!]!
    "Where to insert them, 0 first; at the end unless given."
    position: Int
  }

  extend type SKU {
    "Media of the SKU in display order; the first is the primary one."
    media: [MediaAsset!]!
  }

  extend type SKUGroup {
    "Media of the group in display order."
    media: [MediaAsset!]!
  }

  extend type Category {
    "The category's image; null when none."
    image: MediaAsset
  }

  extend type Query {
    "A media asset of the store by id; null when there is none."
    mediaAsset("The asset's id." id: String!): MediaAsset
    "The store's media assets in creation order, a page at a time."
    mediaAssets(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only assets of this kind."
      kind: MediaKind
      "Only assets shown on this SKU."
      skuId: String
    ): MediaAssetConnection!
  }

  extend type Mutation {
    "Registers a media asset by URL."
    createMediaAsset("The new asset." input: CreateMediaAssetInput!): MediaAsset
    "Changes the URL or alt text of a media asset."
    updateMediaAsset("The changes." input: UpdateMediaAssetInput!): MediaAsset
    "Deletes a media asset and takes it off every SKU, group and category."
    deleteMediaAsset("The asset." id: String!): DeletePayload
    "Shows media on a SKU."
    attachMediaToSku("The SKU, the assets and where they go." input: AttachSKUMediaInput!): SKU
    "Takes media off a SKU; an asset it does not show is ignored."
    detachMediaFromSku("The SKU." skuId: String!, "The assets." mediaIds: [String!]!): SKU
    "Puts a SKU's media in a new order; mediaIds must list each of them exactly once."
    reorderSkuMedia(
      "The SKU."
      skuId: String!
      "Its media in the new order."
      mediaIds: [String!]!
    ): SKU
    "Shows media on a SKU group, after the media it already shows."
    attachMediaToSkuGroup(
      "The group."
      groupId: String!
      "The assets, in order."
      mediaIds: [String!]!
    ): SKUGroup
    "Takes media off a SKU group; an asset it does not show is ignored."
    detachMediaFromSkuGroup(
      "The group."
      groupId: String!
      "The assets."
      mediaIds: [String!]!
    ): SKUGroup
    "Sets or clears the image of a category."
    setCategoryImage(
      "The category."
      categoryId: String!
      "An IMAGE asset; null clears the image."
      mediaId: String
    ): Category
  }
`;

const mediaIdsOf = (ctx: SubgraphContext, ids: readonly string[]): string[] =>
  media.refs(ctx, ids, 'mediaIds').map((asset) => asset.id);

const shown = (ctx: SubgraphContext, ids: readonly string[]): MediaRecord[] =>
  ids.map((id) => media.find(ctx, id)).filter((asset) => asset !== null);

export const mediaModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    MediaAsset: {
      skus: (asset: MediaRecord, _args: unknown, ctx: SubgraphContext) =>
        storeSkus(ctx).filter((sku) => sku.mediaIds.includes(asset.id)),
    },
    SKU: {
      media: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) => shown(ctx, sku.mediaIds),
    },
    SKUGroup: {
      media: (group: SkuGroupRecord, _args: unknown, ctx: SubgraphContext) =>
        shown(ctx, group.mediaIds),
    },
    Category: {
      image: (cat: CategoryRecord, _args: unknown, ctx: SubgraphContext) =>
        media.find(ctx, cat.imageId),
    },
    Query: {
      mediaAsset: rootField((args: { id: string }, ctx: SubgraphContext) =>
        media.find(ctx, args.id),
      ),
      mediaAssets: rootField(
        (
          args: {
            first?: number | null;
            after?: string | null;
            kind?: MediaKind | null;
            skuId?: string | null;
          },
          ctx: SubgraphContext,
        ) => {
          const on = args.skuId ? (storeSkus(ctx).find((s) => s.id === args.skuId) ?? null) : null;
          return paginate(
            media
              .all(ctx)
              .filter(
                (asset) =>
                  (!args.kind || asset.kind === args.kind) &&
                  (!args.skuId || (on?.mediaIds.includes(asset.id) ?? false)),
              ),
            args.first,
            args.after,
          );
        },
      ),
    },
    Mutation: {
      createMediaAsset: rootField(
        (
          { input }: { input: { url: string; altText?: string | null; kind?: MediaKind | null } },
          ctx: SubgraphContext,
        ) =>
          media.insert(ctx, {
            url: checkHttpsUrl(input.url, 'url'),
            altText: input.altText?.trim() || null,
            kind: input.kind ?? 'IMAGE',
            ...stamps(ctx),
          }),
      ),
      updateMediaAsset: rootField(
        (
          { input }: { input: { id: string; url?: string | null; altText?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const asset = media.get(ctx, input.id);
          const url = input.url == null ? asset.url : checkHttpsUrl(input.url, 'url');
          asset.url = url;
          if (input.altText !== undefined) asset.altText = input.altText?.trim() || null;
          return touch(ctx, asset);
        },
      ),
      deleteMediaAsset: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const asset = media.get(ctx, args.id);
        for (const sku of storeSkus(ctx)) {
          sku.mediaIds = sku.mediaIds.filter((id) => id !== asset.id);
        }
        for (const group of skuGroups.all(ctx)) {
          group.mediaIds = group.mediaIds.filter((id) => id !== asset.id);
        }
        for (const cat of categories.all(ctx)) {
          if (cat.imageId === asset.id) cat.imageId = null;
        }
        return media.remove(ctx, asset.id);
      }),
      attachMediaToSku: rootField(
        (
          { input }: { input: { skuId: string; mediaIds: string[]; position?: number | null } },
          ctx: SubgraphContext,
        ) => {
          const sku = changeableSku(ctx, input.skuId);
          const added = mediaIdsOf(ctx, input.mediaIds).filter((id) => !sku.mediaIds.includes(id));
          const position = input.position ?? sku.mediaIds.length;
          if (!Number.isInteger(position) || position < 0 || position > sku.mediaIds.length) {
            throw badInput(`position must be between 0 and ${sku.mediaIds.length}`, 'position');
          }
          sku.mediaIds.splice(position, 0, ...added);
          return touch(ctx, sku);
        },
      ),
      detachMediaFromSku: rootField(
        (args: { skuId: string; mediaIds: string[] }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, args.skuId);
          const gone = new Set(args.mediaIds);
          sku.mediaIds = sku.mediaIds.filter((id) => !gone.has(id));
          return touch(ctx, sku);
        },
      ),
      reorderSkuMedia: rootField(
        (args: { skuId: string; mediaIds: string[] }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, args.skuId);
          sku.mediaIds = checkReorder(sku.mediaIds, args.mediaIds, 'mediaIds');
          return touch(ctx, sku);
        },
      ),
      attachMediaToSkuGroup: rootField(
        (args: { groupId: string; mediaIds: string[] }, ctx: SubgraphContext) => {
          const group = skuGroups.get(ctx, args.groupId);
          group.mediaIds = unique([...group.mediaIds, ...mediaIdsOf(ctx, args.mediaIds)]);
          return touch(ctx, group);
        },
      ),
      detachMediaFromSkuGroup: rootField(
        (args: { groupId: string; mediaIds: string[] }, ctx: SubgraphContext) => {
          const group = skuGroups.get(ctx, args.groupId);
          const gone = new Set(args.mediaIds);
          group.mediaIds = group.mediaIds.filter((id) => !gone.has(id));
          return touch(ctx, group);
        },
      ),
      setCategoryImage: rootField(
        (args: { categoryId: string; mediaId?: string | null }, ctx: SubgraphContext) => {
          const cat = categories.get(ctx, args.categoryId);
          if (args.mediaId == null) {
            cat.imageId = null;
          } else {
            const asset = media.ref(ctx, args.mediaId, 'mediaId');
            if (asset.kind !== 'IMAGE') {
              throw badInput(`media asset ${asset.id} is a ${asset.kind}, not an IMAGE`, 'mediaId');
            }
            cat.imageId = asset.id;
          }
          return touch(ctx, cat);
        },
      ),
    },
  },
};
