import { Client } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { REPLAY_HEADER } from '../../../src/server/response-cache/response-replay.hook.ts';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const DETAIL = `query Detail($id: ID!) { certificateCustomer(customerId: "demo-customer") {
  certificate(certificateId: $id) { certificateId status commonName csr } } }`;

describe('whole-response cache', () => {
  it('replays a query whose reads were all cached: no Apollo run, no upstream call, no budget', async () => {
    const first = await stack.gql(DETAIL, { id: 'cert-0007' });
    expect(first.headers[REPLAY_HEADER]).toBeUndefined();
    expect(first.body.extensions.rateLimit).toBeDefined();
    const calls = await stack.upstreamCalls();
    const second = await stack.gql(DETAIL, { id: 'cert-0007' });
    expect(second.headers[REPLAY_HEADER]).toBe('hit');
    expect(second.body).toEqual({ data: first.body.data });
    expect(second.headers['ratelimit-remaining']).toBeUndefined();
    expect(await stack.upstreamCalls()).toBe(calls);
    // The request id still comes back, and the replay is the request's one log line.
    const requestId = second.headers['x-request-id'];
    expect(requestId).toBeTruthy();
    const lines = stack.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.reqId === requestId && (line.level as number) >= 30);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'graphql operation',
        operationName: 'Detail',
        responseCache: 'hit',
        res: { statusCode: 200 },
      }),
    ]);
  });

  it('never replays one credential’s response to another, nor across variables', async () => {
    await stack.gql(DETAIL, { id: 'cert-0008' });
    const other = await stack.gql(DETAIL, { id: 'cert-0008' }, { token: 'demo-other' });
    expect(other.headers[REPLAY_HEADER]).toBeUndefined();
    expect(other.body.data.certificateCustomer.certificate).toBeNull();
    // The 404 behind that null is not replayed either.
    const otherAgain = await stack.gql(DETAIL, { id: 'cert-0008' }, { token: 'demo-other' });
    expect(otherAgain.headers[REPLAY_HEADER]).toBeUndefined();
    const otherId = await stack.gql(DETAIL, { id: 'cert-0009' });
    expect(otherId.headers[REPLAY_HEADER]).toBeUndefined();
    expect(otherId.body.data.certificateCustomer.certificate.certificateId).toBe('cert-0009');
  });

  it('never answers another credential from a replay held in this process and known valid', async () => {
    // The first replay reads the stored answer and keeps it in this process; the next ones are
    // answered from there without a lookup (graphql-response-cache.ts `known`).
    await stack.gql(DETAIL, { id: 'cert-0014' });
    const held = await stack.gql(DETAIL, { id: 'cert-0014' });
    expect(held.headers[REPLAY_HEADER]).toBe('hit');
    expect((await stack.gql(DETAIL, { id: 'cert-0014' })).headers[REPLAY_HEADER]).toBe('hit');
    const other = await stack.gql(DETAIL, { id: 'cert-0014' }, { token: 'demo-other' });
    expect(other.headers[REPLAY_HEADER]).toBeUndefined();
    expect(other.body.data.certificateCustomer.certificate).toBeNull();
    // Nor across variables or another store, and the owner still gets its replay.
    const otherId = await stack.gql(DETAIL, { id: 'cert-0015' });
    expect(otherId.headers[REPLAY_HEADER]).toBeUndefined();
    expect(otherId.body.data.certificateCustomer.certificate.certificateId).toBe('cert-0015');
    const otherStore = await stack.gql(
      DETAIL,
      { id: 'cert-0014' },
      { headers: { 'x-store-id': '22222222-2222-4222-8222-222222222222' } },
    );
    expect(otherStore.headers[REPLAY_HEADER]).toBeUndefined();
    const again = await stack.gql(DETAIL, { id: 'cert-0014' });
    expect(again.headers[REPLAY_HEADER]).toBe('hit');
    expect(again.body).toEqual(held.body);
  });

  it('answers each request of one keep-alive connection as its own token’s, when the tokens alternate', async () => {
    // A proxy may carry several clients' requests on one connection: the credential a connection
    // carried last (server/request-credential.ts) is only taken for the same header.
    await stack.gql(DETAIL, { id: 'cert-0016' });
    expect((await stack.gql(DETAIL, { id: 'cert-0016' })).headers[REPLAY_HEADER]).toBe('hit');
    const connection = new Client(stack.url, { pipelining: 1 });
    let connects = 0;
    connection.on('connect', () => (connects += 1));
    const ask = async (token: string) => {
      const res = await connection.request({
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: DETAIL, variables: { id: 'cert-0016' } }),
      });
      const body = (await res.body.json()) as {
        data: { certificateCustomer: { certificate: unknown } };
      };
      return {
        replayed: res.headers[REPLAY_HEADER],
        certificate: body.data.certificateCustomer.certificate,
      };
    };
    try {
      for (let round = 0; round < 2; round += 1) {
        const owner = await ask('demo-token');
        expect(owner.replayed).toBe('hit');
        expect(owner.certificate).toMatchObject({ certificateId: 'cert-0016' });
        const other = await ask('demo-other');
        expect(other.replayed).toBeUndefined();
        expect(other.certificate).toBeNull();
      }
    } finally {
      await connection.close();
    }
    expect(connects).toBe(1);
  });

  it('replays text beyond ASCII byte for byte: Latin-1 letters, and characters above U+00FF', async () => {
    // A replay is kept encoded, and its length counted in bytes: both must be the UTF-8 sent.
    const CUSTOMER = `query Customer($store: ID!, $id: ID!) {
      store(storeId: $store) { customer(customerId: $id) { customerId raw } } }`;
    const UPDATE = `mutation($input: UpdateStoreCustomerInput!) {
      updateStoreCustomer(input: $input) { customer { customerId } userErrors { code } } }`;
    const ids = { store: COMMERCE_IDS.storeA, id: COMMERCE_IDS.firstCustomerA };
    for (const familyName of ['Müller-Lüdenscheidt', 'Ŝtrauß € 東京 ✓']) {
      const update = await stack.gql(UPDATE, {
        input: { storeId: ids.store, customerId: ids.id, customer: { familyName } },
      });
      expect(update.body.data.updateStoreCustomer.userErrors).toEqual([]);
      const first = await stack.gql(CUSTOMER, ids);
      expect(first.headers[REPLAY_HEADER]).toBeUndefined();
      for (let replay = 0; replay < 2; replay += 1) {
        const hit = await stack.gql(CUSTOMER, ids);
        expect(hit.headers[REPLAY_HEADER]).toBe('hit');
        expect(hit.body).toEqual({ data: first.body.data });
        expect(hit.body.data.store.customer.raw.familyName).toBe(familyName);
        expect(Number(hit.headers['content-length'])).toBe(Buffer.byteLength(hit.text));
      }
    }
  });

  it('answers Weft-Estimate with the bound, never with a replay, and names the header in Vary', async () => {
    await stack.gql(DETAIL, { id: 'cert-0012' });
    const replayed = await stack.gql(DETAIL, { id: 'cert-0012' });
    expect(replayed.headers[REPLAY_HEADER]).toBe('hit');
    expect(String(replayed.headers['vary'])).toMatch(/weft-estimate/);
    const calls = await stack.upstreamCalls();
    const estimated = await stack.gql(
      DETAIL,
      { id: 'cert-0012' },
      { headers: { 'weft-estimate': '1' } },
    );
    expect(estimated.headers[REPLAY_HEADER]).toBeUndefined();
    expect(estimated.body.data).toBeUndefined();
    expect(estimated.body.extensions.upstream.estimate.calls).toBeGreaterThan(0);
    expect(await stack.upstreamCalls()).toBe(calls);
    // And the estimate is not kept as the query's replay.
    expect((await stack.gql(DETAIL, { id: 'cert-0012' })).body).toEqual(replayed.body);
  });

  it('stops replaying once a write invalidates what the response used', async () => {
    await stack.gql(DETAIL, { id: 'cert-0011' });
    expect((await stack.gql(DETAIL, { id: 'cert-0011' })).headers[REPLAY_HEADER]).toBe('hit');
    const reissue = await stack.gql(
      `mutation { reissueCertificate(input: { certificateId: "cert-0011" }) { userErrors { code } } }`,
    );
    expect(reissue.body.data.reissueCertificate.userErrors).toEqual([]);
    const after = await stack.gql(DETAIL, { id: 'cert-0011' });
    expect(after.headers[REPLAY_HEADER]).toBeUndefined();
    expect(after.body.data.certificateCustomer.certificate.status).toBe('PENDING_ISSUANCE');
  });

  it('never replays live values, uncached reads or secrets, nor responses with errors', async () => {
    const queries = [
      '{ viewer { rateLimit { remaining } } certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId } }',
      '{ certificateCustomer(customerId: "demo-customer") { acmeExternalAccountBinding { keyId hmacKey } } }',
      '{ certificateBundle(entitlementId: "no-such-entitlement") { serialNumber } }',
    ];
    for (const query of queries) {
      await stack.gql(query);
      const again = await stack.gql(query);
      expect(again.headers[REPLAY_HEADER], query).toBeUndefined();
    }
  });

  describe('a page filtered by a date the client picks (kept on its second sight)', () => {
    const STORE = '11111111-1111-4111-8111-111111111111';
    const TRANSACTIONS = '/v2/commerce/stores/{storeId}/transactions';
    const PAGE = `query Page($storeId: ID!, $after: String) { store(storeId: $storeId) {
      transactions(first: 5, filter: { updatedAtAfter: $after }) { edges { node { transactionId status } } } } }`;
    const OTHER_SCREEN = `query Other($storeId: ID!, $after: String) { store(storeId: $storeId) {
      transactions(first: 5, filter: { updatedAtAfter: $after }) { edges { node { transactionId amount { amount } } } } } }`;

    it('answers the same screen twice with one upstream call: the repeat is a replay', async () => {
      const variables = { storeId: STORE, after: '2026-01-02T00:00:00Z' };
      const first = await stack.gql(PAGE, variables);
      expect(first.body.errors).toBeUndefined();
      expect(await stack.upstreamCalls(`GET ${TRANSACTIONS}`)).toBe(1);
      const again = await stack.gql(PAGE, variables);
      expect(again.headers[REPLAY_HEADER]).toBe('hit');
      expect(again.body).toEqual({ data: first.body.data });
      expect(await stack.upstreamCalls(`GET ${TRANSACTIONS}`)).toBe(1);
    });

    it('keeps the page for other screens only once it is read a second time', async () => {
      const variables = { storeId: STORE, after: '2026-01-03T00:00:00Z' };
      await stack.gql(PAGE, variables);
      // Another screen over the same filtered page: the first sight kept no page, so it is read again…
      await stack.gql(OTHER_SCREEN, variables);
      expect(await stack.upstreamCalls(`GET ${TRANSACTIONS}`)).toBe(2);
      // …and kept: a third screen over it costs nothing upstream.
      const third = await stack.gql(
        PAGE.replace('transactionId status', 'transactionId createdAt'),
        variables,
      );
      expect(third.body.errors).toBeUndefined();
      expect(await stack.upstreamCalls(`GET ${TRANSACTIONS}`)).toBe(2);
    });

    it('keeps an unfiltered page on its first sight, as any other read', async () => {
      await stack.gql(PAGE, { storeId: STORE });
      await stack.gql(OTHER_SCREEN, { storeId: STORE });
      expect(await stack.upstreamCalls(`GET ${TRANSACTIONS}`)).toBe(1);
    });
  });

  it('is off with RESPONSE_CACHE=false, and then a filtered page is kept on its first sight', async () => {
    const off = await startStack({ env: { RESPONSE_CACHE: 'false' } });
    try {
      await off.gql(DETAIL, { id: 'cert-0007' });
      expect((await off.gql(DETAIL, { id: 'cert-0007' })).headers[REPLAY_HEADER]).toBeUndefined();
      // Nothing would replay the repeat of a screen over a filtered page: the page itself is kept.
      const screen = `query Page($storeId: ID!, $after: String) { store(storeId: $storeId) {
        transactions(first: 5, filter: { updatedAtAfter: $after }) { edges { node { transactionId } } } } }`;
      const variables = {
        storeId: '11111111-1111-4111-8111-111111111111',
        after: '2026-01-04T00:00:00Z',
      };
      await off.resetCounts();
      await off.gql(screen, variables);
      await off.gql(screen, variables);
      expect(await off.upstreamCalls('GET /v2/commerce/stores/{storeId}/transactions')).toBe(1);
    } finally {
      await off.close();
    }
  });
});
