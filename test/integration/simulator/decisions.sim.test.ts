/**
 * The simulator's readings of what the three upstream documents leave open ("not shown") or allow
 * two ways: one test per row of the decision table in docs/simulator.md that no other test covers.
 * Where the documents allow two readings, the stricter one is taken.
 */
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCsr } from '../../support/csr.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

const T = { token: 'demo-token' };
const LIST = '/v2/customers/demo-customer/certificates';
const SEARCH = '/v2/certificates/subscriptions/search';
const STORE_A = '11111111-1111-4111-8111-111111111111';
const H = '/v1/hosting/nodejs';

type Reply = Awaited<ReturnType<RunningSimulator['call']>>;

function expectFieldError(res: Reply, status: number, path: string, fieldCode?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.code).toMatch(/^INVALID_(FORMAT|BODY)$/);
  expect(res.body.fields[0].path).toBe(path);
  if (fieldCode) expect(res.body.fields[0].code).toBe(fieldCode);
}

describe('certificates: the customer list', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());
  const get = (path: string) => sim.call('GET', path, T);

  it('reads offset as records skipped, positive when given: the first page has no offset', async () => {
    const first = await get(`${LIST}?limit=10`);
    expect(first.status).toBe(200);
    expect(first.body.certificates.map((c: { certificateId: string }) => c.certificateId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `cert-${String(i + 1).padStart(4, '0')}`),
    );
    expect(first.body.pagination).toEqual({
      first: `${LIST}?limit=10`,
      next: `${LIST}?offset=10&limit=10`,
      last: `${LIST}?offset=40&limit=10`,
      total: 44,
    });
    const second = await get(`${LIST}?offset=10&limit=10`);
    expect(second.body.certificates[0].certificateId).toBe('cert-0011');
    expect(second.body.pagination.previous).toBe(`${LIST}?limit=10`);
    const shifted = await get(`${LIST}?offset=5&limit=10`);
    expect(shifted.body.certificates[0].certificateId).toBe('cert-0006');
    expect(shifted.body.pagination.previous).toBe(`${LIST}?limit=10`);
    expect((await get(`${LIST}?offset=1&limit=1`)).body.certificates[0].certificateId).toBe(
      'cert-0002',
    );
    const past = await get(`${LIST}?offset=44`);
    expect(past.status).toBe(200);
    expect(past.body.certificates).toEqual([]);
    expect(past.body.pagination.next).toBeUndefined();
  });

  it('walks every certificate exactly once by following the links', async () => {
    const seen: string[] = [];
    let next: string | undefined = `${LIST}?limit=7`;
    while (next) {
      const page = await get(next);
      expect(page.status).toBe(200);
      seen.push(...page.body.certificates.map((c: { certificateId: string }) => c.certificateId));
      next = page.body.pagination.next;
    }
    expect(seen).toHaveLength(44);
    expect(new Set(seen).size).toBe(44);
  });

  it('refuses offset=0 and every non-positive or non-digit offset and limit', async () => {
    for (const query of [
      'offset=0',
      'offset=00',
      'offset=',
      'offset=-1',
      'offset=+1',
      'offset=1e1',
    ]) {
      expectFieldError(await get(`${LIST}?${query}`), 400, '$.offset');
    }
    expectFieldError(await get(`${LIST}?offset=0`), 400, '$.offset', 'OUT_OF_RANGE');
    for (const query of ['limit=0', 'limit=101', 'limit=', 'limit=-5', 'limit=ten']) {
      expectFieldError(await get(`${LIST}?${query}`), 400, '$.limit');
    }
    expectFieldError(await get(`${LIST}?offset=1&offset=2`), 400, '$.offset');
  });

  it('uses limit 50 by default and at most 100', async () => {
    const all = await get(LIST);
    expect(all.body.certificates).toHaveLength(44);
    expect(all.body.pagination.first).toBe(`${LIST}?limit=50`);
    expect((await get(`${LIST}?limit=100`)).status).toBe(200);
  });

  it('refuses a marker (v2 lists take no cursor) and ignores unknown parameters', async () => {
    expectFieldError(await get(`${LIST}?marker=cert-0002`), 400, '$.marker', 'NOT_ACCEPTED');
    expect((await get(`${LIST}?limit=1&colour=blue`)).status).toBe(200);
  });

  it('offers renewal for ACTIVE and EXPIRED certificates only', async () => {
    const items = new Map<string, { renewalAvailable: boolean; status: string }>(
      (await get(LIST)).body.certificates.map(
        (c: { certificateId: string; renewalAvailable: boolean; status: string }) => [
          c.certificateId,
          c,
        ],
      ),
    );
    expect(items.get('cert-0003')).toMatchObject({ status: 'ISSUED', renewalAvailable: true });
    expect(items.get('cert-0006')).toMatchObject({ status: 'EXPIRED', renewalAvailable: true });
    expect(items.get('cert-0008')).toMatchObject({ status: 'REVOKED', renewalAvailable: false });
    expect(items.get('cert-0010')).toMatchObject({ status: 'DENIED', renewalAvailable: false });
  });
});

