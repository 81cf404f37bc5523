/** The simulator's commerce REST operations (commerce document), over a real socket. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { STORE_A, STORE_B } from '../../../src/simulator/accounts.ts';
import {
  CANARY_CARD_NUMBER,
  CANARY_CRYPTOGRAM,
  CANARY_CV_DATA,
  CANARY_PIN,
  CANARY_TRACK1,
  CANARY_TRACK2,
  CANARY_VALUES,
  COMMERCE_IDS,
  createCommerceState,
  STORE_A_CUSTOMER_COUNT,
  STORE_A_TRANSACTION_COUNT,
  STORE_B_TRANSACTION_COUNT,
  type CommerceChannel as Channel,
  type CommerceCustomer as Customer,
  type CommerceTransaction as Txn,
} from '../../../src/simulator/fixtures/commerce.fixtures.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '9f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b';
const STORE_A_PATH = `/v1/commerce/stores/${STORE_A}`;
const TXNS_A = `/v2/commerce/stores/${STORE_A}/transactions`;

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const get = (path: string, token = 'demo-token', headers?: Record<string, string>) =>
  sim.call('GET', path, { token, headers });

const expectFieldError = (
  res: { status: number; body: { code?: string; fields?: Array<{ path: string }> } },
  path: string,
  code = 'INVALID_FORMAT',
): void => {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe(code);
  expect((res.body.fields ?? []).map((f) => f.path)).toContain(path);
};

/** Every transaction of a store, walking `next` links. */
async function allTransactions(storePath: string, token = 'demo-token'): Promise<Txn[]> {
  const items: Txn[] = [];
  let href: string | undefined = `${storePath}?pageSize=100`;
  while (href) {
    const res = await get(href, token);
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    href = res.body.links.find((l: { rel: string }) => l.rel === 'next')?.href;
  }
  return items;
}

describe('stores and attributes', () => {
  it('returns the caller’s store', async () => {
    const res = await get(STORE_A_PATH);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ storeId: STORE_A, status: 'ACTIVE', currency: 'USD' });
    expect(res.body.address.countryCode).toBe('US');
    expect(typeof res.body.createdAt).toBe('string');
    const other = await get(`/v1/commerce/stores/${STORE_B}`, 'demo-other');
    expect(other.status).toBe(200);
    expect(other.body.currency).toBe('EUR');
  });

  it('hides another account’s store (404) and rejects a malformed id (400)', async () => {
    const hidden = await get(STORE_A_PATH, 'demo-other');
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('NOT_FOUND');
    expect((await get(`/v1/commerce/stores/${STORE_B}`)).status).toBe(404);
    expect((await get(`/v1/commerce/stores/${UNKNOWN_ID}`)).status).toBe(404);
    expectFieldError(await get('/v1/commerce/stores/not-a-uuid'), '$.storeId');
  });

  it('returns attributes whose value is any JSON', async () => {
    const color = await get(`${STORE_A_PATH}/attributes/brandColor`);
    expect(color.status).toBe(200);
    expect(color.body).toEqual({
      name: 'brandColor',
      value: '#1E6FD9',
      updatedAt: expect.any(String),
    });
    expect((await get(`${STORE_A_PATH}/attributes/returnPolicyDays`)).body.value).toBe(30);
    const shipping = await get(`${STORE_A_PATH}/attributes/shipping`);
    expect(shipping.body.value).toMatchObject({ carriers: ['UPS', 'USPS'] });
    const missing = await get(`${STORE_A_PATH}/attributes/noSuchAttribute`);
    expect(missing.status).toBe(404);
    expect((await get(`${STORE_A_PATH}/attributes/brandColor`, 'demo-other')).status).toBe(404);
  });

  it('answers 401 without a token', async () => {
    const res = await sim.call('GET', STORE_A_PATH);
    expect(res.status).toBe(401);
  });
});

