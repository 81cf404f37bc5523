/**
 * Round trips through each sub-domain of the catalog subgraph, over HTTP: what a mutation creates a
 * later query returns, updates and deletes change state, and bad input answers the GraphQL errors
 * shape (HTTP 200, `extensions.code` BAD_USER_INPUT / NOT_FOUND / CONFLICT) with nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { subgraphClient } from '../../support/subgraph-client.ts';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const { post: catalog, ok, codes } = subgraphClient(() => sim, 'catalog');

describe('SKUs', () => {
  it('creates, reads, updates, deactivates, archives, unarchives and deletes a SKU', async () => {
    const { createSku } = await ok(
      `mutation($input: CreateSKUInput!) { createSku(input: $input) { id name status tags barcode weight { value unit } } }`,
      {
        input: {
          code: 'LAMP-1',
          name: 'Lantern',
          status: 'ACTIVE',
          barcode: '4006381333931',
          weight: { value: 350 },
          tags: ['Camping', 'camping', 'light'],
          prices: [{ money: { value: 2499, currencyCode: 'USD' } }],
        },
      },
    );
    expect(createSku).toMatchObject({
      name: 'Lantern',
      status: 'ACTIVE',
      tags: ['camping', 'light'],
      barcode: '4006381333931',
      weight: { value: 350, unit: 'LB' }, // the store's default unit
    });
    const id = createSku.id;

    const updated = await ok(
      `mutation { updateSku(input: { id: "${id}", name: "Camp Lantern" }) { name } }`,
    );
    expect(updated.updateSku.name).toBe('Camp Lantern');
    expect((await ok(`{ skuByCode(code: "lamp-1") { id name } }`)).skuByCode).toEqual({
      id,
      name: 'Camp Lantern',
    });

    expect(await codes(`mutation { deleteSku(id: "${id}") { id } }`)).toEqual(['CONFLICT']);
    await ok(`mutation { deactivateSku(id: "${id}") { status } }`);
    await ok(`mutation { archiveSku(id: "${id}") { status } }`);
    expect(await codes(`mutation { updateSku(input: { id: "${id}", name: "x" }) { id } }`)).toEqual(
      ['CONFLICT'],
    );
    expect(
      (await ok(`mutation { unarchiveSku(id: "${id}") { status } }`)).unarchiveSku.status,
    ).toBe('DRAFT');
    expect(await ok(`mutation { deleteSku(id: "${id}") { id deleted } }`)).toEqual({
      deleteSku: { id, deleted: true },
    });
    expect((await ok(`{ sku(id: "${id}") { id } }`)).sku).toBeNull();
  });

  it('rejects a bad barcode and a duplicate one, changing nothing', async () => {
    expect(
      await codes('mutation { setSkuBarcode(skuId: "sku_0005", barcode: "4006381333932") { id } }'),
    ).toEqual(['BAD_USER_INPUT']);
    const taken = await catalog('{ sku(id: "sku_0001") { barcode } }');
    expect(
      await codes(
        `mutation { setSkuBarcode(skuId: "sku_0005", barcode: "${taken.data.sku.barcode}") { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);
    const { sku } = await ok('{ sku(id: "sku_0005") { barcode } }');
    expect(sku.barcode).toMatch(/^\d{13}$/);
  });

  it('duplicates a SKU as a DRAFT with its prices and categories, without its barcode', async () => {
    const { duplicateSku } = await ok(
      'mutation { duplicateSku(input: { id: "sku_0012", code: "TNT-2P-COPY" }) { id status name barcode prices { money { value } } categories { id } } }',
    );
    expect(duplicateSku).toMatchObject({
      status: 'DRAFT',
      name: 'Two-Person Backpacking Tent',
      barcode: null,
      prices: [{ money: { value: 34900 } }],
      categories: [{ id: 'cat_006' }],
    });
  });

  it('renames and deletes a tag store-wide; relates SKUs', async () => {
    const renamed = await ok(
      'mutation { renameSkuTag(from: "snack", to: "trail snack") { tag skuCount } }',
    );
    expect(renamed.renameSkuTag).toEqual({ tag: 'trail snack', skuCount: 2 });
    const filtered = await ok('{ skus(filter: { tag: "trail snack" }) { nodes { id } } }');
    expect(filtered.skus.nodes.map((n: any) => n.id)).toEqual(['sku_0024', 'sku_0026']);
    expect(await codes('mutation { deleteSkuTag(tag: "snack") { skuCount } }')).toEqual([
      'NOT_FOUND',
    ]);

    const related = await ok(
      'mutation { addSkuRelations(input: { skuId: "sku_0020", relatedSkuIds: ["sku_0021"], kind: ACCESSORY }) { related(kind: ACCESSORY) { kind sku { id } } } }',
    );
    expect(related.addSkuRelations.related).toEqual([
      { kind: 'ACCESSORY', sku: { id: 'sku_0021' } },
    ]);
    expect(
      await codes(
        'mutation { addSkuRelations(input: { skuId: "sku_0020", relatedSkuIds: ["sku_0020"], kind: UP_SELL }) { id } }',
      ),
    ).toEqual(['BAD_USER_INPUT']);
  });
});

describe('SKU groups', () => {
  it('creates, reorders, duplicates and deletes a group', async () => {
    const { createSkuGroup } = await ok(
      'mutation { createSkuGroup(input: { name: "Sleep", skuIds: ["sku_0012", "sku_0014"] }) { id skuCount } }',
    );
    const id = createSkuGroup.id;
    expect(createSkuGroup.skuCount).toBe(2);
    expect(
      await codes(
        `mutation { reorderSkuGroup(input: { groupId: "${id}", skuIds: ["sku_0014"] }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);
    const reordered = await ok(
      `mutation { reorderSkuGroup(input: { groupId: "${id}", skuIds: ["sku_0014", "sku_0012"] }) { skus { nodes { id } } } }`,
    );
    expect(reordered.reorderSkuGroup.skus.nodes.map((n: any) => n.id)).toEqual([
      'sku_0014',
      'sku_0012',
    ]);
    const copy = await ok(
      `mutation { duplicateSkuGroup(id: "${id}", name: "Sleep 2") { id skuCount status } }`,
    );
    expect(copy.duplicateSkuGroup).toMatchObject({ skuCount: 2, status: 'ACTIVE' });
    await ok(`mutation { deleteSkuGroup(id: "${id}") { deleted } }`);
    expect((await ok(`{ skuGroup(id: "${id}") { id } }`)).skuGroup).toBeNull();
  });
});

describe('categories', () => {
  it('creates, moves, reorders, merges and deletes categories', async () => {
    const { createCategory } = await ok(
      'mutation { createCategory(input: { name: "Stoves & Fuel", parentId: "cat_005" }) { id slug position parent { id } } }',
    );
    expect(createCategory).toMatchObject({
      slug: 'stoves-fuel',
      position: 2,
      parent: { id: 'cat_005' },
    });
    const id = createCategory.id;
    expect((await ok('{ categoryBySlug(slug: "stoves-fuel") { id } }')).categoryBySlug.id).toBe(id);

    expect(
      await codes('mutation { moveCategory(id: "cat_005", parentId: "cat_006") { id } }'),
    ).toEqual(['BAD_USER_INPUT']);
    const reordered = await ok(
      `mutation { reorderCategories(parentId: "cat_005", categoryIds: ["${id}", "cat_006", "cat_007"]) { id position } }`,
    );
    expect(reordered.reorderCategories.map((c: any) => c.id)).toEqual([id, 'cat_006', 'cat_007']);

    await ok(
      `mutation { assignSkusToCategory(input: { categoryId: "${id}", skuIds: ["sku_0023"] }) { id } }`,
    );
    const merged = await ok(
      `mutation { mergeCategories(sourceId: "${id}", targetId: "cat_007") { id skus(first: 100) { nodes { id } } } }`,
    );
    expect(merged.mergeCategories.skus.nodes.map((n: any) => n.id)).toContain('sku_0023');
    expect((await ok(`{ category(id: "${id}") { id } }`)).category).toBeNull();

    expect(await codes('mutation { deleteCategory(id: "cat_001") { id } }')).toEqual(['CONFLICT']);
    const { createCategory: leaf } = await ok(
      'mutation { createCategory(input: { name: "Leaf" }) { id } }',
    );
    expect(
      (await ok(`mutation { deleteCategory(id: "${leaf.id}") { deleted } }`)).deleteCategory
        .deleted,
    ).toBe(true);
  });
});

describe('options', () => {
  it('creates an option, gives SKUs its values and refuses to delete a value in use', async () => {
    const { createOption } = await ok(
      'mutation { createOption(input: { name: "Capacity", values: ["1P", "2P"] }) { id values { id name position } } }',
    );
    const [one, two] = createOption.values;
    expect(two).toMatchObject({ name: '2P', position: 1 });
    const { setSkuOptionValues } = await ok(
      `mutation { setSkuOptionValues(input: { skuId: "sku_0012", optionValueIds: ["${two.id}"] }) { optionValues { name option { name } } } }`,
    );
    expect(setSkuOptionValues.optionValues).toEqual([{ name: '2P', option: { name: 'Capacity' } }]);
    expect(
      await codes(
        `mutation { setSkuOptionValues(input: { skuId: "sku_0013", optionValueIds: ["${one.id}", "${two.id}"] }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);
    expect(await codes(`mutation { deleteOptionValue(id: "${two.id}") { id } }`)).toEqual([
      'CONFLICT',
    ]);
    const removed = await ok(`mutation { deleteOptionValue(id: "${one.id}") { values { name } } }`);
    expect(removed.deleteOptionValue.values).toEqual([{ name: '2P' }]);
    expect((await ok(`{ option(id: "${createOption.id}") { name } }`)).option.name).toBe(
      'Capacity',
    );
  });
});

describe('prices', () => {
  it('builds a price list, applies it as the effective price, adjusts and archives it', async () => {
    const { createPriceList } = await ok(
      'mutation { createPriceList(input: { name: "Members", currencyCode: "USD" }) { id status inEffect } }',
    );
    expect(createPriceList).toMatchObject({ status: 'DRAFT', inEffect: false });
    const id = createPriceList.id;
    expect(
      await codes(
        `mutation { setPriceListEntries(input: { priceListId: "${id}", entries: [{ skuId: "sku_0020", price: { value: 100, currencyCode: "EUR" } }] }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);
    await ok(
      `mutation { setPriceListEntries(input: { priceListId: "${id}", entries: [{ skuId: "sku_0020", price: { value: 4000, currencyCode: "USD" }, compareAtPrice: { value: 4900, currencyCode: "USD" } }] }) { entryCount } }`,
    );
    const before = await ok(
      `{ effectivePrice(skuId: "sku_0020", priceListId: "${id}") { source price { value } } }`,
    );
    expect(before.effectivePrice).toEqual({ source: 'SKU_LIST', price: { value: 4900 } }); // still DRAFT
    await ok(`mutation { activatePriceList(id: "${id}") { status } }`);
    const after = await ok(
      `{ effectivePrice(skuId: "sku_0020", priceListId: "${id}") { source price { value } compareAtPrice { value } priceList { id } } }`,
    );
    expect(after.effectivePrice).toEqual({
      source: 'PRICE_LIST',
      price: { value: 4000 },
      compareAtPrice: { value: 4900 },
      priceList: { id },
    });
    const adjusted = await ok(
      `mutation { adjustPriceListEntries(input: { priceListId: "${id}", percentage: -10 }) { entries { price { value } } } }`,
    );
    expect(adjusted.adjustPriceListEntries.entries).toEqual([{ price: { value: 3600 } }]);
    await ok(`mutation { archivePriceList(id: "${id}") { status } }`);
    expect(await codes(`mutation { clearPriceListEntries(priceListId: "${id}") { id } }`)).toEqual([
      'CONFLICT',
    ]);
  });

  it('ignores a price list outside its window and falls back to the SALE price', async () => {
    const { effectivePrice } = await ok(
      '{ effectivePrice(skuId: "sku_0009", priceListId: "prl_003") { source price { value } compareAtPrice { value } } }',
    );
    expect(effectivePrice).toEqual({
      source: 'SKU_SALE',
      price: { value: 11900 },
      compareAtPrice: { value: 13500 },
    });
  });
});

describe('inventory', () => {
  it('receives, reserves, transfers and counts stock, with the adjustments that explain it', async () => {
    const received = await ok(
      'mutation { receiveInventory(input: { skuId: "sku_0016", locationId: "loc_001", quantity: 10, reference: "PO-7" }) { onHand available } }',
    );
    const onHand = received.receiveInventory.onHand;
    expect(
      await codes(
        `mutation { reserveInventory(input: { skuId: "sku_0016", locationId: "loc_001", quantity: ${onHand + 1} }) { id } }`,
      ),
    ).toEqual(['CONFLICT']);
    await ok(
      'mutation { reserveInventory(input: { skuId: "sku_0016", locationId: "loc_001", quantity: 2 }) { reserved } }',
    );
    const moved = await ok(
      'mutation { transferInventory(input: { skuId: "sku_0016", fromLocationId: "loc_001", toLocationId: "loc_002", quantity: 3 }) { location { id } onHand reserved available } }',
    );
    expect(moved.transferInventory).toEqual([
      { location: { id: 'loc_001' }, onHand: onHand - 3, reserved: 2, available: onHand - 5 },
      { location: { id: 'loc_002' }, onHand: 3, reserved: 0, available: 3 },
    ]);
    const history = await ok(
      '{ inventoryAdjustments(first: 4, skuId: "sku_0016") { nodes { reason onHandDelta reservedDelta location { id } } } }',
    );
    expect(history.inventoryAdjustments.nodes).toEqual([
      { reason: 'TRANSFER_IN', onHandDelta: 3, reservedDelta: 0, location: { id: 'loc_002' } },
      { reason: 'TRANSFER_OUT', onHandDelta: -3, reservedDelta: 0, location: { id: 'loc_001' } },
      { reason: 'RESERVED', onHandDelta: 0, reservedDelta: 2, location: { id: 'loc_001' } },
      { reason: 'RECEIVED', onHandDelta: 10, reservedDelta: 0, location: { id: 'loc_001' } },
    ]);
    expect(
      await codes(
        'mutation { setInventoryLevel(input: { skuId: "sku_0016", locationId: "loc_001", onHand: 1 }) { id } }',
      ),
    ).toEqual(['BAD_USER_INPUT']); // below the 2 reserved
    const sku = await ok(
      '{ sku(id: "sku_0016") { inventory { onHand reserved available levels { id } } } }',
    );
    expect(sku.sku.inventory).toMatchObject({ onHand: onHand, reserved: 2, available: onHand - 2 });
    expect(sku.sku.inventory.levels).toHaveLength(2);
  });

  it('freezes stock at an inactive location and of an untracked SKU', async () => {
    expect(
      await codes(
        'mutation { receiveInventory(input: { skuId: "sku_0015", locationId: "loc_003", quantity: 1 }) { id } }',
      ),
    ).toEqual(['CONFLICT']);
    expect(
      await codes(
        'mutation { receiveInventory(input: { skuId: "sku_0028", locationId: "loc_001", quantity: 1 }) { id } }',
      ),
    ).toEqual(['CONFLICT']);
    const { createInventoryLocation } = await ok(
      'mutation { createInventoryLocation(input: { name: "Pop-up", kind: RETAIL, address: { line1: "1 Pier", city: "SF", postalCode: "94111", countryCode: "US" } }) { id status } }',
    );
    const id = createInventoryLocation.id;
    await ok(
      `mutation { receiveInventory(input: { skuId: "sku_0011", locationId: "${id}", quantity: 2 }) { id } }`,
    );
    expect(await codes(`mutation { deleteInventoryLocation(id: "${id}") { id } }`)).toEqual([
      'CONFLICT',
    ]);
    await ok(
      `mutation { adjustInventory(input: { skuId: "sku_0011", locationId: "${id}", delta: -2, reason: DAMAGED }) { onHand } }`,
    );
    await ok(`mutation { deactivateInventoryLocation(id: "${id}") { status } }`);
    expect(
      (await ok(`mutation { deleteInventoryLocation(id: "${id}") { deleted } }`))
        .deleteInventoryLocation,
    ).toEqual({
      deleted: true,
    });
  });
});

describe('media', () => {
  it('registers an asset, shows it first on a SKU and takes it off everywhere on delete', async () => {
    expect(
      await codes(
        'mutation { createMediaAsset(input: { url: "http://cdn.example.com/x.jpg" }) { id } }',
      ),
    ).toEqual(['BAD_USER_INPUT']);
    const { createMediaAsset } = await ok(
      'mutation { createMediaAsset(input: { url: "https://cdn.example.com/tarp.jpg", altText: "Tarp" }) { id kind } }',
    );
    const id = createMediaAsset.id;
    expect(createMediaAsset.kind).toBe('IMAGE');
    const attached = await ok(
      `mutation { attachMediaToSku(input: { skuId: "sku_0012", mediaIds: ["${id}"], position: 0 }) { media { id } } }`,
    );
    expect(attached.attachMediaToSku.media.map((m: any) => m.id)).toEqual([
      id,
      'med_004',
      'med_005',
    ]);
    await ok(`mutation { deleteMediaAsset(id: "${id}") { deleted } }`);
    const after = await ok('{ sku(id: "sku_0012") { media { id } } }');
    expect(after.sku.media.map((m: any) => m.id)).toEqual(['med_004', 'med_005']);
  });
});

describe('channel listings', () => {
  const web = COMMERCE_IDS.channelWebA;

  it('publishes only ACTIVE SKUs, schedules and unpublishes', async () => {
    const draft = await ok(
      `{ channelListings(skuId: "sku_0007", channelId: "${web}") { nodes { id status } } }`,
    );
    const [listing] = draft.channelListings.nodes;
    expect(listing.status).toBe('DRAFT');
    expect(await codes(`mutation { publishChannelListing(id: "${listing.id}") { id } }`)).toEqual([
      'CONFLICT',
    ]);

    const { createChannelListing } = await ok(
      `mutation { createChannelListing(input: { skuId: "sku_0014", channelId: "${COMMERCE_IDS.restrictedChannelA}", priceListId: "prl_001" }) { id status priceList { id } } }`,
    );
    expect(createChannelListing).toMatchObject({ status: 'DRAFT', priceList: { id: 'prl_001' } });
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await ok(
      `mutation { scheduleChannelListing(id: "${createChannelListing.id}", publishAt: "${future}") { status publishAt } }`,
    );
    expect(scheduled.scheduleChannelListing).toEqual({ status: 'SCHEDULED', publishAt: future });
    expect(await codes('mutation { deletePriceList(id: "prl_001") { id } }')).toEqual(['CONFLICT']);

    const published = await ok(
      `mutation { publishSkusToChannel(channelId: "${COMMERCE_IDS.restrictedChannelA}", skuIds: ["sku_0014", "sku_0015"]) { sku { id } status } }`,
    );
    expect(published.publishSkusToChannel).toEqual([
      { sku: { id: 'sku_0014' }, status: 'PUBLISHED' },
      { sku: { id: 'sku_0015' }, status: 'PUBLISHED' },
    ]);
    await ok(
      `mutation { unpublishSkusFromChannel(channelId: "${COMMERCE_IDS.restrictedChannelA}", skuIds: ["sku_0015"]) { status } }`,
    );
    const listed = await ok('{ sku(id: "sku_0015") { channelListings { channelId status } } }');
    expect(listed.sku.channelListings).toContainEqual({
      channelId: COMMERCE_IDS.restrictedChannelA,
      status: 'UNPUBLISHED',
    });
  });

  it('unpublishes every listing of a SKU when it is archived', async () => {
    await ok('mutation { archiveSku(id: "sku_0022") { status } }');
    const { sku } = await ok('{ sku(id: "sku_0022") { channelListings { status } } }');
    expect(sku.channelListings).toEqual([{ status: 'UNPUBLISHED' }]);
  });
});

describe('attribute definitions', () => {
  it('checks SKU attributes against their definition and protects values in use', async () => {
    expect(
      await codes(
        'mutation { setSkuAttributes(input: { skuId: "sku_0001", attributes: [{ name: "color", value: "pink" }] }) { id } }',
      ),
    ).toEqual(['BAD_USER_INPUT']);
    const set = await ok(
      'mutation { setSkuAttributes(input: { skuId: "sku_0001", attributes: [{ name: "waterproof", value: "true" }] }) { attributes { name value } missingAttributes { code } } }',
    );
    expect(set.setSkuAttributes.attributes).toContainEqual({ name: 'waterproof', value: 'true' });
    expect(set.setSkuAttributes.missingAttributes).toEqual([]);
    const { sku } = await ok('{ sku(id: "sku_0003") { missingAttributes { code } } }');
    expect(sku.missingAttributes.map((d: any) => d.code)).toEqual(['color', 'fit', 'waterproof']);

    expect(
      await codes(
        'mutation { removeAttributeAllowedValues(id: "atd_001", values: ["slate"]) { id } }',
      ),
    ).toEqual(['CONFLICT']);
    const { createAttributeDefinition } = await ok(
      'mutation { createAttributeDefinition(input: { code: "season", name: "Season", type: SELECT, allowedValues: ["summer", "winter"] }) { id allowedValues } }',
    );
    const id = createAttributeDefinition.id;
    await ok(
      `mutation { setCategoryAttributes(categoryId: "cat_006", attributeDefinitionIds: ["atd_004", "${id}"]) { id } }`,
    );
    const tent = await ok('{ sku(id: "sku_0012") { missingAttributes { code } } }');
    expect(tent.sku.missingAttributes).toEqual([{ code: 'season' }]);
    await ok(`mutation { deleteAttributeDefinition(id: "${id}") { deleted } }`);
    const category = await ok('{ category(id: "cat_006") { attributeDefinitions { code } } }');
    expect(category.category.attributeDefinitions).toEqual([{ code: 'capacity' }]);
  });
});

describe('bulk operations', () => {
  it('runs every item, records the failures, and can be read back and forgotten', async () => {
    const { bulkCreateSkus } = await ok(
      `mutation { bulkCreateSkus(inputs: [
        { code: "BULK-1", name: "Bulk one" },
        { code: "JKT-RIDGE-M", name: "Duplicate code" },
        { code: "BULK-2", name: "Bulk two" }
      ]) { id kind status itemCount succeededCount failedCount results { index id succeeded errorCode } } }`,
    );
    expect(bulkCreateSkus).toMatchObject({
      kind: 'CREATE_SKUS',
      status: 'PARTIALLY_FAILED',
      itemCount: 3,
      succeededCount: 2,
      failedCount: 1,
    });
    expect(bulkCreateSkus.results[1]).toEqual({
      index: 1,
      id: null,
      succeeded: false,
      errorCode: 'BAD_USER_INPUT',
    });
    const created = bulkCreateSkus.results[2].id;
    expect((await ok(`{ sku(id: "${created}") { code } }`)).sku.code).toBe('BULK-2');
    const listed = await ok('{ bulkOperations(first: 1) { nodes { id } totalCount } }');
    expect(listed.bulkOperations.nodes[0].id).toBe(bulkCreateSkus.id);
    expect(await codes('mutation { bulkArchiveSkus(ids: []) { id } }')).toEqual(['BAD_USER_INPUT']);
    await ok(`mutation { deleteBulkOperation(id: "${bulkCreateSkus.id}") { deleted } }`);
    expect(
      (await ok(`{ bulkOperation(id: "${bulkCreateSkus.id}") { id } }`)).bulkOperation,
    ).toBeNull();
  });
});

describe('settings and node', () => {
  it('changes the catalog settings and resolves every node kind', async () => {
    const { updateCatalogSettings } = await ok(
      'mutation { updateCatalogSettings(input: { defaultLowStockThreshold: 50 }) { defaultLowStockThreshold defaultWeightUnit } }',
    );
    expect(updateCatalogSettings).toEqual({
      defaultLowStockThreshold: 50,
      defaultWeightUnit: 'LB',
    });
    const low = await ok(
      '{ inventoryLevels(first: 1, lowStockOnly: true) { nodes { lowStock lowStockThreshold } } }',
    );
    expect(low.inventoryLevels.nodes[0]).toEqual({ lowStock: true, lowStockThreshold: 50 });
    expect(
      await codes(
        'mutation { updateCatalogSettings(input: { defaultLowStockThreshold: -1 }) { updatedAt } }',
      ),
    ).toEqual(['BAD_USER_INPUT']);

    for (const [id, type] of [
      ['opt_001', 'Option'],
      ['prl_001', 'PriceList'],
      ['loc_001', 'InventoryLocation'],
      ['med_001', 'MediaAsset'],
      ['chl_0001', 'ChannelListing'],
      ['atd_001', 'AttributeDefinition'],
      ['blk_001', 'BulkOperation'],
    ]) {
      const { node } = await ok(`{ node(id: "${id}") { __typename id } }`);
      expect(node).toEqual({ __typename: type, id });
    }
  });
});