describe('certificates: search and subscriptions', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());
  const get = (path: string) => sim.call('GET', path, T);

  it('caps pageSize at 100 and bounds page to 1..2^31−1 (int32)', async () => {
    const full = await get(`${SEARCH}?pageSize=100`);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ currentPage: '1', pageSize: 100, total: 44 });
    expectFieldError(await get(`${SEARCH}?pageSize=101`), 400, '$.pageSize', 'OUT_OF_RANGE');
    expectFieldError(await get(`${SEARCH}?pageSize=0`), 400, '$.pageSize', 'OUT_OF_RANGE');
    expectFieldError(await get(`${SEARCH}?page=0`), 400, '$.page', 'OUT_OF_RANGE');
    expectFieldError(await get(`${SEARCH}?page=2147483648`), 400, '$.page', 'OUT_OF_RANGE');
    const last = await get(`${SEARCH}?page=2147483647`);
    expect(last.status).toBe(200);
    expect(last.body.data).toEqual([]);
    expect((await get(SEARCH)).body).toMatchObject({ currentPage: '1', pageSize: 15 });
  });

  it('refuses limit and marker, and a parameter given twice', async () => {
    expectFieldError(await get(`${SEARCH}?limit=10`), 400, '$.limit', 'NOT_ACCEPTED');
    expectFieldError(await get(`${SEARCH}?marker=x`), 400, '$.marker', 'NOT_ACCEPTED');
    expectFieldError(await get(`${SEARCH}?domain=shop&domain=www`), 400, '$.domain');
    expectFieldError(await get(`${SEARCH}?status=active`), 400, '$.status', 'INVALID_VALUE');
  });

  it('returns search elements of the decided shape', async () => {
    const { body } = await get(`${SEARCH}?pageSize=1`);
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        'certificateId',
        'commonName',
        'domains',
        'guid',
        'productType',
        'status',
        'type',
        'validEnd',
        'validStart',
        'validation',
      ].sort(),
    );
  });

  it('requires a GUID for a subscription: malformed 400, unknown 404', async () => {
    expectFieldError(await get('/v2/certificates/subscription/not-a-guid'), 400, '$.guid');
    const unknown = await get('/v2/certificates/subscription/00000000-0000-4000-8000-000000000999');
    expect(unknown.status).toBe(404);
    const known = '/v2/certificates/subscription/00000000-0000-4000-8000-000000000001';
    expect((await get(known)).body).toMatchObject({ total: 4, subscriptionStatus: 'ACTIVE' });
    expectFieldError(await get(`${known}?limit=2`), 400, '$.limit', 'NOT_ACCEPTED');
  });
});