describe('channels', () => {
  it('lists only the caller’s channels, ordered by channelId', async () => {
    const res = await get('/v1/commerce/channels');
    expect(res.status).toBe(200);
    const items = res.body.items as Channel[];
    const ofA = items.filter((c) => c.registeredStores.some((s) => s.storeId === STORE_A));
    expect(ofA.length).toBeGreaterThanOrEqual(5);
    expect(items.every((c) => UUID.test(c.channelId))).toBe(true);
    const ids = items.map((c) => c.channelId);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain(COMMERCE_IDS.restrictedChannelA);
    expect(ids).not.toContain(COMMERCE_IDS.channelWebB);

    const other = await get('/v1/commerce/channels', 'demo-other');
    expect((other.body.items as Channel[]).map((c) => c.channelId)).toContain(
      COMMERCE_IDS.channelWebB,
    );
    expect(other.body.items.length).toBeGreaterThanOrEqual(1);
    expect(other.body.items.length).toBeLessThanOrEqual(2);
  });

  it('pages with limit and marker', async () => {
    const all = (await get('/v1/commerce/channels')).body.items as Channel[];
    const first = await get('/v1/commerce/channels?limit=2');
    expect(first.body.items).toEqual(all.slice(0, 2));
    const second = await get(
      `/v1/commerce/channels?limit=2&marker=${first.body.items[1].channelId}`,
    );
    expect(second.body.items).toEqual(all.slice(2, 4));
    expectFieldError(await get('/v1/commerce/channels?limit=0'), '$.limit', 'INVALID_FORMAT');
  });

  it('get-by-id answers 401 for a channel the list shows (the documented quirk)', async () => {
    const ok = await get(`/v1/commerce/channels/${COMMERCE_IDS.channelWebA}`);
    expect(ok.status).toBe(200);
    expect(ok.body.channelId).toBe(COMMERCE_IDS.channelWebA);

    const restricted = await get(`/v1/commerce/channels/${COMMERCE_IDS.restrictedChannelA}`);
    expect(restricted.status).toBe(401);
    expect(restricted.body.code).toBe('UNAUTHORIZED');
    expect(typeof restricted.body.message).toBe('string');

    // The workaround: list with the store filter and pick by channelId.
    const listed = await get(`/v1/commerce/channels?registeredStores.storeId=${STORE_A}`);
    expect(listed.status).toBe(200);
    const found = listed.body.items.find(
      (c: Channel) => c.channelId === COMMERCE_IDS.restrictedChannelA,
    );
    expect(found).toMatchObject({ type: 'MARKETPLACE', registeredStores: [{ storeId: STORE_A }] });
  });

  it('get-by-id: another account’s channel is 401, unknown 404, malformed 400', async () => {
    expect((await get(`/v1/commerce/channels/${COMMERCE_IDS.channelWebB}`)).status).toBe(401);
    expect(
      (await get(`/v1/commerce/channels/${COMMERCE_IDS.channelWebB}`, 'demo-other')).status,
    ).toBe(200);
    expect((await get(`/v1/commerce/channels/${UNKNOWN_ID}`)).status).toBe(404);
    expectFieldError(await get('/v1/commerce/channels/xyz'), '$.channelId');
  });

  it('filters by registeredStores.storeId', async () => {
    const ofB = await get(`/v1/commerce/channels?registeredStores.storeId=${STORE_B}`);
    expect(ofB.body.items).toEqual([]);
    const bad = await get('/v1/commerce/channels?registeredStores.storeId=nope');
    expectFieldError(bad, "$['registeredStores.storeId']");
  });
});

