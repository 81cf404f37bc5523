/**
 * Inventory: stock locations, the stock level of each SKU at each location, and the adjustments
 * that explain every change of a level (an append-only history, newest first).
 *
 * Rules: a level has `onHand` ≥ 0 units and `reserved` of them promised; `available` is the
 * difference. Stock moves only for a SKU that tracks inventory and at an ACTIVE location
 * (CONFLICT otherwise); a reservation or transfer beyond what is available is a CONFLICT unless the
 * SKU allows backorders (a reservation may then exceed the stock; a transfer never may).
 */
import type {
  AdjustmentReason,
  InventoryAdjustmentRecord,
  InventoryLevelRecord,
  InventoryLocationRecord,
  LocationAddressRecord,
  LocationKind,
  LocationStatus,
  SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { adjustments, catalogSettingsOf, levels, locations, skus } from './catalog.lookups.ts';
import {
  badInput,
  checkCountry,
  checkInt,
  gqlError,
  paginate,
  requireText,
  rootField,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "What a stock location is."
  enum LocationKind {
    "A warehouse that ships orders."
    WAREHOUSE
    "A shop that sells over the counter and may ship."
    RETAIL
    "A supplier that ships on the store's behalf."
    DROPSHIP
  }

  "Whether a location holds stock that can move."
  enum LocationStatus {
    "Stock can be received, moved and reserved."
    ACTIVE
    "Closed: its stock is frozen."
    INACTIVE
  }

  "Why a stock level changed."
  enum AdjustmentReason {
    "Stock arrived."
    RECEIVED
    "A count set the level to what is on the shelf."
    COUNT
    "A correction of an earlier mistake."
    CORRECTION
    "Units were damaged."
    DAMAGED
    "Units went missing."
    LOST
    "Units came back from a customer."
    RETURNED
    "Units arrived from another location."
    TRANSFER_IN
    "Units left for another location."
    TRANSFER_OUT
    "Units were promised to an order."
    RESERVED
    "A promise of units was withdrawn."
    RELEASED
  }

  "The postal address of a stock location."
  type LocationAddress {
    "Street and number."
    line1: String!
    "City."
    city: String!
    "State or province; null when the country has none."
    region: String
    "Postal code."
    postalCode: String!
    "ISO 3166-1 alpha-2 country code."
    countryCode: String!
  }

  "A place that holds stock."
  type InventoryLocation implements Node {
    "The location's id (loc_…)."
    id: ID!
    "Display name, unique in the store."
    name: String!
    "What the location is."
    kind: LocationKind!
    "Whether its stock can move."
    status: LocationStatus!
    "Where it is."
    address: LocationAddress!
    "Stock levels held here, in creation order."
    levels: [InventoryLevel!]!
    "When the location was created (ISO 8601)."
    createdAt: String!
    "When the location last changed (ISO 8601)."
    updatedAt: String!
  }

  "The stock of one SKU at one location."
  type InventoryLevel {
    "The level's id (ivl_…)."
    id: ID!
    "The SKU."
    sku: SKU!
    "The location."
    location: InventoryLocation!
    "Units physically there."
    onHand: Int!
    "Units promised to orders."
    reserved: Int!
    "Units that can still be promised: onHand minus reserved (negative under backorders)."
    available: Int!
    "Available quantity at or below which the level is low: its own, else the store default."
    lowStockThreshold: Int!
    "Whether available is at or below the threshold."
    lowStock: Boolean!
    "When the level last changed (ISO 8601)."
    updatedAt: String!
  }

  "One change of a stock level."
  type InventoryAdjustment {
    "The adjustment's id (iva_…)."
    id: ID!
    "The SKU."
    sku: SKU!
    "The location."
    location: InventoryLocation!
    "Why the level changed."
    reason: AdjustmentReason!
    "Change of onHand (negative for units that left)."
    onHandDelta: Int!
    "Change of reserved."
    reservedDelta: Int!
    "onHand after the change."
    onHandAfter: Int!
    "An outside reference such as a purchase order or order number; null when none."
    reference: String
    "A free-text note; null when none."
    note: String
    "When the change happened (ISO 8601)."
    createdAt: String!
  }

  "A SKU's stock over every location."
  type SKUInventory {
    "Whether the SKU tracks stock at all."
    tracked: Boolean!
    "Whether the SKU may be promised beyond its stock."
    allowBackorder: Boolean!
    "Units on hand over every location."
    onHand: Int!
    "Units reserved over every location."
    reserved: Int!
    "Units available over every location."
    available: Int!
    "The SKU's levels, one per location that holds it."
    levels: [InventoryLevel!]!
  }

  "A stock level in a page of stock levels."
  type InventoryLevelEdge {
    "Where this level is in the list: pass it as after to continue behind it."
    cursor: String!
    "The stock level."
    node: InventoryLevel!
  }

  "A page of stock levels."
  type InventoryLevelConnection {
    "The levels of the page with their cursors."
    edges: [InventoryLevelEdge!]!
    "The levels of the page."
    nodes: [InventoryLevel!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many levels the whole list holds."
    totalCount: Int!
  }

  "An adjustment in a page of adjustments."
  type InventoryAdjustmentEdge {
    "Where this adjustment is in the list: pass it as after to continue behind it."
    cursor: String!
    "The adjustment."
    node: InventoryAdjustment!
  }

  "A page of adjustments."
  type InventoryAdjustmentConnection {
    "The adjustments of the page with their cursors."
    edges: [InventoryAdjustmentEdge!]!
    "The adjustments of the page."
    nodes: [InventoryAdjustment!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many adjustments the whole list holds."
    totalCount: Int!
  }

  "The postal address of a stock location."
  input LocationAddressInput {
    "Street and number, not empty."
    line1: String!
    "City, not empty."
    city: String!
    "State or province."
    region: String
    "Postal code, not empty."
    postalCode: String!
    "ISO 3166-1 alpha-2 country code."
    countryCode: String!
  }

  "A new stock location (ACTIVE)."
  input CreateInventoryLocationInput {
    "Display name, unique in the store."
    name: String!
    "What the location is."
    kind: LocationKind!
    "Where it is."
    address: LocationAddressInput!
  }

  "Changes to a stock location; omitted fields keep their values."
  input UpdateInventoryLocationInput {
    "The location."
    id: String!
    "New display name, unique in the store."
    name: String
    "New kind."
    kind: LocationKind
    "New address (replaces the old one)."
    address: LocationAddressInput
  }

  "A counted quantity: sets onHand and records a COUNT adjustment."
  input SetInventoryLevelInput {
    "The SKU."
    skuId: String!
    "The location; the level is created when missing."
    locationId: String!
    "Units on the shelf; not below the reserved units."
    onHand: Int!
    "A free-text note."
    note: String
  }

  "A change of stock by a number of units."
  input AdjustInventoryInput {
    "The SKU."
    skuId: String!
    "The location; the level is created when missing."
    locationId: String!
    "Units added (positive) or removed (negative); not zero, and onHand stays at or above reserved."
    delta: Int!
    "RECEIVED, CORRECTION, DAMAGED, LOST or RETURNED; transfers, counts and reservations have their own mutations."
    reason: AdjustmentReason!
    "An outside reference."
    reference: String
    "A free-text note."
    note: String
  }

  "Units that arrived at a location."
  input ReceiveInventoryInput {
    "The SKU."
    skuId: String!
    "The location; the level is created when missing."
    locationId: String!
    "Units received, at least 1."
    quantity: Int!
    "An outside reference such as a purchase order."
    reference: String
  }

  "Units to move between two locations of the store."
  input TransferInventoryInput {
    "The SKU."
    skuId: String!
    "Where the units leave; they must be available there."
    fromLocationId: String!
    "Where they arrive; the level is created when missing."
    toLocationId: String!
    "Units to move, at least 1."
    quantity: Int!
    "An outside reference such as a transfer slip."
    reference: String
  }

  "Units to reserve or release at a location."
  input InventoryReservationInput {
    "The SKU."
    skuId: String!
    "The location; it must hold a level of the SKU."
    locationId: String!
    "Units, at least 1."
    quantity: Int!
    "What the units are for, such as an order number."
    reference: String
  }

  "Whether a SKU tracks stock and may be sold beyond it."
  input SetInventoryTrackingInput {
    "The SKU."
    skuId: String!
    "Whether it tracks stock."
    tracked: Boolean!
    "Whether it may be promised beyond its stock; unchanged unless given."
    allowBackorder: Boolean
  }

  extend type SKU {
    "The SKU's stock over every location."
    inventory: SKUInventory!
  }

  extend type Query {
    "A stock location of the store by id; null when there is none."
    inventoryLocation("The location's id." id: String!): InventoryLocation
    "The store's stock locations in creation order."
    inventoryLocations(
      "Only locations in this status."
      status: LocationStatus
    ): [InventoryLocation!]!
    "The store's stock levels in creation order, a page at a time."
    inventoryLevels(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only levels of this SKU."
      skuId: String
      "Only levels at this location."
      locationId: String
      "Only levels at or below their low-stock threshold."
      lowStockOnly: Boolean = false
    ): InventoryLevelConnection!
    "The store's stock adjustments, newest first, a page at a time."
    inventoryAdjustments(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only adjustments of this SKU."
      skuId: String
      "Only adjustments at this location."
      locationId: String
      "Only adjustments for this reason."
      reason: AdjustmentReason
    ): InventoryAdjustmentConnection!
  }

  extend type Mutation {
    "Creates an ACTIVE stock location."
    createInventoryLocation(
      "The new location."
      input: CreateInventoryLocationInput!
    ): InventoryLocation
    "Renames, re-kinds or re-addresses a stock location."
    updateInventoryLocation("The changes." input: UpdateInventoryLocationInput!): InventoryLocation
    "Reopens an INACTIVE stock location."
    activateInventoryLocation("The location." id: String!): InventoryLocation
    "Closes a stock location; refused while it holds reserved units."
    deactivateInventoryLocation("The location." id: String!): InventoryLocation
    "Deletes a stock location that holds no units; its empty levels go with it."
    deleteInventoryLocation("The location." id: String!): DeletePayload
    "Sets a SKU's on-hand units at a location to a counted quantity."
    setInventoryLevel("The count." input: SetInventoryLevelInput!): InventoryLevel
    "Adds or removes units of a SKU at a location, with a reason."
    adjustInventory("The change." input: AdjustInventoryInput!): InventoryLevel
    "Records units that arrived at a location."
    receiveInventory("The arrival." input: ReceiveInventoryInput!): InventoryLevel
    "Moves available units of a SKU from one location to another; answers both levels, source first."
    transferInventory("The move." input: TransferInventoryInput!): [InventoryLevel!]
    "Promises units of a SKU at a location."
    reserveInventory("The reservation." input: InventoryReservationInput!): InventoryLevel
    "Withdraws promised units of a SKU at a location."
    releaseInventory(
      "The release; at most the reserved units."
      input: InventoryReservationInput!
    ): InventoryLevel
    "Sets whether a SKU tracks stock and may be sold beyond it."
    setInventoryTracking("The SKU and its tracking." input: SetInventoryTrackingInput!): SKU
    "Sets or clears the low-stock threshold of one stock level."
    setLowStockThreshold(
      "The SKU."
      skuId: String!
      "The location."
      locationId: String!
      "Available quantity at or below which the level is low; null: the store default."
      threshold: Int
    ): InventoryLevel
    "Deletes an empty stock level (no units on hand or reserved)."
    removeInventoryLevel(
      "The SKU."
      skuId: String!
      "The location."
      locationId: String!
    ): DeletePayload
  }
`;

interface AddressInput {
  line1: string;
  city: string;
  region?: string | null;
  postalCode: string;
  countryCode: string;
}

interface StockInput {
  skuId: string;
  locationId: string;
}

const ADJUSTABLE: readonly AdjustmentReason[] = [
  'RECEIVED',
  'CORRECTION',
  'DAMAGED',
  'LOST',
  'RETURNED',
];

const checkAddress = (address: AddressInput): LocationAddressRecord => ({
  line1: requireText(address.line1, 'address.line1'),
  city: requireText(address.city, 'address.city'),
  region: address.region?.trim() || null,
  postalCode: requireText(address.postalCode, 'address.postalCode'),
  countryCode: checkCountry(address.countryCode, 'address.countryCode'),
});

function checkLocationName(ctx: SubgraphContext, name: string, exceptId?: string): string {
  const text = requireText(name, 'name');
  const taken = locations
    .all(ctx)
    .some((loc) => loc.id !== exceptId && loc.name.toLowerCase() === text.toLowerCase());
  if (taken) throw badInput(`a location named ${text} already exists in this store`, 'name');
  return text;
}

const available = (level: InventoryLevelRecord): number => level.onHand - level.reserved;

const findLevel = (ctx: SubgraphContext, skuId: string, locationId: string) =>
  levels.all(ctx).find((level) => level.skuId === skuId && level.locationId === locationId) ?? null;

/** A tracked SKU and an ACTIVE location an input names (BAD_USER_INPUT / CONFLICT otherwise). */
function stockParties(
  ctx: SubgraphContext,
  skuId: string,
  locationId: string,
  locationField = 'locationId',
): { sku: SkuRecord; location: InventoryLocationRecord } {
  const sku = skus.ref(ctx, skuId, 'skuId');
  const location = locations.ref(ctx, locationId, locationField);
  if (!sku.trackInventory) {
    throw gqlError('CONFLICT', `SKU ${sku.id} does not track inventory`);
  }
  if (location.status !== 'ACTIVE') {
    throw gqlError('CONFLICT', `location ${location.id} is INACTIVE; its stock cannot move`);
  }
  return { sku, location };
}

/** The level of a SKU at a location, created (empty) when missing. */
function levelFor(ctx: SubgraphContext, skuId: string, locationId: string): InventoryLevelRecord {
  return (
    findLevel(ctx, skuId, locationId) ??
    levels.insert(ctx, {
      skuId,
      locationId,
      onHand: 0,
      reserved: 0,
      lowStockThreshold: null,
      updatedAt: stamps(ctx).updatedAt,
    })
  );
}

/** Applies a change to a level and records the adjustment that explains it. */
function record(
  ctx: SubgraphContext,
  level: InventoryLevelRecord,
  change: {
    reason: AdjustmentReason;
    onHandDelta?: number;
    reservedDelta?: number;
    reference?: string | null;
    note?: string | null;
  },
): InventoryLevelRecord {
  level.onHand += change.onHandDelta ?? 0;
  level.reserved += change.reservedDelta ?? 0;
  touch(ctx, level);
  adjustments.insert(ctx, {
    skuId: level.skuId,
    locationId: level.locationId,
    reason: change.reason,
    onHandDelta: change.onHandDelta ?? 0,
    reservedDelta: change.reservedDelta ?? 0,
    onHandAfter: level.onHand,
    reference: change.reference ?? null,
    note: change.note ?? null,
    createdAt: level.updatedAt,
  });
  return level;
}

/** Sets the on-hand units of a level to a counted quantity (setInventoryLevel, the bulk variant). */
export function setLevelRecord(
  ctx: SubgraphContext,
  input: StockInput & { onHand: number; note?: string | null },
): InventoryLevelRecord {
  const { sku, location } = stockParties(ctx, input.skuId, input.locationId);
  const onHand = checkInt(input.onHand, 'onHand');
  const existing = findLevel(ctx, sku.id, location.id);
  if (existing && onHand < existing.reserved) {
    throw badInput(`onHand must not fall below the ${existing.reserved} reserved units`, 'onHand');
  }
  const level = existing ?? levelFor(ctx, sku.id, location.id);
  return record(ctx, level, {
    reason: 'COUNT',
    onHandDelta: onHand - level.onHand,
    note: input.note,
  });
}

function insufficient(level: InventoryLevelRecord | null, wanted: number, what: string) {
  const have = level ? available(level) : 0;
  return gqlError('CONFLICT', `only ${have} unit(s) available; cannot ${what} ${wanted}`, {
    available: have,
  });
}

type Page = { first?: number | null; after?: string | null };

export const inventoryModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    InventoryLocation: {
      levels: (location: InventoryLocationRecord, _args: unknown, ctx: SubgraphContext) =>
        levels.all(ctx).filter((level) => level.locationId === location.id),
    },
    InventoryLevel: {
      sku: (level: InventoryLevelRecord, _args: unknown, ctx: SubgraphContext) =>
        skus.find(ctx, level.skuId),
      location: (level: InventoryLevelRecord, _args: unknown, ctx: SubgraphContext) =>
        locations.find(ctx, level.locationId),
      available: (level: InventoryLevelRecord) => available(level),
      lowStockThreshold: (level: InventoryLevelRecord, _args: unknown, ctx: SubgraphContext) =>
        level.lowStockThreshold ?? catalogSettingsOf(ctx).defaultLowStockThreshold,
      lowStock: (level: InventoryLevelRecord, _args: unknown, ctx: SubgraphContext) =>
        available(level) <=
        (level.lowStockThreshold ?? catalogSettingsOf(ctx).defaultLowStockThreshold),
    },
    InventoryAdjustment: {
      sku: (adjustment: InventoryAdjustmentRecord, _args: unknown, ctx: SubgraphContext) =>
        skus.find(ctx, adjustment.skuId),
      location: (adjustment: InventoryAdjustmentRecord, _args: unknown, ctx: SubgraphContext) =>
        locations.find(ctx, adjustment.locationId),
    },
    SKU: {
      inventory: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) => {
        const own = levels.all(ctx).filter((level) => level.skuId === sku.id);
        const onHand = own.reduce((sum, level) => sum + level.onHand, 0);
        const reserved = own.reduce((sum, level) => sum + level.reserved, 0);
        return {
          tracked: sku.trackInventory,
          allowBackorder: sku.allowBackorder,
          onHand,
          reserved,
          available: onHand - reserved,
          levels: own,
        };
      },
    },
    Query: {
      inventoryLocation: rootField((args: { id: string }, ctx: SubgraphContext) =>
        locations.find(ctx, args.id),
      ),
      inventoryLocations: rootField(
        (args: { status?: LocationStatus | null }, ctx: SubgraphContext) =>
          locations.all(ctx).filter((loc) => !args.status || loc.status === args.status),
      ),
      inventoryLevels: rootField(
        (
          args: Page & {
            skuId?: string | null;
            locationId?: string | null;
            lowStockOnly?: boolean | null;
          },
          ctx: SubgraphContext,
        ) => {
          const threshold = catalogSettingsOf(ctx).defaultLowStockThreshold;
          return paginate(
            levels
              .all(ctx)
              .filter(
                (level) =>
                  (!args.skuId || level.skuId === args.skuId) &&
                  (!args.locationId || level.locationId === args.locationId) &&
                  (!args.lowStockOnly ||
                    available(level) <= (level.lowStockThreshold ?? threshold)),
              ),
            args.first,
            args.after,
          );
        },
      ),
      inventoryAdjustments: rootField(
        (
          args: Page & {
            skuId?: string | null;
            locationId?: string | null;
            reason?: AdjustmentReason | null;
          },
          ctx: SubgraphContext,
        ) =>
          paginate(
            adjustments
              .all(ctx)
              .reverse()
              .filter(
                (adjustment) =>
                  (!args.skuId || adjustment.skuId === args.skuId) &&
                  (!args.locationId || adjustment.locationId === args.locationId) &&
                  (!args.reason || adjustment.reason === args.reason),
              ),
            args.first,
            args.after,
          ),
      ),
    },
    Mutation: {
      createInventoryLocation: rootField(
        (
          { input }: { input: { name: string; kind: LocationKind; address: AddressInput } },
          ctx: SubgraphContext,
        ) =>
          locations.insert(ctx, {
            name: checkLocationName(ctx, input.name),
            kind: input.kind,
            status: 'ACTIVE',
            address: checkAddress(input.address),
            ...stamps(ctx),
          }),
      ),
      updateInventoryLocation: rootField(
        (
          {
            input,
          }: {
            input: {
              id: string;
              name?: string | null;
              kind?: LocationKind | null;
              address?: AddressInput | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const location = locations.get(ctx, input.id);
          const name =
            input.name == null ? location.name : checkLocationName(ctx, input.name, location.id);
          const address = input.address == null ? location.address : checkAddress(input.address);
          Object.assign(location, { name, address, kind: input.kind ?? location.kind });
          return touch(ctx, location);
        },
      ),
      activateInventoryLocation: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const location = locations.get(ctx, args.id);
        if (location.status === 'ACTIVE') return location;
        location.status = 'ACTIVE';
        return touch(ctx, location);
      }),
      deactivateInventoryLocation: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const location = locations.get(ctx, args.id);
        if (location.status === 'INACTIVE') return location;
        const held = levels
          .all(ctx)
          .filter((level) => level.locationId === location.id && level.reserved > 0);
        if (held.length > 0) {
          throw gqlError(
            'CONFLICT',
            `location ${location.id} holds reserved units of ${held.length} SKU(s); release them first`,
            { skuIds: held.map((level) => level.skuId) },
          );
        }
        location.status = 'INACTIVE';
        return touch(ctx, location);
      }),
      deleteInventoryLocation: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const location = locations.get(ctx, args.id);
        const here = levels.all(ctx).filter((level) => level.locationId === location.id);
        const stocked = here.filter((level) => level.onHand !== 0 || level.reserved !== 0);
        if (stocked.length > 0) {
          throw gqlError(
            'CONFLICT',
            `location ${location.id} still holds units of ${stocked.length} SKU(s); move or count them out first`,
            { skuIds: stocked.map((level) => level.skuId) },
          );
        }
        for (const level of here) ctx.state.inventoryLevels.delete(level.id);
        return locations.remove(ctx, location.id);
      }),
      setInventoryLevel: rootField(
        (
          { input }: { input: StockInput & { onHand: number; note?: string | null } },
          ctx: SubgraphContext,
        ) => setLevelRecord(ctx, input),
      ),
      adjustInventory: rootField(
        (
          {
            input,
          }: {
            input: StockInput & {
              delta: number;
              reason: AdjustmentReason;
              reference?: string | null;
              note?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const { sku, location } = stockParties(ctx, input.skuId, input.locationId);
          if (!ADJUSTABLE.includes(input.reason)) {
            throw badInput(
              `reason must be one of ${ADJUSTABLE.join(', ')}; ${input.reason} has its own mutation`,
              'reason',
            );
          }
          if (!Number.isInteger(input.delta) || input.delta === 0) {
            throw badInput('delta must be a non-zero integer', 'delta');
          }
          const existing = findLevel(ctx, sku.id, location.id);
          const after = (existing?.onHand ?? 0) + input.delta;
          if (after < (existing?.reserved ?? 0)) {
            throw badInput(
              `onHand would fall to ${after}, below the ${existing?.reserved ?? 0} reserved units`,
              'delta',
            );
          }
          return record(ctx, existing ?? levelFor(ctx, sku.id, location.id), {
            reason: input.reason,
            onHandDelta: input.delta,
            reference: input.reference,
            note: input.note,
          });
        },
      ),
      receiveInventory: rootField(
        (
          { input }: { input: StockInput & { quantity: number; reference?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const { sku, location } = stockParties(ctx, input.skuId, input.locationId);
          const quantity = checkInt(input.quantity, 'quantity', 1);
          return record(ctx, levelFor(ctx, sku.id, location.id), {
            reason: 'RECEIVED',
            onHandDelta: quantity,
            reference: input.reference,
          });
        },
      ),
      transferInventory: rootField(
        (
          {
            input,
          }: {
            input: {
              skuId: string;
              fromLocationId: string;
              toLocationId: string;
              quantity: number;
              reference?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const { sku, location: from } = stockParties(
            ctx,
            input.skuId,
            input.fromLocationId,
            'fromLocationId',
          );
          const { location: to } = stockParties(
            ctx,
            input.skuId,
            input.toLocationId,
            'toLocationId',
          );
          if (from.id === to.id) {
            throw badInput('fromLocationId and toLocationId must differ', 'toLocationId');
          }
          const quantity = checkInt(input.quantity, 'quantity', 1);
          const source = findLevel(ctx, sku.id, from.id);
          if (!source || available(source) < quantity) throw insufficient(source, quantity, 'move');
          const target = levelFor(ctx, sku.id, to.id);
          const reference = input.reference;
          return [
            record(ctx, source, { reason: 'TRANSFER_OUT', onHandDelta: -quantity, reference }),
            record(ctx, target, { reason: 'TRANSFER_IN', onHandDelta: quantity, reference }),
          ];
        },
      ),
      reserveInventory: rootField(
        (
          { input }: { input: StockInput & { quantity: number; reference?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const { sku, location } = stockParties(ctx, input.skuId, input.locationId);
          const quantity = checkInt(input.quantity, 'quantity', 1);
          const level = findLevel(ctx, sku.id, location.id);
          if (!level) {
            throw badInput(`SKU ${sku.id} has no stock level at ${location.id}`, 'locationId');
          }
          if (!sku.allowBackorder && available(level) < quantity) {
            throw insufficient(level, quantity, 'reserve');
          }
          return record(ctx, level, {
            reason: 'RESERVED',
            reservedDelta: quantity,
            reference: input.reference,
          });
        },
      ),
      releaseInventory: rootField(
        (
          { input }: { input: StockInput & { quantity: number; reference?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const sku = skus.ref(ctx, input.skuId, 'skuId');
          const location = locations.ref(ctx, input.locationId, 'locationId');
          const quantity = checkInt(input.quantity, 'quantity', 1);
          const level = findLevel(ctx, sku.id, location.id);
          if (!level || level.reserved < quantity) {
            throw badInput(
              `only ${level?.reserved ?? 0} unit(s) are reserved; cannot release ${quantity}`,
              'quantity',
            );
          }
          return record(ctx, level, {
            reason: 'RELEASED',
            reservedDelta: -quantity,
            reference: input.reference,
          });
        },
      ),
      setInventoryTracking: rootField(
        (
          {
            input,
          }: { input: { skuId: string; tracked: boolean; allowBackorder?: boolean | null } },
          ctx: SubgraphContext,
        ) => {
          const sku = skus.get(ctx, input.skuId);
          sku.trackInventory = input.tracked;
          sku.allowBackorder = input.allowBackorder ?? sku.allowBackorder;
          return touch(ctx, sku);
        },
      ),
      setLowStockThreshold: rootField(
        (
          args: { skuId: string; locationId: string; threshold?: number | null },
          ctx: SubgraphContext,
        ) => {
          const sku = skus.ref(ctx, args.skuId, 'skuId');
          const location = locations.ref(ctx, args.locationId, 'locationId');
          const level = findLevel(ctx, sku.id, location.id);
          if (!level) {
            throw gqlError('NOT_FOUND', `SKU ${sku.id} has no stock level at ${location.id}`);
          }
          level.lowStockThreshold =
            args.threshold == null ? null : checkInt(args.threshold, 'threshold');
          return touch(ctx, level);
        },
      ),
      removeInventoryLevel: rootField(
        (args: { skuId: string; locationId: string }, ctx: SubgraphContext) => {
          const sku = skus.ref(ctx, args.skuId, 'skuId');
          const location = locations.ref(ctx, args.locationId, 'locationId');
          const level = findLevel(ctx, sku.id, location.id);
          if (!level) {
            throw gqlError('NOT_FOUND', `SKU ${sku.id} has no stock level at ${location.id}`);
          }
          if (level.onHand !== 0 || level.reserved !== 0) {
            throw gqlError(
              'CONFLICT',
              `the level still holds ${level.onHand} unit(s), ${level.reserved} reserved`,
            );
          }
          return levels.remove(ctx, level.id);
        },
      ),
    },
  },
};