describe('certificates: verifications and entitlement lookup', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());
  const get = (path: string) => sim.call('GET', path, T);

  it('types every third name DNS_TXT, the first COMMON_NAME, COMPLETED once issued', async () => {
    const list = await get(`${LIST}/cert-0002/domainVerifications`);
    expect(list.body.map((v: { domain: string; type: string; usage: string }) => v)).toEqual([
      expect.objectContaining({
        domain: 'www.shop02.example.com',
        type: 'DOMAIN_CONTROL_EMAIL',
        usage: 'COMMON_NAME',
        status: 'COMPLETED',
      }),
      expect.objectContaining({ domain: 'shop02.example.com', type: 'DOMAIN_CONTROL_EMAIL' }),
      expect.objectContaining({
        domain: 'api.shop02.example.com',
        type: 'DNS_TXT',
        usage: 'SUBJECT_ALTERNATIVE_NAME',
      }),
      expect.objectContaining({ domain: 'cdn.shop02.example.org', type: 'DOMAIN_CONTROL_EMAIL' }),
    ]);
    for (const item of list.body) expect(item.certificateAuthorityAuthorization).toBeUndefined();
    const pending = await get(`${LIST}/cert-0004/domainVerifications`);
    expect(pending.body[0].status).toBe('PENDING');
  });

  it('gives the CAA block on the single-domain form: COMPLETED once issued, PENDING before', async () => {
    const done = await get(`${LIST}/cert-0002/domainVerifications/api.shop02.example.com`);
    expect(done.body.certificateAuthorityAuthorization).toEqual({
      status: 'COMPLETED',
      queryPaths: ['api.shop02.example.com', 'shop02.example.com', 'example.com'],
      recommendations: [],
      completedAt: expect.any(String),
    });
    const pending = await get(`${LIST}/cert-0004/domainVerifications/www.shop04.example.com`);
    expect(pending.body.certificateAuthorityAuthorization).toMatchObject({
      status: 'PENDING',
      recommendations: ['ADD_CA_TO_CAA'],
    });
    expect(pending.body.certificateAuthorityAuthorization.completedAt).toBeUndefined();
  });

  it('takes a host name as domain: case-insensitive, no wildcard, at most 253 characters', async () => {
    const upper = await get(`${LIST}/cert-0002/domainVerifications/API.SHOP02.EXAMPLE.COM`);
    expect(upper.status).toBe(200);
    expect(upper.body.domain).toBe('api.shop02.example.com');
    // cert-0003 is a wildcard certificate: its verification is the base name's.
    expect((await get(`${LIST}/cert-0003/domainVerifications/shop03.example.com`)).status).toBe(
      200,
    );
    for (const domain of ['*.shop03.example.com', 'localhost', 'a..b.com', '-a.example.com']) {
      const res = await get(`${LIST}/cert-0003/domainVerifications/${encodeURIComponent(domain)}`);
      expectFieldError(res, 400, '$.domain', 'INVALID_FORMAT');
    }
    const unknown = await get(`${LIST}/cert-0002/domainVerifications/nope.example.com`);
    expect(unknown.status).toBe(404);
  });

  it('shows SAN status VERIFIED once issued (also revoked) and PENDING while pending', async () => {
    const all = await get('/v2/certificates?entitlementId=demo-entitlement&latest=false');
    expect(all.body.map((c: { status: string }) => c.status)).toEqual(['REVOKED', 'ISSUED']);
    for (const certificate of all.body) {
      for (const san of certificate.subjectAlternativeNames) expect(san.status).toBe('VERIFIED');
    }
    const pending = await get('/v2/certificates?entitlementId=ent-0004');
    expect(pending.body[0].status).toBe('PENDING_ISSUANCE');
    expect(pending.body[0].subjectAlternativeNames[0].status).toBe('PENDING');
  });

  it('returns only the latest certificate unless latest=false; latest is true or false', async () => {
    const latest = await get('/v2/certificates?entitlementId=demo-entitlement');
    expect(latest.body.map((c: { certificateId: string }) => c.certificateId)).toEqual([
      'cert-0002',
    ]);
    expectFieldError(
      await get('/v2/certificates?entitlementId=demo-entitlement&latest=1'),
      400,
      '$.latest',
      'INVALID_VALUE',
    );
    expectFieldError(await get('/v2/certificates'), 400, '$.entitlementId', 'REQUIRED');
    expectFieldError(
      await get('/v2/certificates?entitlementId=demo-entitlement&latest='),
      400,
      '$.latest',
      'INVALID_VALUE',
    );
  });
});

