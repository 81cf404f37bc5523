/**
 * Price lists: named sets of SKU prices in one currency (wholesale, a country, a sale), DRAFT →
 * ACTIVE → ARCHIVED, optionally limited to a time window. An archived list no longer changes
 * (CONFLICT). A SKU's base prices live on the SKU (catalog-skus.ts); `effectivePrice` says which
 * price applies: the list's entry while the list is in effect, else the SKU's SALE price, else its
 * LIST price.
 */
import {
  roundMinor,
  type CatalogStatus,
  type PriceListEntryRecord,
  type PriceListRecord,
  type SkuRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { priceLists, skus } from './catalog.lookups.ts';
import {
  badInput,
  checkCurrency,
  checkMoney,
  gqlError,
  optionalInstant,
  paginate,
  requireText,
  rootField,
  storeOf,
  type MoneyInput,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "A named set of SKU prices in one currency: wholesale, a country, a sale."
  type PriceList implements Node {
    "The price list's id (prl_…)."
    id: ID!
    "Display name, unique in the store."
    name: String!
    "ISO 4217 currency of every entry."
    currencyCode: String!
    "DRAFT, ACTIVE or ARCHIVED."
    status: Status!
    "Start of the window the list applies in (ISO 8601); null: from activation."
    startsAt: String
    "End of the window (ISO 8601, exclusive); null: open-ended."
    endsAt: String
    "Whether the list applies now: ACTIVE and inside its window."
    inEffect: Boolean!
    "Its prices, one per SKU, in the order they were set."
    entries: [PriceListEntry!]!
    "How many SKUs the list prices."
    entryCount: Int!
    "When the list was created (ISO 8601)."
    createdAt: String!
    "When the list or its entries last changed (ISO 8601)."
    updatedAt: String!
  }

  "The price of one SKU in a price list."
  type PriceListEntry {
    "The price list."
    priceList: PriceList!
    "The SKU."
    sku: SKU!
    "The selling price."
    price: Money!
    "A higher reference price shown struck through; null when none."
    compareAtPrice: Money
  }

  "Where an effective price comes from."
  enum PriceSource {
    "An entry of the price list asked for."
    PRICE_LIST
    "The SKU's own SALE price."
    SKU_SALE
    "The SKU's own LIST price."
    SKU_LIST
  }

  "The price a SKU sells at, and why."
  type EffectivePrice {
    "The SKU."
    sku: SKU!
    "The selling price."
    price: Money!
    "A higher reference price (the list entry's compare-at price, or LIST under a SALE price); null when none."
    compareAtPrice: Money
    "Where the price comes from."
    source: PriceSource!
    "The price list the price comes from; null for a SKU's own price."
    priceList: PriceList
  }

  "A price list in a page of price lists."
  type PriceListEdge {
    "Where this price list is in the list: pass it as after to continue behind it."
    cursor: String!
    "The price list."
    node: PriceList!
  }

  "A page of price lists."
  type PriceListConnection {
    "The price lists of the page with their cursors."
    edges: [PriceListEdge!]!
    "The price lists of the page."
    nodes: [PriceList!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many price lists the whole list holds."
    totalCount: Int!
  }

  "A new price list (DRAFT)."
  input CreatePriceListInput {
    "Display name, unique in the store."
    name: String!
    "ISO 4217 currency of its entries."
    currencyCode: String!
    "Start of its window (ISO 8601)."
    startsAt: String
    "End of its window (ISO 8601), after startsAt."
    endsAt: String
  }

  "Changes to a price list; omitted fields keep their values."
  input UpdatePriceListInput {
    "The price list."
    id: String!
    "New display name, unique in the store."
    name: String
    "New currency; only while the list has no entries."
    currencyCode: String
  }

  "The window a price list applies in."
  input SchedulePriceListInput {
    "The price list."
    id: String!
    "Start (ISO 8601); null: from activation."
    startsAt: String
    "End (ISO 8601, exclusive), after startsAt; null: open-ended."
    endsAt: String
  }

  "The price of one SKU in a price list."
  input PriceListEntryInput {
    "The SKU."
    skuId: String!
    "The selling price, in the list's currency."
    price: SimpleMoneyInput!
    "A higher reference price, in the list's currency."
    compareAtPrice: SimpleMoneyInput
  }

  "Entries to set in a price list: a SKU it already prices gets the new price."
  input SetPriceListEntriesInput {
    "The price list."
    priceListId: String!
    "The entries, one per SKU."
    entries: [PriceListEntryInput!]!
  }

  "A percentage change to prices of a price list."
  input AdjustPriceListEntriesInput {
    "The price list."
    priceListId: String!
    "Change in percent, -100 to 1000 (-10 takes 10 % off); results round half up, and a compare-at price no longer above its price is cleared."
    percentage: Float!
    "Only these SKUs' entries; every entry unless given."
    skuIds: [String!]
  }

  extend type SKU {
    "This SKU's prices in the store's price lists."
    priceListEntries: [PriceListEntry!]!
  }

  extend type Query {
    "A price list of the store by id; null when there is none."
    priceList("The price list's id." id: String!): PriceList
    "The store's price lists in creation order, a page at a time."
    priceLists(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only lists in this status."
      status: Status
      "Only lists in this currency."
      currencyCode: String
    ): PriceListConnection!
    "The price a SKU sells at now; null when the SKU is unknown or has no price in the currency."
    effectivePrice(
      "The SKU."
      skuId: String!
      "A price list to apply when it is in effect and prices the SKU."
      priceListId: String
      "ISO 4217 currency; the price list's, else the store's, unless given."
      currencyCode: String
    ): EffectivePrice
  }

  extend type Mutation {
    "Creates a DRAFT price list."
    createPriceList("The new price list." input: CreatePriceListInput!): PriceList
    "Renames a price list or changes the currency of an empty one."
    updatePriceList("The changes." input: UpdatePriceListInput!): PriceList
    "Makes a DRAFT price list ACTIVE."
    activatePriceList("The price list." id: String!): PriceList
    "Archives a price list; archiving an archived list changes nothing."
    archivePriceList("The price list." id: String!): PriceList
    "Deletes a price list that no channel listing sells at."
    deletePriceList("The price list." id: String!): DeletePayload
    "Creates a DRAFT copy of a price list with its entries and window."
    duplicatePriceList(
      "The price list to copy."
      id: String!
      "Name of the copy, unique in the store."
      name: String!
    ): PriceList
    "Sets the window a price list applies in."
    schedulePriceList("The price list and its window." input: SchedulePriceListInput!): PriceList
    "Sets SKU prices in a price list."
    setPriceListEntries(
      "The price list and its entries."
      input: SetPriceListEntriesInput!
    ): PriceList
    "Takes SKUs out of a price list; a SKU it does not price is ignored."
    removePriceListEntries(
      "The price list."
      priceListId: String!
      "The SKUs."
      skuIds: [String!]!
    ): PriceList
    "Takes every entry out of a price list."
    clearPriceListEntries("The price list." priceListId: String!): PriceList
    "Raises or lowers prices of a price list by a percentage."
    adjustPriceListEntries(
      "The price list and the change."
      input: AdjustPriceListEntriesInput!
    ): PriceList
  }
`;

interface EntryInput {
  skuId: string;
  price: MoneyInput;
  compareAtPrice?: MoneyInput | null;
}

const money = (value: number, currencyCode: string) => ({ value, currencyCode });

/** Whether a price list applies at `now`. */
export function priceListInEffect(list: PriceListRecord, now: number): boolean {
  if (list.status !== 'ACTIVE') return false;
  if (list.startsAt !== null && Date.parse(list.startsAt) > now) return false;
  return !(list.endsAt !== null && Date.parse(list.endsAt) <= now);
}

function checkListName(ctx: SubgraphContext, name: string, exceptId?: string): string {
  const text = requireText(name, 'name');
  const taken = priceLists
    .all(ctx)
    .some((list) => list.id !== exceptId && list.name.toLowerCase() === text.toLowerCase());
  if (taken) throw badInput(`a price list named ${text} already exists in this store`, 'name');
  return text;
}

function checkWindow(startsAt: string | null, endsAt: string | null): void {
  if (startsAt !== null && endsAt !== null && Date.parse(endsAt) <= Date.parse(startsAt)) {
    throw badInput('endsAt must be after startsAt', 'endsAt');
  }
}

/** A price list that may still change: CONFLICT for an archived one. */
function changeableList(ctx: SubgraphContext, id: string): PriceListRecord {
  const list = priceLists.get(ctx, id);
  if (list.status === 'ARCHIVED') {
    throw gqlError('CONFLICT', `price list ${list.id} is archived and can no longer change`);
  }
  return list;
}

function checkEntries(
  ctx: SubgraphContext,
  list: PriceListRecord,
  entries: readonly EntryInput[],
): PriceListEntryRecord[] {
  const seen = new Set<string>();
  return entries.map((entry, index) => {
    const field = `entries[${index}]`;
    const sku = skus.ref(ctx, entry.skuId, `${field}.skuId`);
    if (seen.has(sku.id)) throw badInput(`${field} repeats SKU ${sku.id}`, `${field}.skuId`);
    seen.add(sku.id);
    const price = checkMoney(entry.price, `${field}.price`);
    const compareAt = entry.compareAtPrice
      ? checkMoney(entry.compareAtPrice, `${field}.compareAtPrice`)
      : null;
    for (const [name, amount] of [
      ['price', price],
      ['compareAtPrice', compareAt],
    ] as const) {
      if (amount && amount.currencyCode !== list.currencyCode) {
        throw badInput(
          `${field}.${name} is in ${amount.currencyCode}, the price list in ${list.currencyCode}`,
          `${field}.${name}.currencyCode`,
        );
      }
    }
    if (compareAt && compareAt.value <= price.value) {
      throw badInput('compareAtPrice must be above price', `${field}.compareAtPrice`);
    }
    return { skuId: sku.id, value: price.value, compareAtValue: compareAt?.value ?? null };
  });
}

type ListEntry = PriceListEntryRecord & { list: PriceListRecord };

const entryOf =
  (list: PriceListRecord) =>
  (entry: PriceListEntryRecord): ListEntry => ({
    ...entry,
    list,
  });

function effectivePrice(
  ctx: SubgraphContext,
  args: { skuId: string; priceListId?: string | null; currencyCode?: string | null },
) {
  const list = args.priceListId ? priceLists.ref(ctx, args.priceListId, 'priceListId') : null;
  const sku = skus.find(ctx, args.skuId);
  if (!sku) return null;
  const currency = checkCurrency(
    args.currencyCode ?? list?.currencyCode ?? ctx.state.storeCurrency[storeOf(ctx)] ?? 'USD',
    'currencyCode',
  );
  if (list && list.currencyCode === currency && priceListInEffect(list, ctx.now())) {
    const entry = list.entries.find((e) => e.skuId === sku.id);
    if (entry) {
      return {
        sku,
        price: money(entry.value, currency),
        compareAtPrice:
          entry.compareAtValue === null ? null : money(entry.compareAtValue, currency),
        source: 'PRICE_LIST',
        priceList: list,
      };
    }
  }
  const base = (type: string) =>
    sku.prices.find((p) => p.type === type && p.currencyCode === currency);
  const sale = base('SALE');
  const listPrice = base('LIST');
  if (sale) {
    return {
      sku,
      price: money(sale.value, currency),
      compareAtPrice: listPrice ? money(listPrice.value, currency) : null,
      source: 'SKU_SALE',
      priceList: null,
    };
  }
  if (listPrice) {
    return {
      sku,
      price: money(listPrice.value, currency),
      compareAtPrice: null,
      source: 'SKU_LIST',
      priceList: null,
    };
  }
  return null;
}

type Id = { id: string };

export const priceModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    PriceList: {
      inEffect: (list: PriceListRecord, _args: unknown, ctx: SubgraphContext) =>
        priceListInEffect(list, ctx.now()),
      entries: (list: PriceListRecord) => list.entries.map(entryOf(list)),
      entryCount: (list: PriceListRecord) => list.entries.length,
    },
    PriceListEntry: {
      priceList: (entry: ListEntry) => entry.list,
      sku: (entry: ListEntry, _args: unknown, ctx: SubgraphContext) => skus.find(ctx, entry.skuId),
      price: (entry: ListEntry) => money(entry.value, entry.list.currencyCode),
      compareAtPrice: (entry: ListEntry) =>
        entry.compareAtValue === null ? null : money(entry.compareAtValue, entry.list.currencyCode),
    },
    SKU: {
      priceListEntries: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) =>
        priceLists
          .all(ctx)
          .flatMap((list) =>
            list.entries.filter((entry) => entry.skuId === sku.id).map(entryOf(list)),
          ),
    },
    Query: {
      priceList: rootField((args: Id, ctx: SubgraphContext) => priceLists.find(ctx, args.id)),
      priceLists: rootField(
        (
          args: {
            first?: number | null;
            after?: string | null;
            status?: CatalogStatus | null;
            currencyCode?: string | null;
          },
          ctx: SubgraphContext,
        ) =>
          paginate(
            priceLists
              .all(ctx)
              .filter(
                (list) =>
                  (!args.status || list.status === args.status) &&
                  (!args.currencyCode || list.currencyCode === args.currencyCode),
              ),
            args.first,
            args.after,
          ),
      ),
      effectivePrice: rootField(
        (
          args: { skuId: string; priceListId?: string | null; currencyCode?: string | null },
          ctx: SubgraphContext,
        ) => effectivePrice(ctx, args),
      ),
    },
    Mutation: {
      createPriceList: rootField(
        (
          {
            input,
          }: {
            input: {
              name: string;
              currencyCode: string;
              startsAt?: string | null;
              endsAt?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const name = checkListName(ctx, input.name);
          const currencyCode = checkCurrency(input.currencyCode, 'currencyCode');
          const startsAt = optionalInstant(input.startsAt, 'startsAt');
          const endsAt = optionalInstant(input.endsAt, 'endsAt');
          checkWindow(startsAt, endsAt);
          return priceLists.insert(ctx, {
            name,
            currencyCode,
            status: 'DRAFT',
            startsAt,
            endsAt,
            entries: [],
            ...stamps(ctx),
          });
        },
      ),
      updatePriceList: rootField(
        (
          { input }: { input: { id: string; name?: string | null; currencyCode?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const list = changeableList(ctx, input.id);
          const name = input.name == null ? list.name : checkListName(ctx, input.name, list.id);
          let currencyCode = list.currencyCode;
          if (input.currencyCode != null && input.currencyCode !== list.currencyCode) {
            currencyCode = checkCurrency(input.currencyCode, 'currencyCode');
            if (list.entries.length > 0) {
              throw gqlError(
                'CONFLICT',
                `price list ${list.id} has ${list.entries.length} entries; clear them before changing its currency`,
              );
            }
          }
          Object.assign(list, { name, currencyCode });
          return touch(ctx, list);
        },
      ),
      activatePriceList: rootField((args: Id, ctx: SubgraphContext) => {
        const list = changeableList(ctx, args.id);
        if (list.status === 'ACTIVE') return list;
        list.status = 'ACTIVE';
        return touch(ctx, list);
      }),
      archivePriceList: rootField((args: Id, ctx: SubgraphContext) => {
        const list = priceLists.get(ctx, args.id);
        if (list.status === 'ARCHIVED') return list;
        list.status = 'ARCHIVED';
        return touch(ctx, list);
      }),
      deletePriceList: rootField((args: Id, ctx: SubgraphContext) => {
        const list = priceLists.get(ctx, args.id);
        const users = [...ctx.state.channelListings.values()].filter(
          (listing) => listing.priceListId === list.id,
        );
        if (users.length > 0) {
          throw gqlError(
            'CONFLICT',
            `price list ${list.id} is used by ${users.length} channel listing(s)`,
            { channelListingIds: users.map((listing) => listing.id) },
          );
        }
        return priceLists.remove(ctx, list.id);
      }),
      duplicatePriceList: rootField((args: { id: string; name: string }, ctx: SubgraphContext) => {
        const original = priceLists.get(ctx, args.id);
        return priceLists.insert(ctx, {
          name: checkListName(ctx, args.name),
          currencyCode: original.currencyCode,
          status: 'DRAFT',
          startsAt: original.startsAt,
          endsAt: original.endsAt,
          entries: original.entries.map((entry) => ({ ...entry })),
          ...stamps(ctx),
        });
      }),
      schedulePriceList: rootField(
        (
          { input }: { input: { id: string; startsAt?: string | null; endsAt?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const list = changeableList(ctx, input.id);
          const startsAt = optionalInstant(input.startsAt, 'startsAt');
          const endsAt = optionalInstant(input.endsAt, 'endsAt');
          checkWindow(startsAt, endsAt);
          Object.assign(list, { startsAt, endsAt });
          return touch(ctx, list);
        },
      ),
      setPriceListEntries: rootField(
        (
          { input }: { input: { priceListId: string; entries: EntryInput[] } },
          ctx: SubgraphContext,
        ) => {
          const list = changeableList(ctx, input.priceListId);
          if (input.entries.length === 0) throw badInput('entries must not be empty', 'entries');
          const entries = checkEntries(ctx, list, input.entries);
          const replaced = new Set(entries.map((entry) => entry.skuId));
          list.entries = [...list.entries.filter((e) => !replaced.has(e.skuId)), ...entries];
          return touch(ctx, list);
        },
      ),
      removePriceListEntries: rootField(
        (args: { priceListId: string; skuIds: string[] }, ctx: SubgraphContext) => {
          const list = changeableList(ctx, args.priceListId);
          const gone = new Set(args.skuIds);
          list.entries = list.entries.filter((entry) => !gone.has(entry.skuId));
          return touch(ctx, list);
        },
      ),
      clearPriceListEntries: rootField((args: { priceListId: string }, ctx: SubgraphContext) => {
        const list = changeableList(ctx, args.priceListId);
        list.entries = [];
        return touch(ctx, list);
      }),
      adjustPriceListEntries: rootField(
        (
          {
            input,
          }: { input: { priceListId: string; percentage: number; skuIds?: string[] | null } },
          ctx: SubgraphContext,
        ) => {
          const list = changeableList(ctx, input.priceListId);
          if (
            !Number.isFinite(input.percentage) ||
            input.percentage < -100 ||
            input.percentage > 1000
          ) {
            throw badInput('percentage must be between -100 and 1000', 'percentage');
          }
          const only = input.skuIds ? new Set(input.skuIds) : null;
          const factor = 1 + input.percentage / 100;
          for (const entry of list.entries) {
            if (only && !only.has(entry.skuId)) continue;
            entry.value = roundMinor(entry.value * factor);
            // A compare-at price no longer above the price means nothing: it goes.
            if (entry.compareAtValue !== null && entry.compareAtValue <= entry.value) {
              entry.compareAtValue = null;
            }
          }
          return touch(ctx, list);
        },
      ),
    },
  },
};
