/**
 * SKUs: the sellable items. Lifecycle DRAFT → ACTIVE ⇄ DRAFT, either → ARCHIVED → (unarchive)
 * DRAFT; an archived SKU no longer changes (CONFLICT) except by unarchiving, and only a DRAFT or
 * ARCHIVED SKU can be deleted. Inputs are checked before anything changes, so a rejected mutation
 * leaves the state as it was.
 *
 * The core operations are exported for the bulk operations (catalog-bulk.ts), which run them item
 * by item.
 */
import {
  isValidGtin,
  type CatalogStatus,
  type PriceType,
  type SkuPriceRecord,
  type SkuRecord,
  type SkuRelationKind,
  type WeightUnit,
} from '../fixtures/subgraph.fixtures.ts';
import { checkSkuAttributes } from './catalog-attributes.ts';
import {
  catalogSettingsOf,
  categories,
  changeableSku,
  checkClassificationId,
  filterSkus,
  skuGroups,
  skus,
  storeSkus,
  type SkuFilter,
} from './catalog.lookups.ts';
import {
  badInput,
  checkMoney,
  gqlError,
  paginate,
  requireText,
  rootField,
  unique,
  type MoneyInput,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type DeletePayload, type SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "Which price of a SKU an amount is."
  enum PriceType {
    "The regular selling price."
    LIST
    "A reduced selling price."
    SALE
    "What the store pays for the item; never shown to shoppers."
    COST
  }

  "One base price of a SKU."
  type SKUPrice {
    "Which price this is."
    type: PriceType!
    "The amount."
    money: Money!
  }

  "A name/value fact about a SKU, such as its color or material."
  type SKUAttribute {
    "Attribute name; checked against the attribute definition with this code when there is one."
    name: String!
    "Attribute value."
    value: String!
  }

  "A weight."
  type Weight {
    "Amount, greater than zero."
    value: Float!
    "Unit of the amount."
    unit: WeightUnit!
  }

  "How a SKU relates to another."
  enum SKURelationKind {
    "Often bought together with it."
    CROSS_SELL
    "A better alternative to it."
    UP_SELL
    "Goes with it."
    ACCESSORY
    "Takes its place once it is retired."
    REPLACEMENT
  }

  "Another SKU related to this one."
  type SKURelation {
    "How the other SKU relates to this one."
    kind: SKURelationKind!
    "The related SKU."
    sku: SKU!
  }

  "A stock keeping unit: the sellable item of the catalog."
  type SKU implements Node {
    "The SKU's id (sku_…)."
    id: ID!
    "Merchant code, unique in the store."
    code: String!
    "Display name."
    name: String!
    "Long description; null when none."
    description: String
    "Lifecycle status."
    status: Status!
    "The store the SKU belongs to."
    storeId: ID!
    "Base prices, one per type and currency."
    prices: [SKUPrice!]!
    "The price of one type; the store's currency unless currencyCode is given."
    price(
      "Which price; LIST unless told."
      type: PriceType = LIST
      "ISO 4217 currency code; the store's currency unless given."
      currencyCode: String
    ): Money
    "Categories the SKU is in."
    categories: [Category!]!
    "SKU groups the SKU belongs to."
    groups: [SKUGroup!]!
    "Id of a classification of the tax subgraph."
    taxClassificationId: ID
    "Name/value facts about the SKU."
    attributes: [SKUAttribute!]!
    "GTIN barcode (8, 12, 13 or 14 digits), unique in the store; null when none."
    barcode: String
    "Shipping weight; null when unknown."
    weight: Weight
    "Lower-case labels for search and merchandising."
    tags: [String!]!
    "Related SKUs, all or of one kind."
    related("Only relations of this kind." kind: SKURelationKind): [SKURelation!]!
    "When the SKU was created (ISO 8601)."
    createdAt: String!
    "When the SKU last changed (ISO 8601)."
    updatedAt: String!
  }

  "A SKU in a page of SKUs."
  type SKUEdge {
    "Where this SKU is in the list: pass it as after to continue behind it."
    cursor: String!
    "The SKU."
    node: SKU!
  }

  "A page of SKUs."
  type SKUConnection {
    "The SKUs of the page with their cursors."
    edges: [SKUEdge!]!
    "The SKUs of the page."
    nodes: [SKU!]!
    "Where the page starts and ends."
    pageInfo: PageInfo!
    "How many SKUs the whole list holds."
    totalCount: Int!
  }

  "Narrows a list of SKUs; every given criterion must hold."
  input SKUFilter {
    "Only SKUs in this status."
    status: Status
    "Includes the SKUs of descendant categories."
    categoryId: String
    "Only members of this SKU group."
    groupId: String
    "Case-insensitive match on name or code."
    search: String
    "Only SKUs with one of these codes (case-insensitive)."
    codes: [String!]
    "Only SKUs carrying this tag."
    tag: String
    "Only the SKU with this barcode."
    barcode: String
  }

  "A base price to set."
  input SKUPriceInput {
    "Which price; LIST unless told."
    type: PriceType = LIST
    "The amount."
    money: SimpleMoneyInput!
  }

  "Names one base price: its type and currency."
  input SKUPriceKeyInput {
    "Which price."
    type: PriceType!
    "ISO 4217 currency code."
    currencyCode: String!
  }

  "A name/value fact to set on a SKU."
  input SKUAttributeInput {
    "Attribute name, not empty."
    name: String!
    "Attribute value; must fit the attribute definition with this code when there is one."
    value: String!
  }

  "A weight to set."
  input WeightInput {
    "Amount, greater than zero."
    value: Float!
    "Unit of the amount; the store's default unit unless given."
    unit: WeightUnit
  }

  "A new SKU."
  input CreateSKUInput {
    "Merchant code: 1-64 letters, digits, dots, dashes or underscores, unique in the store."
    code: String!
    "Display name, not empty."
    name: String!
    "Long description."
    description: String
    "DRAFT or ACTIVE; DRAFT unless told."
    status: Status = DRAFT
    "Base prices, at most one per type and currency."
    prices: [SKUPriceInput!]
    "Categories to put the SKU in."
    categoryIds: [String!]
    "A classification of the tax subgraph."
    taxClassificationId: ID
    "Name/value facts."
    attributes: [SKUAttributeInput!]
    "GTIN barcode, unique in the store."
    barcode: String
    "Shipping weight."
    weight: WeightInput
    "Labels; stored lower-case."
    tags: [String!]
  }

  "Changes to a SKU; omitted fields keep their values."
  input UpdateSKUInput {
    "The SKU to change."
    id: String!
    "New merchant code, unique in the store."
    code: String
    "New display name."
    name: String
    "New description; null clears it."
    description: String
    "DRAFT or ACTIVE; archiving is archiveSku."
    status: Status
    "Replaces the SKU's categories."
    categoryIds: [String!]
    "New tax classification; null clears it."
    taxClassificationId: ID
    "Replaces every attribute."
    attributes: [SKUAttributeInput!]
  }

  "Sets the given prices; prices of other (type, currency) pairs stay."
  input UpdateSKUPricesInput {
    "The SKU."
    skuId: String!
    "Prices to set, at least one."
    prices: [SKUPriceInput!]!
  }

  "Prices to take off a SKU."
  input RemoveSKUPricesInput {
    "The SKU."
    skuId: String!
    "The prices to remove; a price the SKU lacks is ignored."
    prices: [SKUPriceKeyInput!]!
  }

  "Attributes to set on a SKU: a name it already has gets the new value, a new name is added."
  input SetSKUAttributesInput {
    "The SKU."
    skuId: String!
    "The attributes to set."
    attributes: [SKUAttributeInput!]!
  }

  "Attributes to take off a SKU."
  input RemoveSKUAttributesInput {
    "The SKU."
    skuId: String!
    "Names of the attributes to remove; a name the SKU lacks is ignored."
    names: [String!]!
  }

  "Categories to add a SKU to or take it out of."
  input SKUCategoriesInput {
    "The SKU."
    skuId: String!
    "The categories."
    categoryIds: [String!]!
  }

  "Tags to add to a SKU or take off it."
  input SKUTagsInput {
    "The SKU."
    skuId: String!
    "The tags: 1-40 letters, digits, spaces or dashes; stored lower-case."
    tags: [String!]!
  }

  "A copy of a SKU: same prices, categories, attributes, tags, weight, media and classification; a new code, no barcode, DRAFT."
  input DuplicateSKUInput {
    "The SKU to copy."
    id: String!
    "Merchant code of the copy, unique in the store."
    code: String!
    "Display name of the copy; the original's name unless given."
    name: String
  }

  "Related SKUs to add to a SKU."
  input SKURelationsInput {
    "The SKU."
    skuId: String!
    "The SKUs it relates to; never itself."
    relatedSkuIds: [String!]!
    "How they relate."
    kind: SKURelationKind!
  }

  "Related SKUs to take off a SKU."
  input RemoveSKURelationsInput {
    "The SKU."
    skuId: String!
    "The related SKUs to remove."
    relatedSkuIds: [String!]!
    "Only relations of this kind; every kind unless given."
    kind: SKURelationKind
  }

  "How many SKUs a store-wide tag change touched."
  type TagChange {
    "The tag after the change (the deleted tag for deleteSkuTag)."
    tag: String!
    "How many SKUs changed."
    skuCount: Int!
  }

  extend type Query {
    "A SKU of the store by id; null when there is none."
    sku("The SKU's id." id: String!): SKU
    "A SKU of the store by merchant code (case-insensitive); null when there is none."
    skuByCode("The merchant code." code: String!): SKU
    "The store's SKUs in creation order, a page at a time."
    skus(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Criteria the SKUs must meet."
      filter: SKUFilter
    ): SKUConnection!
  }

  extend type Mutation {
    "Creates a SKU."
    createSku("The new SKU." input: CreateSKUInput!): SKU
    "Changes a SKU that is not archived."
    updateSku("The changes." input: UpdateSKUInput!): SKU
    "Archives a SKU and unpublishes its channel listings; archiving an archived SKU changes nothing."
    archiveSku("The SKU." id: String!): SKU
    "Brings an archived SKU back as DRAFT."
    unarchiveSku("The SKU." id: String!): SKU
    "Makes a DRAFT SKU ACTIVE (sellable)."
    activateSku("The SKU." id: String!): SKU
    "Takes an ACTIVE SKU back to DRAFT."
    deactivateSku("The SKU." id: String!): SKU
    "Deletes a DRAFT or ARCHIVED SKU with its stock levels, channel listings, price list entries and group memberships."
    deleteSku("The SKU." id: String!): DeletePayload
    "Creates a DRAFT copy of a SKU."
    duplicateSku("What to copy and the copy's code." input: DuplicateSKUInput!): SKU
    "Sets base prices of a SKU; prices of other (type, currency) pairs stay."
    updateSkuPrices("The SKU and its prices." input: UpdateSKUPricesInput!): SKU
    "Takes base prices off a SKU."
    removeSkuPrices("The SKU and the prices." input: RemoveSKUPricesInput!): SKU
    "Sets attributes of a SKU, adding new names and replacing the values of existing ones."
    setSkuAttributes("The SKU and its attributes." input: SetSKUAttributesInput!): SKU
    "Takes attributes off a SKU."
    removeSkuAttributes("The SKU and the attribute names." input: RemoveSKUAttributesInput!): SKU
    "Adds a SKU to categories."
    addSkuToCategories("The SKU and the categories." input: SKUCategoriesInput!): SKU
    "Takes a SKU out of categories."
    removeSkuFromCategories("The SKU and the categories." input: SKUCategoriesInput!): SKU
    "Sets or clears the tax classification of a SKU."
    setSkuTaxClassification(
      "The SKU."
      skuId: String!
      "A classification of the tax subgraph; null clears it."
      taxClassificationId: ID
    ): SKU
    "Adds tags to a SKU."
    addSkuTags("The SKU and the tags." input: SKUTagsInput!): SKU
    "Takes tags off a SKU."
    removeSkuTags("The SKU and the tags." input: SKUTagsInput!): SKU
    "Renames a tag on every SKU of the store that carries it."
    renameSkuTag("The tag to rename." from: String!, "Its new name." to: String!): TagChange
    "Takes a tag off every SKU of the store."
    deleteSkuTag("The tag." tag: String!): TagChange
    "Sets or clears the barcode of a SKU."
    setSkuBarcode(
      "The SKU."
      skuId: String!
      "A GTIN with a valid check digit, unique in the store; null clears it."
      barcode: String
    ): SKU
    "Sets or clears the shipping weight of a SKU."
    setSkuWeight("The SKU." skuId: String!, "The weight; null clears it." weight: WeightInput): SKU
    "Relates SKUs to a SKU."
    addSkuRelations("The SKU, the related SKUs and how they relate." input: SKURelationsInput!): SKU
    "Takes related SKUs off a SKU."
    removeSkuRelations("The SKU and the related SKUs." input: RemoveSKURelationsInput!): SKU
  }
`;

export interface PriceInput {
  type: PriceType;
  money: MoneyInput;
}

export interface AttributeInput {
  name: string;
  value: string;
}

interface WeightInput {
  value: number;
  unit?: WeightUnit | null;
}

export interface CreateSkuInput {
  code: string;
  name: string;
  description?: string | null;
  status?: CatalogStatus | null;
  prices?: PriceInput[] | null;
  categoryIds?: string[] | null;
  taxClassificationId?: string | null;
  attributes?: AttributeInput[] | null;
  barcode?: string | null;
  weight?: WeightInput | null;
  tags?: string[] | null;
}

export interface UpdateSkuInput {
  id: string;
  code?: string | null;
  name?: string | null;
  description?: string | null;
  status?: CatalogStatus | null;
  categoryIds?: string[] | null;
  taxClassificationId?: string | null;
  attributes?: AttributeInput[] | null;
}

export interface UpdateSkuPricesInput {
  skuId: string;
  prices: PriceInput[];
}

const SKU_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TAG = /^[a-z0-9][a-z0-9 -]{0,39}$/;

function checkCode(ctx: SubgraphContext, code: string, exceptId?: string): string {
  if (!SKU_CODE.test(code)) {
    throw badInput('code must be 1-64 letters, digits, dots, dashes or underscores', 'code');
  }
  const taken = storeSkus(ctx).some(
    (sku) => sku.id !== exceptId && sku.code.toLowerCase() === code.toLowerCase(),
  );
  if (taken) throw badInput(`a SKU with code ${code} already exists in this store`, 'code');
  return code;
}

function checkPrices(prices: readonly PriceInput[], field: string): SkuPriceRecord[] {
  const seen = new Set<string>();
  return prices.map((price, index) => {
    const money = checkMoney(price.money, `${field}[${index}].money`);
    const key = `${price.type}/${money.currencyCode}`;
    if (seen.has(key)) {
      throw badInput(`${field} has two ${price.type} prices in ${money.currencyCode}`, field);
    }
    seen.add(key);
    return { type: price.type, value: money.value, currencyCode: money.currencyCode };
  });
}

const checkCategoryIds = (ctx: SubgraphContext, ids: readonly string[]): string[] =>
  categories.refs(ctx, ids, 'categoryIds').map((cat) => cat.id);

function checkBarcode(ctx: SubgraphContext, barcode: string, exceptId?: string): string {
  if (!isValidGtin(barcode)) {
    throw badInput('barcode must be a GTIN-8, -12, -13 or -14 with a valid check digit', 'barcode');
  }
  if (storeSkus(ctx).some((sku) => sku.id !== exceptId && sku.barcode === barcode)) {
    throw badInput(`a SKU with barcode ${barcode} already exists in this store`, 'barcode');
  }
  return barcode;
}

function checkWeight(ctx: SubgraphContext, weight: WeightInput): SkuRecord['weight'] {
  if (!Number.isFinite(weight.value) || weight.value <= 0) {
    throw badInput('weight.value must be greater than zero', 'weight.value');
  }
  return { value: weight.value, unit: weight.unit ?? catalogSettingsOf(ctx).defaultWeightUnit };
}

function checkTag(tag: string, field = 'tags'): string {
  const normal = tag.trim().toLowerCase();
  if (!TAG.test(normal)) {
    throw badInput(`${field} must be 1-40 letters, digits, spaces or dashes`, field);
  }
  return normal;
}

const checkTags = (tags: readonly string[]): string[] => unique(tags.map((tag) => checkTag(tag)));

/** Creates a SKU (createSku, bulkCreateSkus). */
export function createSkuRecord(ctx: SubgraphContext, input: CreateSkuInput): SkuRecord {
  const status = input.status ?? 'DRAFT';
  if (status === 'ARCHIVED') throw badInput('a new SKU cannot be ARCHIVED', 'status');
  return skus.insert(ctx, {
    code: checkCode(ctx, input.code),
    name: requireText(input.name, 'name'),
    description: input.description ?? null,
    status,
    prices: checkPrices(input.prices ?? [], 'prices'),
    categoryIds: checkCategoryIds(ctx, input.categoryIds ?? []),
    taxClassificationId: checkClassificationId(ctx, input.taxClassificationId),
    attributes: checkSkuAttributes(ctx, input.attributes ?? []),
    barcode: input.barcode == null ? null : checkBarcode(ctx, input.barcode),
    weight: input.weight == null ? null : checkWeight(ctx, input.weight),
    tags: checkTags(input.tags ?? []),
    optionValueIds: [],
    relations: [],
    mediaIds: [],
    trackInventory: true,
    allowBackorder: catalogSettingsOf(ctx).allowBackordersByDefault,
    ...stamps(ctx),
  });
}

/** Changes a SKU (updateSku, bulkUpdateSkus). */
export function updateSkuRecord(ctx: SubgraphContext, input: UpdateSkuInput): SkuRecord {
  const sku = changeableSku(ctx, input.id);
  if (input.status === 'ARCHIVED') throw badInput('use archiveSku to archive', 'status');
  // Check everything before changing anything: a failed update leaves the SKU as it was.
  const next: Partial<SkuRecord> = {};
  if (input.code != null) next.code = checkCode(ctx, input.code, sku.id);
  if (input.name != null) next.name = requireText(input.name, 'name');
  if (input.description !== undefined) next.description = input.description;
  if (input.status != null) next.status = input.status;
  if (input.categoryIds != null) next.categoryIds = checkCategoryIds(ctx, input.categoryIds);
  if (input.taxClassificationId !== undefined) {
    next.taxClassificationId = checkClassificationId(ctx, input.taxClassificationId);
  }
  if (input.attributes != null) next.attributes = checkSkuAttributes(ctx, input.attributes);
  Object.assign(sku, next);
  return touch(ctx, sku);
}

/** Archives a SKU and unpublishes its listings (archiveSku, bulkArchiveSkus). */
export function archiveSkuRecord(ctx: SubgraphContext, id: string): SkuRecord {
  const sku = skus.get(ctx, id);
  if (sku.status === 'ARCHIVED') return sku;
  sku.status = 'ARCHIVED';
  for (const listing of ctx.state.channelListings.values()) {
    if (listing.skuId === sku.id && listing.status !== 'DRAFT') {
      listing.status = 'UNPUBLISHED';
      listing.publishAt = null;
      touch(ctx, listing);
    }
  }
  return touch(ctx, sku);
}

/** DRAFT → ACTIVE (activateSku, bulkActivateSkus); an ACTIVE SKU stays as it is. */
export function activateSkuRecord(ctx: SubgraphContext, id: string): SkuRecord {
  const sku = changeableSku(ctx, id);
  if (sku.status === 'ACTIVE') return sku;
  sku.status = 'ACTIVE';
  return touch(ctx, sku);
}

/** Deletes a DRAFT or ARCHIVED SKU and what hangs off it (deleteSku, bulkDeleteSkus). */
export function deleteSkuRecord(ctx: SubgraphContext, id: string): DeletePayload {
  const sku = skus.get(ctx, id);
  if (sku.status === 'ACTIVE') {
    throw gqlError('CONFLICT', `SKU ${sku.id} is ACTIVE; deactivate or archive it first`);
  }
  const { state } = ctx;
  for (const group of skuGroups.all(ctx)) {
    if (group.skuIds.includes(sku.id)) group.skuIds = group.skuIds.filter((s) => s !== sku.id);
  }
  for (const other of storeSkus(ctx)) {
    other.relations = other.relations.filter((relation) => relation.skuId !== sku.id);
  }
  for (const list of state.priceLists.values()) {
    list.entries = list.entries.filter((entry) => entry.skuId !== sku.id);
  }
  for (const [levelId, level] of state.inventoryLevels) {
    if (level.skuId === sku.id) state.inventoryLevels.delete(levelId);
  }
  for (const [listingId, listing] of state.channelListings) {
    if (listing.skuId === sku.id) state.channelListings.delete(listingId);
  }
  return skus.remove(ctx, sku.id);
}

/** Sets base prices (updateSkuPrices, bulkUpdateSkuPrices). */
export function updateSkuPricesRecord(
  ctx: SubgraphContext,
  input: UpdateSkuPricesInput,
): SkuRecord {
  const sku = changeableSku(ctx, input.skuId);
  if (input.prices.length === 0) throw badInput('prices must not be empty', 'prices');
  const prices = checkPrices(input.prices, 'prices');
  const key = (p: { type: string; currencyCode: string }): string => `${p.type}/${p.currencyCode}`;
  const replaced = new Set(prices.map(key));
  sku.prices = [...sku.prices.filter((p) => !replaced.has(key(p))), ...prices];
  return touch(ctx, sku);
}

/** Sets attributes by name (setSkuAttributes, bulkSetSkuAttributes). */
export function setSkuAttributesRecord(
  ctx: SubgraphContext,
  input: { skuId: string; attributes: AttributeInput[] },
): SkuRecord {
  const sku = changeableSku(ctx, input.skuId);
  const given = checkSkuAttributes(ctx, input.attributes);
  const names = new Set(given.map((attr) => attr.name));
  sku.attributes = [...sku.attributes.filter((attr) => !names.has(attr.name)), ...given];
  return touch(ctx, sku);
}

/** Sets or clears the tax classification (setSkuTaxClassification, the bulk variant). */
export function setSkuClassificationRecord(
  ctx: SubgraphContext,
  skuId: string,
  classificationId: string | null | undefined,
): SkuRecord {
  const sku = changeableSku(ctx, skuId);
  sku.taxClassificationId = checkClassificationId(ctx, classificationId);
  return touch(ctx, sku);
}

/** Renames (to a tag) or deletes (to `null`) a tag on every SKU of the store. */
function changeTag(ctx: SubgraphContext, from: string, to: string | null) {
  const tag = checkTag(from, 'from');
  const target = to === null ? null : checkTag(to, 'to');
  const carriers = storeSkus(ctx).filter((sku) => sku.tags.includes(tag));
  if (carriers.length === 0) throw gqlError('NOT_FOUND', `no SKU of this store carries tag ${tag}`);
  for (const sku of carriers) {
    const rest = sku.tags.filter((t) => t !== tag);
    sku.tags = target === null ? rest : unique([...rest, target]);
    touch(ctx, sku);
  }
  return { tag: target ?? tag, skuCount: carriers.length };
}

type Id = { id: string };

export const skuModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    SKU: {
      prices: (sku: SkuRecord) =>
        sku.prices.map((price) => ({
          type: price.type,
          money: { value: price.value, currencyCode: price.currencyCode },
        })),
      price: (
        sku: SkuRecord,
        args: { type: PriceType; currencyCode?: string | null },
        ctx: SubgraphContext,
      ) => {
        const currency = args.currencyCode ?? ctx.state.storeCurrency[sku.storeId];
        const price = sku.prices.find((p) => p.type === args.type && p.currencyCode === currency);
        return price ? { value: price.value, currencyCode: price.currencyCode } : null;
      },
      categories: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) =>
        sku.categoryIds.map((id) => categories.find(ctx, id)).filter((cat) => cat !== null),
      groups: (sku: SkuRecord, _args: unknown, ctx: SubgraphContext) =>
        skuGroups.all(ctx).filter((group) => group.skuIds.includes(sku.id)),
      related: (sku: SkuRecord, args: { kind?: SkuRelationKind | null }, ctx: SubgraphContext) =>
        sku.relations
          .filter((relation) => !args.kind || relation.kind === args.kind)
          .map((relation) => ({ kind: relation.kind, sku: skus.find(ctx, relation.skuId) }))
          .filter((relation) => relation.sku !== null),
    },
    Query: {
      sku: rootField((args: Id, ctx: SubgraphContext) => skus.find(ctx, args.id)),
      skuByCode: rootField(
        (args: { code: string }, ctx: SubgraphContext) =>
          storeSkus(ctx).find((sku) => sku.code.toLowerCase() === args.code.toLowerCase()) ?? null,
      ),
      skus: rootField(
        (
          args: { first?: number | null; after?: string | null; filter?: SkuFilter | null },
          ctx: SubgraphContext,
        ) => paginate(filterSkus(ctx, args.filter), args.first, args.after),
      ),
    },
    Mutation: {
      createSku: rootField(({ input }: { input: CreateSkuInput }, ctx: SubgraphContext) =>
        createSkuRecord(ctx, input),
      ),
      updateSku: rootField(({ input }: { input: UpdateSkuInput }, ctx: SubgraphContext) =>
        updateSkuRecord(ctx, input),
      ),
      archiveSku: rootField((args: Id, ctx: SubgraphContext) => archiveSkuRecord(ctx, args.id)),
      unarchiveSku: rootField((args: Id, ctx: SubgraphContext) => {
        const sku = skus.get(ctx, args.id);
        if (sku.status !== 'ARCHIVED') {
          throw gqlError('CONFLICT', `SKU ${sku.id} is ${sku.status}, not ARCHIVED`);
        }
        sku.status = 'DRAFT';
        return touch(ctx, sku);
      }),
      activateSku: rootField((args: Id, ctx: SubgraphContext) => activateSkuRecord(ctx, args.id)),
      deactivateSku: rootField((args: Id, ctx: SubgraphContext) => {
        const sku = changeableSku(ctx, args.id);
        if (sku.status === 'DRAFT') return sku;
        sku.status = 'DRAFT';
        return touch(ctx, sku);
      }),
      deleteSku: rootField((args: Id, ctx: SubgraphContext) => deleteSkuRecord(ctx, args.id)),
      duplicateSku: rootField(
        ({ input }: { input: { id: string; code: string; name?: string | null } }, ctx) => {
          const original = skus.get(ctx, input.id);
          const copy = createSkuRecord(ctx, {
            code: input.code,
            name: input.name ?? original.name,
            description: original.description,
            status: 'DRAFT',
            taxClassificationId: original.taxClassificationId,
            tags: original.tags,
          });
          copy.prices = original.prices.map((price) => ({ ...price }));
          copy.categoryIds = [...original.categoryIds];
          copy.attributes = original.attributes.map((attr) => ({ ...attr }));
          copy.weight = original.weight ? { ...original.weight } : null;
          copy.mediaIds = [...original.mediaIds];
          copy.trackInventory = original.trackInventory;
          copy.allowBackorder = original.allowBackorder;
          return copy;
        },
      ),
      updateSkuPrices: rootField(
        ({ input }: { input: UpdateSkuPricesInput }, ctx: SubgraphContext) =>
          updateSkuPricesRecord(ctx, input),
      ),
      removeSkuPrices: rootField(
        (
          {
            input,
          }: { input: { skuId: string; prices: { type: PriceType; currencyCode: string }[] } },
          ctx: SubgraphContext,
        ) => {
          const sku = changeableSku(ctx, input.skuId);
          const gone = new Set(input.prices.map((p) => `${p.type}/${p.currencyCode}`));
          sku.prices = sku.prices.filter((p) => !gone.has(`${p.type}/${p.currencyCode}`));
          return touch(ctx, sku);
        },
      ),
      setSkuAttributes: rootField(
        ({ input }: { input: { skuId: string; attributes: AttributeInput[] } }, ctx) =>
          setSkuAttributesRecord(ctx, input),
      ),
      removeSkuAttributes: rootField(
        ({ input }: { input: { skuId: string; names: string[] } }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, input.skuId);
          const names = new Set(input.names);
          sku.attributes = sku.attributes.filter((attr) => !names.has(attr.name));
          return touch(ctx, sku);
        },
      ),
      addSkuToCategories: rootField(
        ({ input }: { input: { skuId: string; categoryIds: string[] } }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, input.skuId);
          sku.categoryIds = unique([
            ...sku.categoryIds,
            ...checkCategoryIds(ctx, input.categoryIds),
          ]);
          return touch(ctx, sku);
        },
      ),
      removeSkuFromCategories: rootField(
        ({ input }: { input: { skuId: string; categoryIds: string[] } }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, input.skuId);
          const gone = new Set(input.categoryIds);
          sku.categoryIds = sku.categoryIds.filter((id) => !gone.has(id));
          return touch(ctx, sku);
        },
      ),
      setSkuTaxClassification: rootField(
        (args: { skuId: string; taxClassificationId?: string | null }, ctx: SubgraphContext) =>
          setSkuClassificationRecord(ctx, args.skuId, args.taxClassificationId),
      ),
      addSkuTags: rootField(
        ({ input }: { input: { skuId: string; tags: string[] } }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, input.skuId);
          sku.tags = unique([...sku.tags, ...checkTags(input.tags)]);
          return touch(ctx, sku);
        },
      ),
      removeSkuTags: rootField(
        ({ input }: { input: { skuId: string; tags: string[] } }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, input.skuId);
          const gone = new Set(input.tags.map((tag) => tag.trim().toLowerCase()));
          sku.tags = sku.tags.filter((tag) => !gone.has(tag));
          return touch(ctx, sku);
        },
      ),
      renameSkuTag: rootField((args: { from: string; to: string }, ctx: SubgraphContext) =>
        changeTag(ctx, args.from, args.to),
      ),
      deleteSkuTag: rootField((args: { tag: string }, ctx: SubgraphContext) =>
        changeTag(ctx, args.tag, null),
      ),
      setSkuBarcode: rootField(
        (args: { skuId: string; barcode?: string | null }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, args.skuId);
          sku.barcode = args.barcode == null ? null : checkBarcode(ctx, args.barcode, sku.id);
          return touch(ctx, sku);
        },
      ),
      setSkuWeight: rootField(
        (args: { skuId: string; weight?: WeightInput | null }, ctx: SubgraphContext) => {
          const sku = changeableSku(ctx, args.skuId);
          sku.weight = args.weight == null ? null : checkWeight(ctx, args.weight);
          return touch(ctx, sku);
        },
      ),
      addSkuRelations: rootField(
        (
          { input }: { input: { skuId: string; relatedSkuIds: string[]; kind: SkuRelationKind } },
          ctx: SubgraphContext,
        ) => {
          const sku = changeableSku(ctx, input.skuId);
          if (input.relatedSkuIds.includes(sku.id)) {
            throw badInput('a SKU cannot relate to itself', 'relatedSkuIds');
          }
          const related = skus.refs(ctx, input.relatedSkuIds, 'relatedSkuIds');
          const known = new Set(sku.relations.map((r) => `${r.kind}/${r.skuId}`));
          for (const other of related) {
            if (!known.has(`${input.kind}/${other.id}`)) {
              sku.relations.push({ skuId: other.id, kind: input.kind });
            }
          }
          return touch(ctx, sku);
        },
      ),
      removeSkuRelations: rootField(
        (
          {
            input,
          }: {
            input: { skuId: string; relatedSkuIds: string[]; kind?: SkuRelationKind | null };
          },
          ctx: SubgraphContext,
        ) => {
          const sku = changeableSku(ctx, input.skuId);
          const gone = new Set(input.relatedSkuIds);
          sku.relations = sku.relations.filter(
            (r) => !(gone.has(r.skuId) && (!input.kind || r.kind === input.kind)),
          );
          return touch(ctx, sku);
        },
      ),
    },
  },
};