describe('certificates: order, reissue, download', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());

  it('answers an order 201 with the order result; X-Market-Id must be a locale', async () => {
    const body = {
      csr: await createCsr('www.decided.example.com'),
      productType: 'DV_SSL',
      period: 1,
    };
    const order = await sim.call('POST', '/v2/certificates', {
      ...T,
      body,
      headers: { 'x-market-id': 'en-US' },
    });
    expect(order.status).toBe(201);
    expect(order.body).toEqual({
      certificateId: expect.stringMatching(/^cert-/),
      subscriptionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      subscriptionCreatedForOrder: true,
    });
    for (const marketId of ['english', 'en_US', 'e', 'en-US-x-private-use-too-long']) {
      const refused = await sim.call('POST', '/v2/certificates', {
        ...T,
        body,
        headers: { 'x-market-id': marketId },
      });
      expect(refused.status, marketId).toBe(400);
      expect(refused.body.fields[0].path).toBe(`$['x-market-id']`);
    }
    const readonly = await sim.call('POST', '/v2/certificates', { token: 'demo-readonly', body });
    expect(readonly.status).toBe(403);
    expect(readonly.body.requiredScope).toBe('ssl.certificates:create');
  });

  it('answers a reissue 204 with no body, only for an ISSUED certificate (409 otherwise)', async () => {
    const before = await sim.call('GET', `${LIST}/cert-0005`, T);
    expect(before.body.status).toBe('ISSUED');
    const reissue = await sim.call('POST', '/v2/certificates/cert-0005/reissue', {
      ...T,
      body: {},
    });
    expect(reissue.status).toBe(204);
    expect(reissue.body).toBeUndefined();
    const after = await sim.call('GET', `${LIST}/cert-0005`, T);
    expect(after.body.status).toBe('PENDING_ISSUANCE');
    expect(after.body.serialNumber).not.toBe(before.body.serialNumber);
    for (const id of ['cert-0004', 'cert-0008', 'cert-0010']) {
      const refused = await sim.call('POST', `/v2/certificates/${id}/reissue`, { ...T, body: {} });
      expect(refused.status, id).toBe(409);
      expect(refused.body.code).toBe('CERTIFICATE_NOT_REISSUABLE');
    }
  });

  it('refuses to download a certificate that is not issued yet: 409 CERTIFICATE_NOT_ISSUED', async () => {
    const res = await sim.call('GET', '/v2/certificates/download?entitlementId=ent-0014', T);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'CERTIFICATE_NOT_ISSUED', message: expect.any(String) });
    const issued = await sim.call(
      'GET',
      '/v2/certificates/download?entitlementId=demo-entitlement',
      T,
    );
    expect(issued.status).toBe(200);
    expect(Object.keys(issued.body.pems).sort()).toEqual([
      'certificate',
      'cross',
      'intermediate',
      'root',
    ]);
  });
});

