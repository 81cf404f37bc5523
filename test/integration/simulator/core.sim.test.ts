import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const LIST = '/v2/customers/demo-customer/certificates?limit=1';

describe('simulator conventions', () => {
  it('puts RateLimit headers on every response and answers 429 once the window is spent', async () => {
    sim = await startSimulator({ rateLimit: 3, rateWindowSec: 60 });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await sim.call('GET', LIST, { token: 'demo-token' });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
      remaining.push(res.headers['ratelimit-remaining']!);
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await sim.call('GET', LIST, { token: 'demo-token' });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('TOO_MANY_REQUESTS');
    expect(limited.body.retryAfterSec).toBeGreaterThan(0);
    expect(limited.headers['retry-after']).toBe(String(limited.body.retryAfterSec));
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    // Per credential: another token still has its whole window.
    expect(
      (await sim.call('GET', '/v2/customers/other-customer/certificates', { token: 'demo-other' }))
        .status,
    ).toBe(200);
    // /__sim/reset zeroes the windows.
    await sim.reset();
    expect((await sim.call('GET', LIST, { token: 'demo-token' })).status).toBe(200);
  });

  it('answers 401 for a missing, malformed or unknown token, with the envelope', async () => {
    sim = await startSimulator();
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer ' },
      { authorization: 'Bearer nope' },
    ];
    for (const headers of variants) {
      const res = await sim.call('GET', LIST, { headers });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHORIZED', message: expect.any(String) });
    }
  });

  it('answers 403 naming the scope for a read-only token writing', async () => {
    sim = await startSimulator();
    const res = await sim.call('POST', '/v2/certificates/cert-0002/reissue', {
      token: 'demo-readonly',
      body: {},
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'FORBIDDEN', requiredScope: 'ssl.certificates:update' });
  });

  it('answers 400 with JSONPath fields for bad query parameters', async () => {
    sim = await startSimulator();
    for (const query of ['offset=-1', 'offset=1.5', 'limit=0', 'limit=abc']) {
      const res = await sim.call('GET', `/v2/customers/demo-customer/certificates?${query}`, {
        token: 'demo-token',
      });
      expect(res.status).toBe(400);
      expect(res.body.fields[0].path).toBe(`$.${query.split('=')[0]}`);
    }
    const search = await sim.call(
      'GET',
      '/v2/certificates/subscriptions/search?page=0&status=LIVE',
      { token: 'demo-token' },
    );
    expect(search.status).toBe(400);
  });

  it('counts requests by route template and status, and resets them', async () => {
    sim = await startSimulator();
    await sim.call('GET', LIST, { token: 'demo-token' });
    await sim.call('GET', '/v2/customers/demo-customer/certificates/cert-0001', {
      token: 'demo-token',
    });
    await sim.call('GET', '/v2/customers/demo-customer/certificates/cert-0002', {
      token: 'demo-token',
    });
    await sim.call('GET', LIST);
    const stats = await sim.stats();
    expect(stats.total).toBe(4);
    expect(stats.byRoute['GET /v2/customers/{customerId}/certificates']).toBe(2);
    expect(stats.byRoute['GET /v2/customers/{customerId}/certificates/{certificateId}']).toBe(2);
    expect(stats.byStatus).toEqual({ '200': 3, '401': 1 });
    await sim.reset();
    expect((await sim.stats()).total).toBe(0);
  });

  it('injects faults and latency on demand', async () => {
    sim = await startSimulator({ faultRate: 1 });
    const res = await sim.call('GET', LIST, { token: 'demo-token' });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    sim.simulator.configure({ faultRate: 0, latencyMs: 150 });
    const started = Date.now();
    expect((await sim.call('GET', LIST, { token: 'demo-token' })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('moves an ordered certificate through PENDING_ISSUANCE to ISSUED by polls, and denies a CAA-blocked name', async () => {
    sim = await startSimulator();
    const { createCsr } = await import('../../support/csr.ts');
    const order = await sim.call('POST', '/v2/certificates', {
      token: 'demo-token',
      body: { csr: await createCsr('shop.caa-blocked.example'), productType: 'DV_SSL', period: 1 },
    });
    expect(order.status).toBe(201);
    const path = `/v2/customers/demo-customer/certificates/${order.body.certificateId}`;
    const statuses: string[] = [];
    for (let i = 0; i < 3; i += 1)
      statuses.push((await sim.call('GET', path, { token: 'demo-token' })).body.status);
    expect(statuses).toEqual(['PENDING_ISSUANCE', 'PENDING_ISSUANCE', 'DENIED']);
    const denied = await sim.call('GET', path, { token: 'demo-token' });
    expect(denied.body.deniedReason).toBe('CAA records present');
  });

  it('keeps account B out of account A data everywhere', async () => {
    sim = await startSimulator();
    const paths = [
      '/v2/customers/demo-customer/certificates',
      '/v2/customers/demo-customer/certificates/cert-0002',
      '/v2/customers/demo-customer/certificates/acme/externalAccountBinding',
      '/v2/certificates?entitlementId=demo-entitlement',
      '/v2/certificates/download?entitlementId=demo-entitlement',
      '/v2/certificates/subscription/00000000-0000-4000-8000-000000000001',
    ];
    for (const path of paths)
      expect((await sim.call('GET', path, { token: 'demo-other' })).status).toBe(404);
    const search = await sim.call('GET', '/v2/certificates/subscriptions/search?pageSize=100', {
      token: 'demo-other',
    });
    expect(
      search.body.data.every((item: { commonName: string }) => item.commonName.includes('other')),
    ).toBe(true);
  });
});
