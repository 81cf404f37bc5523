/**
 * Channel listings: whether a SKU is on sale in a sales channel of the store (a channel of the
 * commerce REST API, named by its uuid; the catalog does not look it up) and at which price list.
 * One listing per SKU and channel. DRAFT → PUBLISHED ⇄ UNPUBLISHED, or SCHEDULED until its
 * `publishAt`, when it reads as PUBLISHED; only an ACTIVE SKU can be published or scheduled
 * (CONFLICT), and archiving a SKU unpublishes its listings.
 */
import type {
  ChannelListingRecord,
  ListingStatus,
  SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { listings, priceLists, skus } from './catalog.lookups.ts';
import {
  badInput,
  checkInstant,
  gqlError,
  isoNow,
  paginate,
  rootField,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "Where a channel listing stands."
  enum ListingStatus {
    "Prepared, never published."
    DRAFT
    "Will be published at publishAt."
    SCHEDULED
    "On sale in the channel."
    PUBLISHED
    "Taken off sale in the channel."
    UNPUBLISHED
  }

  "A SKU's presence in one sales channel."
  type ChannelListing implements Node {
    "The listing's id (chl_…)."
    id: ID!
    "The SKU."
    sku: SKU!
    "The sales channel (a channel id of the commerce REST API)."
    channelId: ID!
    "Where the listing stands; a SCHEDULED listing past its publishAt reads PUBLISHED."
    status: ListingStatus!
    "The price list the channel sells the SKU at; null: the SKU's own prices."
    priceList: PriceList
    "When a SCHEDULED listing goes on sale (ISO 8601); null when not scheduled."
    publishAt: String
    "When the listing last went on sale (ISO 8601); null when never."
    publishedAt: String
    "When the listing was created (ISO 8601)."
    createdAt: String!
    "When the listing last changed (ISO 8601)."
    updatedAt: String!
  }

  "A channel listing in a page of channel listings."
  type ChannelListingEdge {
    "Where this listing is in the list: pass it as after to continue behind it."
    cursor: String!
    "The channel listing."
    node: ChannelListing!
  }

  "A page of channel listings."
  type ChannelListingConnection {
    "The listings of the page with their cursors."
    edges: [ChannelListingEdge!]!
    "The listings of the page."
    nodes: [ChannelListing!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many listings the whole list holds."
    totalCount: Int!
  }

  "A new channel listing (DRAFT)."
  input CreateChannelListingInput {
    "The SKU."
    skuId: String!
    "The sales channel (a uuid); at most one listing per SKU and channel."
    channelId: ID!
    "A price list that is not archived; the SKU's own prices unless given."
    priceListId: String
  }

  "Changes to a channel listing."
  input UpdateChannelListingInput {
    "The listing."
    id: String!
    "A price list that is not archived; null: the SKU's own prices."
    priceListId: String
  }

  extend type SKU {
    "The SKU's listings in sales channels."
    channelListings: [ChannelListing!]!
  }

  extend type Query {
    "A channel listing of the store by id; null when there is none."
    channelListing("The listing's id." id: String!): ChannelListing
    "The store's channel listings in creation order, a page at a time."
    channelListings(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only listings in this channel."
      channelId: ID
      "Only listings of this SKU."
      skuId: String
      "Only listings in this status (as read now)."
      status: ListingStatus
    ): ChannelListingConnection!
  }

  extend type Mutation {
    "Creates a DRAFT listing of a SKU in a channel."
    createChannelListing("The new listing." input: CreateChannelListingInput!): ChannelListing
    "Changes the price list of a channel listing."
    updateChannelListing("The changes." input: UpdateChannelListingInput!): ChannelListing
    "Puts a listing on sale now; the SKU must be ACTIVE."
    publishChannelListing("The listing." id: String!): ChannelListing
    "Takes a listing off sale."
    unpublishChannelListing("The listing." id: String!): ChannelListing
    "Schedules a listing to go on sale later; the SKU must be ACTIVE."
    scheduleChannelListing(
      "The listing."
      id: String!
      "When it goes on sale (ISO 8601), in the future."
      publishAt: String!
    ): ChannelListing
    "Deletes a channel listing."
    deleteChannelListing("The listing." id: String!): DeletePayload
    "Puts SKUs on sale in a channel, creating the listings they lack; every SKU must be ACTIVE."
    publishSkusToChannel(
      "The sales channel (a uuid)."
      channelId: ID!
      "The SKUs."
      skuIds: [String!]!
    ): [ChannelListing!]
    "Takes SKUs off sale in a channel; a SKU without a listing there is ignored."
    unpublishSkusFromChannel(
      "The sales channel (a uuid)."
      channelId: ID!
      "The SKUs."
      skuIds: [String!]!
    ): [ChannelListing!]
  }
`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkChannelId(channelId: string): string {
  if (!UUID.test(channelId)) throw badInput('channelId must be a uuid', 'channelId');
  return channelId.toLowerCase();
}

/** A listing's status as read at `now`: SCHEDULED past its publishAt is PUBLISHED. */
const isDue = (listing: ChannelListingRecord, now: number): boolean =>
  listing.status === 'SCHEDULED' &&
  listing.publishAt !== null &&
  Date.parse(listing.publishAt) <= now;

const statusAt = (listing: ChannelListingRecord, now: number): ListingStatus =>
  isDue(listing, now) ? 'PUBLISHED' : listing.status;

function publishable(ctx: SubgraphContext, skuId: string): SkuRecord {
  const sku = skus.find(ctx, skuId);
  if (!sku || sku.status !== 'ACTIVE') {
    throw gqlError(
      'CONFLICT',
      `SKU ${skuId} is ${sku?.status ?? 'missing'}; only ACTIVE SKUs go on sale`,
    );
  }
  return sku;
}

function checkPriceList(ctx: SubgraphContext, id: string | null | undefined): string | null {
  if (id === null || id === undefined) return null;
  const list = priceLists.ref(ctx, id, 'priceListId');
  if (list.status === 'ARCHIVED')
    throw badInput(`price list ${list.id} is archived`, 'priceListId');
  return list.id;
}

const listingOf = (ctx: SubgraphContext, skuId: string, channelId: string) =>
  listings.all(ctx).find((l) => l.skuId === skuId && l.channelId === channelId) ?? null;

function publish(ctx: SubgraphContext, listing: ChannelListingRecord): ChannelListingRecord {
  publishable(ctx, listing.skuId);
  if (statusAt(listing, ctx.now()) === 'PUBLISHED') return listing;
  listing.status = 'PUBLISHED';
  listing.publishAt = null;
  listing.publishedAt = isoNow(ctx);
  return touch(ctx, listing);
}

function unpublish(ctx: SubgraphContext, listing: ChannelListingRecord): ChannelListingRecord {
  if (listing.status === 'UNPUBLISHED') return listing;
  if (isDue(listing, ctx.now())) listing.publishedAt = listing.publishAt;
  listing.status = 'UNPUBLISHED';
  listing.publishAt = null;
  return touch(ctx, listing);
}

export const channelModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    ChannelListing: {
      sku: (listing: ChannelListingRecord, _args: unknown, ctx: SubgraphContext) =>
        skus.find(ctx, listing.skuId),
      status: (listing: ChannelListingRecord, _args: unknown, ctx: SubgraphContext) =>
        statusAt(listing, ctx.now()),
      priceList: (listing: ChannelListingRecord, _args: unknown, ctx: SubgraphContext) =>
        priceLists.find(ctx, listing.priceListId),
      publishAt: (listing: ChannelListingRecord, _args: unknown, ctx: SubgraphContext) =>
        isDue(listing, ctx.now()) ? null : listing.publishAt,
      publishedAt: (listing: ChannelListingRecord, _args: unknown, ctx: SubgraphContext) =>
        isDue(listing, ctx.now()) ? listing.publishAt : listing.publishedAt,
    },
    SKU: {
      channelListings: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) =>
        listings.all(ctx).filter((listing) => listing.skuId === sku.id),
    },
    Query: {
      channelListing: rootField((args: { id: string }, ctx: SubgraphContext) =>
        listings.find(ctx, args.id),
      ),
      channelListings: rootField(
        (
          args: {
            first?: number | null;
            after?: string | null;
            channelId?: string | null;
            skuId?: string | null;
            status?: ListingStatus | null;
          },
          ctx: SubgraphContext,
        ) =>
          paginate(
            listings
              .all(ctx)
              .filter(
                (listing) =>
                  (!args.channelId || listing.channelId === args.channelId.toLowerCase()) &&
                  (!args.skuId || listing.skuId === args.skuId) &&
                  (!args.status || statusAt(listing, ctx.now()) === args.status),
              ),
            args.first,
            args.after,
          ),
      ),
    },
    Mutation: {
      createChannelListing: rootField(
        (
          { input }: { input: { skuId: string; channelId: string; priceListId?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const sku = skus.ref(ctx, input.skuId, 'skuId');
          const channelId = checkChannelId(input.channelId);
          const priceListId = checkPriceList(ctx, input.priceListId);
          if (listingOf(ctx, sku.id, channelId)) {
            throw badInput(`SKU ${sku.id} is already listed in channel ${channelId}`, 'channelId');
          }
          return listings.insert(ctx, {
            skuId: sku.id,
            channelId,
            status: 'DRAFT',
            priceListId,
            publishAt: null,
            publishedAt: null,
            ...stamps(ctx),
          });
        },
      ),
      updateChannelListing: rootField(
        ({ input }: { input: { id: string; priceListId?: string | null } }, ctx) => {
          const listing = listings.get(ctx, input.id);
          if (input.priceListId !== undefined) {
            listing.priceListId = checkPriceList(ctx, input.priceListId);
          }
          return touch(ctx, listing);
        },
      ),
      publishChannelListing: rootField((args: { id: string }, ctx: SubgraphContext) =>
        publish(ctx, listings.get(ctx, args.id)),
      ),
      unpublishChannelListing: rootField((args: { id: string }, ctx: SubgraphContext) =>
        unpublish(ctx, listings.get(ctx, args.id)),
      ),
      scheduleChannelListing: rootField(
        (args: { id: string; publishAt: string }, ctx: SubgraphContext) => {
          const listing = listings.get(ctx, args.id);
          const publishAt = checkInstant(args.publishAt, 'publishAt');
          if (Date.parse(publishAt) <= ctx.now()) {
            throw badInput('publishAt must be in the future', 'publishAt');
          }
          publishable(ctx, listing.skuId);
          if (isDue(listing, ctx.now())) listing.publishedAt = listing.publishAt;
          listing.status = 'SCHEDULED';
          listing.publishAt = publishAt;
          return touch(ctx, listing);
        },
      ),
      deleteChannelListing: rootField((args: { id: string }, ctx: SubgraphContext) =>
        listings.remove(ctx, args.id),
      ),
      publishSkusToChannel: rootField(
        (args: { channelId: string; skuIds: string[] }, ctx: SubgraphContext) => {
          const channelId = checkChannelId(args.channelId);
          const targets = skus.refs(ctx, args.skuIds, 'skuIds');
          for (const sku of targets) publishable(ctx, sku.id);
          return targets.map((sku) =>
            publish(
              ctx,
              listingOf(ctx, sku.id, channelId) ??
                listings.insert(ctx, {
                  skuId: sku.id,
                  channelId,
                  status: 'DRAFT',
                  priceListId: null,
                  publishAt: null,
                  publishedAt: null,
                  ...stamps(ctx),
                }),
            ),
          );
        },
      ),
      unpublishSkusFromChannel: rootField(
        (args: { channelId: string; skuIds: string[] }, ctx: SubgraphContext) => {
          const channelId = checkChannelId(args.channelId);
          return skus
            .refs(ctx, args.skuIds, 'skuIds')
            .map((sku) => listingOf(ctx, sku.id, channelId))
            .filter((listing) => listing !== null)
            .map((listing) => unpublish(ctx, listing));
        },
      ),
    },
  },
};