describe('customers (reads)', () => {
  const path = `${STORE_A_PATH}/customers`;

  it('walks every page until a page is shorter than limit', async () => {
    const seen: Customer[] = [];
    let marker: string | undefined;
    let pages = 0;
    for (;;) {
      const res = await get(`${path}?limit=10${marker ? `&marker=${marker}` : ''}`);
      expect(res.status).toBe(200);
      const items = res.body.items as Customer[];
      seen.push(...items);
      pages += 1;
      if (items.length < 10) break;
      marker = items.at(-1)?.customerId;
    }
    expect(seen.length).toBe(STORE_A_CUSTOMER_COUNT);
    expect(seen.length).toBeGreaterThanOrEqual(34);
    expect(pages).toBe(Math.floor(STORE_A_CUSTOMER_COUNT / 10) + 1);
    const ids = seen.map((c) => c.customerId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
    expect(seen[0]).toMatchObject({
      customerId: COMMERCE_IDS.firstCustomerA,
      storeId: STORE_A,
      email: expect.stringContaining('@'),
      addresses: expect.any(Array),
      tags: expect.any(Array),
    });
  });

  it('uses a default limit of 20', async () => {
    const res = await get(path);
    expect(res.body.items).toHaveLength(20);
    expect(Object.keys(res.body)).toEqual(['items']);
  });

  it('restarts from the first page on an invalid marker', async () => {
    const first = (await get(`${path}?limit=5`)).body.items;
    for (const marker of [UNKNOWN_ID, 'garbage']) {
      const res = await get(`${path}?limit=5&marker=${marker}`);
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual(first);
    }
  });

  it('rejects a bad limit with fields', async () => {
    for (const limit of ['0', '101', 'abc', '-1', '1.5']) {
      expectFieldError(await get(`${path}?limit=${limit}`), '$.limit');
    }
  });

  it('reads one customer; unknown 404, malformed 400, other store 404', async () => {
    const res = await get(`${path}/${COMMERCE_IDS.firstCustomerA}`);
    expect(res.status).toBe(200);
    expect(res.body.customerId).toBe(COMMERCE_IDS.firstCustomerA);
    expect((await get(`${path}/${UNKNOWN_ID}`)).status).toBe(404);
    expectFieldError(await get(`${path}/12`), '$.customerId');
    expect((await get(`${path}/${COMMERCE_IDS.firstCustomerA}`, 'demo-other')).status).toBe(404);
    const ofB = await get(`/v1/commerce/stores/${STORE_B}/customers`, 'demo-other');
    expect(ofB.body.items).toHaveLength(3);
    expect((await get(`${path}`, 'demo-other')).status).toBe(404);
  });
});

describe('transactions', () => {
  it('returns the first page with links, without totals by default', async () => {
    const res = await get(TXNS_A);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(10);
    expect(res.body).not.toHaveProperty('totalItems');
    expect(res.body).not.toHaveProperty('totalPages');
    const rels = res.body.links.map((l: { rel: string }) => l.rel);
    expect(rels).toEqual(['self', 'next']);
  });

  it('pages to the last page with totalRequired', async () => {
    const first = await get(`${TXNS_A}?totalRequired=true&pageSize=10`);
    expect(first.body.totalItems).toBe(STORE_A_TRANSACTION_COUNT);
    expect(first.body.totalItems).toBeGreaterThanOrEqual(125);
    const totalPages = first.body.totalPages as number;
    expect(totalPages).toBe(Math.ceil(STORE_A_TRANSACTION_COUNT / 10));
    const seen: Txn[] = [];
    for (let page = 1; page <= totalPages; page += 1) {
      const res = await get(`${TXNS_A}?totalRequired=true&pageSize=10&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.totalPages).toBe(totalPages);
      seen.push(...res.body.items);
      const rels = res.body.links.map((l: { rel: string }) => l.rel);
      expect(rels.includes('next')).toBe(page < totalPages);
      expect(rels.includes('prev')).toBe(page > 1);
      if (page === totalPages)
        expect(res.body.items).toHaveLength(STORE_A_TRANSACTION_COUNT % 10 || 10);
    }
    expect(new Set(seen.map((t) => t.transactionId)).size).toBe(STORE_A_TRANSACTION_COUNT);
    const updated = seen.map((t) => t.updatedAt);
    expect(updated).toEqual([...updated].sort());
    const past = await get(`${TXNS_A}?page=${totalPages + 1}`);
    expect(past.status).toBe(200);
    expect(past.body.items).toEqual([]);
  });

  it('follows next links and sorts DESC', async () => {
    const all = await allTransactions(TXNS_A);
    expect(all).toHaveLength(STORE_A_TRANSACTION_COUNT);
    const desc = await get(`${TXNS_A}?sortBy=updatedAt&sortOrder=DESC&pageSize=5`);
    expect((desc.body.items as Txn[]).map((t) => t.transactionId)).toEqual(
      all
        .slice(-5)
        .reverse()
        .map((t) => t.transactionId),
    );
    expect(desc.body.links[0].href).toContain('sortOrder=DESC');
  });

  it('filters by transactionIds, repeated or comma-separated', async () => {
    const all = await allTransactions(TXNS_A);
    const ids = [3, 50, 120].map((i) => all[i]?.transactionId as string);
    const repeated = await get(`${TXNS_A}?${ids.map((id) => `transactionIds=${id}`).join('&')}`);
    expect(repeated.status).toBe(200);
    expect((repeated.body.items as Txn[]).map((t) => t.transactionId).sort()).toEqual(
      [...ids].sort(),
    );
    const comma = await get(`${TXNS_A}?transactionIds=${ids.join(',')}&totalRequired=true`);
    expect((comma.body.items as Txn[]).map((t) => t.transactionId).sort()).toEqual([...ids].sort());
    expect(comma.body.totalItems).toBe(3);
  });

  it('filters by updatedAtAfter / updatedAtBefore (exclusive)', async () => {
    const all = await allTransactions(TXNS_A);
    const from = all[99]?.updatedAt as string;
    const after = await get(`${TXNS_A}?updatedAtAfter=${from}&totalRequired=true`);
    expect(after.body.totalItems).toBe(all.filter((t) => t.updatedAt > from).length);
    const to = all[10]?.updatedAt as string;
    const before = await get(
      `${TXNS_A}?updatedAtBefore=${encodeURIComponent(to.replace('Z', '+00:00'))}&totalRequired=true`,
    );
    expect(before.body.totalItems).toBe(all.filter((t) => t.updatedAt < to).length);
  });

  it('rejects bad query parameters with 400 INVALID_FORMAT and fields', async () => {
    expectFieldError(await get(`${TXNS_A}?pageSize=0`), '$.pageSize');
    expectFieldError(await get(`${TXNS_A}?pageSize=101`), '$.pageSize');
    expectFieldError(await get(`${TXNS_A}?page=0`), '$.page');
    expectFieldError(await get(`${TXNS_A}?updatedAtAfter=2024-01-01T00:00Z`), '$.updatedAtAfter');
    expectFieldError(
      await get(`${TXNS_A}?updatedAtBefore=2024-13-01T00:00:00Z`),
      '$.updatedAtBefore',
    );
    expectFieldError(
      await get(`${TXNS_A}?transactionIds=${UNKNOWN_ID},not-a-uuid`),
      '$.transactionIds[1]',
    );
    expectFieldError(await get(`${TXNS_A}?sortBy=createdAt`), '$.sortBy');
    expectFieldError(await get(`${TXNS_A}?sortOrder=UP`), '$.sortOrder');
    expectFieldError(await get(`${TXNS_A}?totalRequired=yes`), '$.totalRequired');
  });

  it('echoes a valid x-request-id and rejects a malformed one', async () => {
    const id = '123e4567-e89b-42d3-a456-426614174000';
    const ok = await get(`${TXNS_A}?pageSize=1`, 'demo-token', { 'x-request-id': id });
    expect(ok.headers['x-request-id']).toBe(id);
    const bad = await get(`${TXNS_A}?pageSize=1`, 'demo-token', { 'x-request-id': 'abc' });
    expectFieldError(bad, "$['x-request-id']");
  });

  it('reads one transaction with the full record shape', async () => {
    const res = await get(`${TXNS_A}/${COMMERCE_IDS.pendingReviewTransaction}`);
    expect(res.status).toBe(200);
    const t = res.body;
    expect(t.status).toBe('PENDING_REVIEW');
    expect(t).toMatchObject({
      transactionId: COMMERCE_IDS.pendingReviewTransaction,
      storeId: STORE_A,
      fundingSource: {
        sourceType: 'CARD',
        cardDetail: { entryDetails: expect.any(Object), interacMacDetail: expect.any(Object) },
        cardVerificationData: { threeDSecureData: expect.any(Object) },
        processingInstruction: {
          signatureRequired: expect.any(Boolean),
          debit: expect.any(Boolean),
        },
      },
      amount: {
        amountType: expect.any(String),
        amount: expect.any(Number),
        currency: expect.any(String),
      },
      context: {
        channelId: expect.stringMatching(UUID),
        merchantInitiatedTransaction: expect.any(Boolean),
      },
      processorResponse: { avsResult: { addressResult: expect.any(String) } },
      processingInstructions: { authOnly: expect.any(Boolean) },
      legacyMetadata: { flags: expect.any(Object), chargebackStatus: expect.any(String) },
    });
    for (const key of ['createdAt', 'updatedAt', 'voidableUntil', 'captureBy']) {
      expect(Number.isNaN(Date.parse(t[key]))).toBe(false);
    }
    expect(UUID.test(t.transactionRefNum)).toBe(true);
    expect(Number.isInteger(t.amount.amount)).toBe(true);
    expect(t.links[0]).toMatchObject({ rel: 'self', method: 'GET' });
    expect((await get(`${TXNS_A}/${UNKNOWN_ID}`)).status).toBe(404);
    expectFieldError(await get(`${TXNS_A}/nope`), '$.transactionId');
  });

  it('keeps accounts apart', async () => {
    expect((await get(TXNS_A, 'demo-other')).status).toBe(404);
    expect((await get(`${TXNS_A}/${COMMERCE_IDS.canaryTransaction}`, 'demo-other')).status).toBe(
      404,
    );
    const ofB = await allTransactions(`/v2/commerce/stores/${STORE_B}/transactions`, 'demo-other');
    expect(ofB).toHaveLength(STORE_B_TRANSACTION_COUNT);
  });

  it('holds every status, several currencies and the canary values in one transaction', async () => {
    const all = await allTransactions(TXNS_A);
    const statuses = new Set(all.map((t) => t.status));
    for (const s of ['INITIATED', 'AUTHORIZED', 'CAPTURED', 'VOIDED', 'REFUNDED', 'DECLINED']) {
      expect(statuses).toContain(s);
    }
    expect(new Set(all.map((t) => t.amount.currency))).toContain('JPY');

    const canary = (await get(`${TXNS_A}/${COMMERCE_IDS.canaryTransaction}`)).body;
    expect(canary.fundingSource.cardDetail).toMatchObject({
      number: CANARY_CARD_NUMBER,
      track1data: CANARY_TRACK1,
      track2data: CANARY_TRACK2,
    });
    expect(canary.fundingSource.cardVerificationData).toMatchObject({
      cardPin: CANARY_PIN,
      cvData: CANARY_CV_DATA,
      threeDSecureData: { cryptogram: CANARY_CRYPTOGRAM },
    });
    const others = JSON.stringify(all.filter((t) => t.transactionId !== canary.transactionId));
    for (const value of CANARY_VALUES) expect(others).not.toContain(value);
    expect(others).not.toContain('CANARY');
  });
});

describe('customers (writes)', () => {
  const path = `${STORE_A_PATH}/customers`;

  it('creates a customer (201) that sorts after the existing ones', async () => {
    const res = await sim.call('POST', path, {
      token: 'demo-token',
      body: { email: 'new.shopper@example.com', givenName: 'New', tags: ['vip'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      storeId: STORE_A,
      email: 'new.shopper@example.com',
      givenName: 'New',
      familyName: null,
      phone: null,
      status: 'ACTIVE',
      tags: ['vip'],
      addresses: [],
    });
    expect(UUID.test(res.body.customerId)).toBe(true);
    const read = await get(`${path}/${res.body.customerId}`);
    expect(read.body).toEqual(res.body);
    const last = await get(`${path}?limit=100`);
    expect(last.body.items.at(-1).customerId).toBe(res.body.customerId);
  });

  it('validates the create body', async () => {
    const missing = await sim.call('POST', path, { token: 'demo-token', body: { givenName: 'X' } });
    expectFieldError(missing, '$.email', 'INVALID_BODY');
    expect(missing.body.fields[0].code).toBe('REQUIRED');
    const bad = await sim.call('POST', path, { token: 'demo-token', body: { email: 'nope' } });
    expectFieldError(bad, '$.email');
    expect(bad.body.fields[0].code).toBe('INVALID_FORMAT');
    const several = await sim.call('POST', path, {
      token: 'demo-token',
      body: { email: 'a@example.com', phone: '555', tags: ['ok', 7] },
    });
    expect((several.body.fields as Array<{ path: string }>).map((f) => f.path)).toEqual([
      '$.phone',
      '$.tags[1]',
    ]);
  });

  it('answers 409 CUSTOMER_EXISTS for a duplicate email', async () => {
    const existing = (await get(`${path}/${COMMERCE_IDS.firstCustomerA}`)).body.email as string;
    const res = await sim.call('POST', path, {
      token: 'demo-token',
      body: { email: existing.toUpperCase() },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CUSTOMER_EXISTS');
  });

  it('needs commerce.customer:create (demo-readonly → 403) and a visible store', async () => {
    const denied = await sim.call('POST', path, {
      token: 'demo-readonly',
      body: { email: 'ro@example.com' },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    const hidden = await sim.call('POST', path, {
      token: 'demo-other',
      body: { email: 'other@example.com' },
    });
    expect(hidden.status).toBe(404);
  });

  it('updates a customer partially', async () => {
    const id = COMMERCE_IDS.firstCustomerA;
    const before = (await get(`${path}/${id}`)).body;
    const res = await sim.call('PATCH', `${path}/${id}`, {
      token: 'demo-token',
      body: { givenName: 'Renamed', phone: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...before,
      givenName: 'Renamed',
      phone: null,
      updatedAt: expect.any(String),
    });
    expect((await get(`${path}/${id}`)).body.givenName).toBe('Renamed');
  });

  it('rejects an empty or invalid update, and answers 404 / 409 / 403', async () => {
    const id = COMMERCE_IDS.firstCustomerA;
    const empty = await sim.call('PATCH', `${path}/${id}`, { token: 'demo-token', body: {} });
    expect(empty.status).toBe(400);
    const badEmail = await sim.call('PATCH', `${path}/${id}`, {
      token: 'demo-token',
      body: { email: 'not an email' },
    });
    expectFieldError(badEmail, '$.email');
    const unknown = await sim.call('PATCH', `${path}/${UNKNOWN_ID}`, {
      token: 'demo-token',
      body: { givenName: 'X' },
    });
    expect(unknown.status).toBe(404);
    const taken = await sim.call('PATCH', `${path}/${id}`, {
      token: 'demo-token',
      body: { email: 'new.shopper@example.com' },
    });
    expect(taken.status).toBe(409);
    const readonly = await sim.call('PATCH', `${path}/${id}`, {
      token: 'demo-readonly',
      body: { givenName: 'X' },
    });
    expect(readonly.status).toBe(403);
  });
});

describe('fixtures', () => {
  it('are deterministic for a given start time', () => {
    const at = Date.UTC(2025, 5, 1, 12, 0, 0);
    expect(createCommerceState(at)).toEqual(createCommerceState(at));
    const state = createCommerceState(at);
    const txns = state.transactions.get(STORE_A) ?? [];
    expect(txns[0]?.transactionId).toBe(COMMERCE_IDS.canaryTransaction);
    expect(txns.every((t) => t.createdAt <= t.updatedAt && Date.parse(t.updatedAt) <= at)).toBe(
      true,
    );
  });

  it('lets demo-readonly read everything it has a scope for', async () => {
    expect((await get(TXNS_A, 'demo-readonly')).status).toBe(200);
    expect((await get(`${STORE_A_PATH}/customers`, 'demo-readonly')).status).toBe(200);
  });
});

describe('stats', () => {
  it('counts the transaction list under its route template', async () => {
    await sim.reset();
    await get(TXNS_A);
    await get(`${TXNS_A}?page=2`);
    await get(`${TXNS_A}/${COMMERCE_IDS.canaryTransaction}`);
    const stats = await sim.stats();
    expect(stats.byRoute['GET /v2/commerce/stores/{storeId}/transactions']).toBe(2);
    expect(stats.byRoute['GET /v2/commerce/stores/{storeId}/transactions/{transactionId}']).toBe(1);
  });
});