describe('conventions', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('meters 600 requests per window of 1399 seconds by default', async () => {
    sim = await startSimulator();
    const res = await sim.call('GET', `${LIST}?limit=1`, T);
    expect(res.headers['ratelimit-limit']).toBe('600');
    expect(res.headers['ratelimit-remaining']).toBe('599');
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1398);
    expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(1399);
  });

  it('meters an unauthenticated call under its IP but answers it 401, never 429', async () => {
    sim = await startSimulator({ rateLimit: 2, rateWindowSec: 60 });
    const remaining: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await sim.call('GET', `${LIST}?limit=1`);
      expect(res.status).toBe(401);
      remaining.push(res.headers['ratelimit-remaining']!);
    }
    expect(remaining).toEqual(['1', '0', '0', '0']);
    // A token has its own window.
    expect((await sim.call('GET', `${LIST}?limit=1`, T)).status).toBe(200);
  });

  it('answers a per-IP 429 after spending the credential window; a 401 takes no per-IP slot', async () => {
    sim = await startSimulator({ ipLimits: { 'hosting-read': 1 } });
    expect((await sim.call('GET', `${H}/apps`)).status).toBe(401);
    const first = await sim.call('GET', `${H}/apps`, T);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe('599');
    const limited = await sim.call('GET', `${H}/apps`, T);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      retryAfterSec: expect.any(Number),
    });
    expect(limited.body.retryAfterSec).toBeLessThanOrEqual(60);
    expect(limited.headers['retry-after']).toBe(String(limited.body.retryAfterSec));
    // The headers describe the credential's window, which the refused call still spent.
    expect(limited.headers['ratelimit-limit']).toBe('600');
    expect(limited.headers['ratelimit-remaining']).toBe('598');
    // Per IP, not per credential: another account from the same address is limited too.
    expect((await sim.call('GET', `${H}/apps`, { token: 'demo-other' })).status).toBe(429);
    // Another route class is not.
    expect((await sim.call('GET', `${LIST}?limit=1`, T)).status).toBe(200);
  });

  it('applies the default per-IP minutes: reads 120, writes 30, upload and deploy 10', async () => {
    sim = await startSimulator();
    const spend = async (method: string, path: string, allowed: number) => {
      for (let i = 0; i < allowed; i += 1) {
        expect((await sim!.call(method, path, T)).status, `${method} ${path} #${i}`).not.toBe(429);
      }
      expect((await sim!.call(method, path, T)).status).toBe(429);
    };
    await spend('GET', `${H}/apps/app-0001/status`, 120);
    await spend('DELETE', `${H}/apps/app-9999`, 30);
    await spend('POST', `${H}/apps/app-9999/deployments`, 10);
  });

  it('checks the scope before visibility: a read-only token writing elsewhere is 403', async () => {
    sim = await startSimulator();
    const res = await sim.call('POST', '/v2/certificates/cert-0090/reissue', {
      token: 'demo-readonly',
      body: {},
    });
    expect(res.status).toBe(403);
    expect(
      (await sim.call('POST', '/v2/certificates/cert-0090/reissue', { ...T, body: {} })).status,
    ).toBe(404);
  });

  it('answers errors as JSON whatever the Accept header says', async () => {
    sim = await startSimulator();
    const res = await sim.call('GET', `${LIST}/cert-9999`, {
      ...T,
      headers: { accept: 'text/html' },
    });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses limit and marker on the v2 transaction list', async () => {
    sim = await startSimulator();
    const base = `/v2/commerce/stores/${STORE_A}/transactions`;
    expectFieldError(await sim.call('GET', `${base}?limit=5`, T), 400, '$.limit', 'NOT_ACCEPTED');
    expectFieldError(await sim.call('GET', `${base}?marker=x`, T), 400, '$.marker', 'NOT_ACCEPTED');
    expect((await sim.call('GET', `${base}?pageSize=5`, T)).status).toBe(200);
  });
});

