/**
 * The per-credential token bucket through the whole gateway (memory mode): the budget exposed
 * without an upstream call, on headers and in extensions (with the part of it kept for writes);
 * never a 429 provoked from the upstream; RATE_LIMITED with retryAfterSec when the budget is spent,
 * while cached fields still resolve.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const VIEWER = '{ viewer { rateLimit { limit remaining resetSec writeReserve } } }';
const LIST = (first: number) =>
  `{ certificateCustomer(customerId: "demo-customer") { certificates(first: ${first}) { edges { node { certificateId } } } } }`;
const DETAIL = (id: string) =>
  `{ certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "${id}") { certificateId csr } } }`;
const certId = (n: number) => `cert-${String(n).padStart(4, '0')}`;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('token bucket through the gateway', () => {
  it('exposes the budget without an upstream call, and the spend on headers and extensions', async () => {
    stack = await startStack();
    const before = await stack.gql(VIEWER);
    // The write reserve: UPSTREAM_WRITE_RESERVE_SHARE (0.1 by default) of the window, rounded down.
    expect(before.body.data.viewer.rateLimit).toEqual({
      limit: 600,
      remaining: 600,
      // A credential never seen: no window runs yet, the first call starts one (UPSTREAM_RATE_WINDOW_SEC).
      resetSec: 1399,
      writeReserve: 60,
    });
    expect(before.headers['ratelimit-limit']).toBeUndefined(); // nothing spent
    expect(await stack.upstreamCalls()).toBe(0);

    const spent = await stack.gql(LIST(3));
    expect(spent.body.errors).toBeUndefined();
    expect(spent.headers['ratelimit-limit']).toBe('600');
    expect(spent.headers['ratelimit-remaining']).toBe('599');
    expect(Number(spent.headers['ratelimit-reset'])).toBeGreaterThan(1390);
    expect(spent.headers['ratelimit-write-reserve']).toBe('60');
    expect(spent.body.extensions.rateLimit).toEqual({
      limit: 600,
      remaining: 599,
      resetSec: Number(spent.headers['ratelimit-reset']),
      writeReserve: 60,
    });

    // The same query again is a cache hit: no budget spent, so no budget reported.
    const hit = await stack.gql(LIST(3));
    expect(hit.headers['ratelimit-remaining']).toBeUndefined();
    expect(hit.headers['ratelimit-write-reserve']).toBeUndefined();
    expect(hit.body.extensions?.rateLimit).toBeUndefined();

    const after = await stack.gql(VIEWER);
    expect(after.body.data.viewer.rateLimit).toMatchObject({
      limit: 600,
      remaining: 599,
      writeReserve: 60,
    });
    expect(await stack.upstreamCalls()).toBe(1);
  });

  it('viewer.rateLimit is read while the operation runs, extensions.rateLimit after its last call', async () => {
    stack = await startStack();
    const before = (await stack.gql(VIEWER)).body.data.viewer.rateLimit;
    // The viewer field beside fields that spend: the apps list, then each app's deployments.
    const both = await stack.gql(
      '{ viewer { rateLimit { limit remaining resetSec writeReserve } } apps { appId deployments(limit: 1) { totalCount } } }',
      {},
      { headers: { 'weft-trace': '1' } },
    );
    expect(both.body.errors).toBeUndefined();
    const during = both.body.data.viewer.rateLimit;
    const after = both.body.extensions.rateLimit;
    const spent = both.body.extensions.upstream.totals.upstream as number;
    expect(spent).toBeGreaterThan(2);
    // After: exactly what the operation spent (no other client spends this credential here); the
    // ledger and the RateLimit-* headers say the same.
    expect(after.remaining).toBe(before.remaining - spent);
    expect(both.body.extensions.upstream.budget).toEqual(after);
    expect(Number(both.headers['ratelimit-remaining'])).toBe(after.remaining);
    // During: somewhere between, never below what is left after the operation; same window.
    expect(during.remaining).toBeGreaterThanOrEqual(after.remaining);
    expect(during.remaining).toBeLessThanOrEqual(before.remaining);
    expect(during.limit).toBe(after.limit);
    expect(during.writeReserve).toBe(after.writeReserve);
  });

  it('never makes the upstream answer 429, and fails only the fields it cannot afford', async () => {
    stack = await startStack({
      sim: { rateLimit: 6, rateWindowSec: 120 },
      env: { UPSTREAM_RATE_LIMIT: '6', UPSTREAM_RATE_WINDOW_SEC: '120' },
    });
    // Warm one field into the cache, then spend the rest on details nobody asked for yet.
    await stack.gql(LIST(2));
    const results = [];
    for (let n = 1; n <= 8; n += 1) results.push(await stack.gql(DETAIL(certId(n))));
    const limited = results.filter((r) => r.body.errors?.[0]?.extensions?.code === 'RATE_LIMITED');
    expect(results.length - limited.length).toBe(5);
    expect(limited).toHaveLength(3);
    const error = limited[0]!.body.errors[0];
    expect(error.extensions.retryAfterSec).toBeGreaterThan(100);
    expect(error.extensions.retryAfterSec).toBeLessThanOrEqual(120);
    expect(error.path).toEqual(['certificateCustomer', 'certificate']);

    // A query mixing a cached field with one it cannot afford: its bound (2 calls) exceeds what
    // is left, so it is refused before anything runs (docs/budget.md)…
    const MIXED = `{ list: certificateCustomer(customerId: "demo-customer") { certificates(first: 2) { edges { node { certificateId } } } }
         more: certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "cert-0030") { csr } } }`;
    const refused = await stack.gql(MIXED);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions).toMatchObject({ limiter: 'OPERATION_BOUND' });
    // …unless the client accepts partial results: then the cached one still resolves.
    const mixed = await stack.gql(MIXED, {}, { headers: { 'weft-accept-partial': '1' } });
    expect(mixed.body.data.list.certificates.edges).toHaveLength(2);
    expect(mixed.body.data.more.certificate).toBeNull();
    expect(mixed.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    const stats = await stack.sim.stats();
    expect(stats.byStatus['429']).toBeUndefined();
    expect(stats.total).toBe(6);
    const viewer = await stack.gql(VIEWER);
    expect(viewer.body.data.viewer.rateLimit).toMatchObject({ limit: 6, remaining: 0 });
  });

  it("learns the upstream's real limit from its headers, even when configured for more", async () => {
    stack = await startStack({ sim: { rateLimit: 4, rateWindowSec: 120 } }); // gateway: 600
    const results = [];
    for (let n = 1; n <= 7; n += 1) results.push(await stack.gql(DETAIL(certId(n))));
    expect(results.filter((r) => !r.body.errors)).toHaveLength(4);
    const stats = await stack.sim.stats();
    expect(stats.byStatus['429']).toBeUndefined();
    expect((await stack.gql(VIEWER)).body.data.viewer.rateLimit).toMatchObject({
      limit: 4,
      remaining: 0,
    });
  });

  it('is emptied by an upstream 429 until the reset, and stops calling', async () => {
    stack = await startStack({ sim: { rateLimit: 3, rateWindowSec: 120 } });
    // Another client of the same token spends the window behind the gateway's back.
    for (let i = 0; i < 3; i += 1)
      await stack.sim.call('GET', '/v2/certificates/subscriptions/search', { token: 'demo-token' });
    const first = await stack.gql(DETAIL('cert-0001'));
    expect(first.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(first.body.errors[0].extensions.retryAfterSec).toBeGreaterThan(100);
    const second = await stack.gql(DETAIL('cert-0002'));
    expect(second.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    const stats = await stack.sim.stats();
    expect(stats.byStatus['429']).toBe(1); // the one that told us; none after
  });

  it('sends one probe for a credential another client spent, then only what reads may still take: no 429 for a 20-field query', async () => {
    stack = await startStack({ sim: { rateLimit: 40, rateWindowSec: 120 } }); // gateway: 600
    // Another client of the same token spends the window down to 9, behind the gateway's back.
    for (let i = 0; i < 31; i += 1)
      await stack.sim.call('GET', '/v2/certificates/subscriptions/search', { token: 'demo-token' });
    const fields = Array.from(
      { length: 20 },
      (_, i) =>
        `c${i}: certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "${certId(i + 1)}") { certificateId } }`,
    );
    const { body } = await stack.gql(`{ ${fields.join(' ')} }`);
    const answered = Object.values(body.data as Record<string, { certificate: unknown }>).filter(
      (value) => value.certificate !== null,
    );
    const limited = body.errors.filter((e: any) => e.extensions.code === 'RATE_LIMITED');
    // The probe learns 8 are left and the limit is 40, so 4 (a tenth of 40) are kept for writes:
    // the probe and 4 more reads answered, the other 15 refused locally until the window's end.
    expect(answered).toHaveLength(5);
    expect(limited).toHaveLength(15);
    expect(body.errors).toHaveLength(15);
    for (const error of limited) {
      expect(error.extensions.limiter).toBe('RESERVE');
      expect(error.extensions.retryAfterSec).toBeGreaterThan(100);
      expect(error.extensions.retryAfterSec).toBeLessThanOrEqual(120);
    }
    const stats = await stack.sim.stats();
    expect(stats.byStatus['429']).toBeUndefined();
    expect(stats.total).toBe(31 + 5);
    // What is left upstream is the write reserve, and the gateway says so.
    expect((await stack.gql(VIEWER)).body.data.viewer.rateLimit).toMatchObject({
      limit: 40,
      remaining: 4,
      writeReserve: 4,
    });
  });
});