describe('hosting', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ ipLimits: false });
  });
  afterAll(() => sim.close());

  it('takes no limit or marker on GET /apps (the hosting document lists no parameters)', async () => {
    const all = await sim.call('GET', `${H}/apps`, T);
    expect(all.body.apps.length).toBeGreaterThan(1);
    const paged = await sim.call('GET', `${H}/apps?limit=1&marker=app-0001`, T);
    expect(paged.status).toBe(200);
    expect(paged.body).toEqual(all.body);
  });

  it('refuses a zip archive over 200 MiB with 413 PAYLOAD_TOO_LARGE naming zipFile', async () => {
    const boundary = 'weft-decisions-boundary';
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="zipFile"; filename="big.zip"\r\n` +
          'Content-Type: application/zip\r\n\r\n',
      );
      yield Buffer.from([0x50, 0x4b, 0x03, 0x04]);
      for (let i = 0; i < 200; i += 1) yield chunk;
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const res = await request(`${sim.url}${H}/apps/app-0001/source`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer demo-token',
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body: Readable.from(body()),
    });
    const reply = (await res.body.json()) as { code: string; fields: { path: string }[] };
    expect(res.statusCode).toBe(413);
    expect(reply.code).toBe('PAYLOAD_TOO_LARGE');
    expect(reply.fields[0]?.path).toBe('$.zipFile');
    expect(res.headers['ratelimit-limit']).toBe('600');
  });
});

describe('through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('asks for the first customer page without offset, later pages with the records skipped', async () => {
    await stack.resetCounts();
    const page = `query($offset: Int) { certificateCustomer(customerId: "demo-customer") {
      certificates(first: 5, offset: $offset) { edges { node { certificateId } } } } }`;
    const first = await stack.gql(page);
    expect(first.body.errors).toBeUndefined();
    expect(
      first.body.data.certificateCustomer.certificates.edges.map(
        (e: { node: { certificateId: string } }) => e.node.certificateId,
      ),
    ).toEqual(['cert-0001', 'cert-0002', 'cert-0003', 'cert-0004', 'cert-0005']);
    const later = await stack.gql(page, { offset: 5 });
    expect(later.body.data.certificateCustomer.certificates.edges[0].node.certificateId).toBe(
      'cert-0006',
    );
    // The simulator refuses offset=0: every call it saw was a 200.
    expect((await stack.sim.stats()).byStatus).toEqual({ '200': 2 });
  });

  it('serves a 253-character domain name end to end', async () => {
    const label = 'g'.repeat(63);
    const domain = `${label}.${label}.${label}.${'h'.repeat(57)}.net`;
    expect(domain).toHaveLength(253);
    const ordered = await stack.gql(
      `mutation($input: OrderCertificateInput!) { orderCertificate(input: $input) { certificateId userErrors { code message } } }`,
      {
        input: {
          csr: await createCsr('www.long-gateway.example.com'),
          productType: 'DV_SSL',
          period: 1,
          subjectAlternativeNames: [domain],
        },
      },
    );
    expect(ordered.body.data.orderCertificate.userErrors).toEqual([]);
    const { certificateId } = ordered.body.data.orderCertificate;
    const read = await stack.gql(
      `query($id: ID!, $domain: String!) { certificateCustomer(customerId: "demo-customer") {
        certificate(certificateId: $id) { domainVerification(domain: $domain) { domain status } } } }`,
      { id: certificateId, domain },
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.certificateCustomer.certificate.domainVerification).toEqual({
      domain,
      status: 'PENDING',
    });
  });

  it('asks for a wildcard’s base name, and refuses a malformed GUID before any upstream call', async () => {
    const wildcard = await stack.gql(`{ certificateCustomer(customerId: "demo-customer") {
      certificate(certificateId: "cert-0003") { domainVerification(domain: "*.shop03.example.com") { domain } } } }`);
    expect(wildcard.body.errors).toBeUndefined();
    expect(wildcard.body.data.certificateCustomer.certificate.domainVerification).toEqual({
      domain: 'shop03.example.com',
    });
    await stack.resetCounts();
    const guid = await stack.gql(`{ certificateSubscription(guid: "not-a-guid") { guid } }`);
    expect(guid.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'guid' });
    expect(await stack.upstreamCalls()).toBe(0);
  });
});
