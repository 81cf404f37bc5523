/**
 * What the HTTP framework refuses before a route handler runs still comes back like every other
 * refusal of the upstream: the documented envelope `{code, message, fields?}`, the `RateLimit-*`
 * headers, and a count in `/__sim/stats` (under the route template when the path names one).
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const T = { token: 'demo-token' };
const LIST = 'GET /v2/customers/{customerId}/certificates';

/** The documented envelope, with the credential window's headers. */
function expectEnvelope(
  res: { status: number; headers: Record<string, string>; body: any },
  status: number,
  code: string,
): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ code, message: expect.any(String) });
  expect(Object.keys(res.body).every((k) => ['code', 'message', 'fields'].includes(k))).toBe(true);
  expect(res.headers['ratelimit-limit']).toBe('600');
  expect(Number(res.headers['ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
  expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
}

/** A raw HTTP exchange, for requests no HTTP client would send. */
function rawExchange(url: string, request: string): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    let data = '';
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('close', () => resolve(data));
    socket.on('error', () => resolve(data));
  });
}

describe('path parameters', () => {
  it('serves a 253-character domain name (past Fastify’s default 100-character parameter)', async () => {
    sim = await startSimulator();
    const label = 'd'.repeat(63);
    const domain = `${label}.${label}.${label}.${'e'.repeat(57)}.com`;
    expect(domain).toHaveLength(253);
    const { createCsr } = await import('../../support/csr.ts');
    const order = await sim.call('POST', '/v2/certificates', {
      ...T,
      body: {
        csr: await createCsr('www.long-names.example.com'),
        productType: 'DV_SSL',
        period: 1,
        subjectAlternativeNames: [domain],
      },
    });
    expect(order.status).toBe(201);
    const base = `/v2/customers/demo-customer/certificates/${order.body.certificateId}`;
    const one = await sim.call('GET', `${base}/domainVerifications/${domain}`, T);
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body).toMatchObject({ domain, usage: 'SUBJECT_ALTERNATIVE_NAME' });
    expect(one.headers['ratelimit-remaining']).toBeDefined();
    // 254 characters is no domain name: the route answers, naming the parameter.
    const tooLong = await sim.call('GET', `${base}/domainVerifications/a${domain}`, T);
    expectEnvelope(tooLong, 400, 'INVALID_FORMAT');
    expect(tooLong.body.fields[0].path).toBe('$.domain');
  });

  it('lets any id of up to 255 characters reach its route (an unknown one is 404 there)', async () => {
    sim = await startSimulator();
    const res = await sim.call('GET', `/v2/customers/${'c'.repeat(255)}/certificates`, T);
    expectEnvelope(res, 404, 'NOT_FOUND');
    expect((await sim.stats()).byRoute[LIST]).toBe(1);
  });

  it('refuses a parameter over 255 characters with 400 naming it, counted under the route', async () => {
    sim = await startSimulator();
    const res = await sim.call('GET', `/v2/customers/${'c'.repeat(256)}/certificates`, T);
    expectEnvelope(res, 400, 'INVALID_FORMAT');
    expect(res.body.fields).toEqual([
      { path: '$.customerId', code: 'TOO_LONG', message: expect.any(String) },
    ]);
    expect(res.headers['ratelimit-remaining']).toBe('599');
    const hosting = await sim.call('GET', `/v1/hosting/nodejs/apps/${'x'.repeat(300)}`, T);
    expectEnvelope(hosting, 400, 'INVALID_FORMAT');
    expect(hosting.body.fields[0].path).toBe('$.appId');
    // Decoded length counts: 100 × "%C3%A9" is 100 characters, far below the bound.
    const encoded = await sim.call('GET', `/v2/customers/${'%C3%A9'.repeat(100)}/certificates`, T);
    expectEnvelope(encoded, 404, 'NOT_FOUND');
    const stats = await sim.stats();
    expect(stats.byRoute[LIST]).toBe(2);
    expect(stats.byRoute['GET /v1/hosting/nodejs/apps/{appId}']).toBe(1);
    expect(stats.byStatus).toEqual({ '400': 2, '404': 1 });
  });

  it('refuses a bad percent-encoding with 400 naming the parameter', async () => {
    sim = await startSimulator();
    const res = await sim.call('GET', '/v2/customers/%E0%A4%A/certificates', T);
    expectEnvelope(res, 400, 'INVALID_FORMAT');
    expect(res.body.fields[0].path).toBe('$.customerId');
    expect((await sim.stats()).byRoute[LIST]).toBe(1);
  });

  it('authenticates and meters a refused path like any other request', async () => {
    sim = await startSimulator({ rateLimit: 2, rateWindowSec: 60 });
    const path = `/v2/customers/${'c'.repeat(256)}/certificates`;
    const anonymous = await sim.call('GET', path);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('UNAUTHORIZED');
    expect(anonymous.headers['ratelimit-limit']).toBe('2');
    expect((await sim.call('GET', path, T)).status).toBe(400);
    expect((await sim.call('GET', path, T)).status).toBe(400);
    const limited = await sim.call('GET', path, T);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      retryAfterSec: expect.any(Number),
    });
    expect(limited.headers['retry-after']).toBe(String(limited.body.retryAfterSec));
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect((await sim.stats()).byStatus).toEqual({ '400': 2, '401': 1, '429': 1 });
  });
});

describe('routing and bodies', () => {
  it('answers an unknown path and an unsupported method with the 404 envelope', async () => {
    sim = await startSimulator();
    expectEnvelope(await sim.call('GET', '/v3/nothing-here', T), 404, 'NOT_FOUND');
    expectEnvelope(await sim.call('PUT', '/v2/certificates', { ...T, body: {} }), 404, 'NOT_FOUND');
    expectEnvelope(await sim.call('DELETE', '/v2/certificates/download', T), 404, 'NOT_FOUND');
    const stats = await sim.stats();
    expect(stats.total).toBe(3);
    expect(stats.byStatus).toEqual({ '404': 3 });
  });

  it('answers a body that is not JSON with 400 INVALID_BODY', async () => {
    sim = await startSimulator();
    const res = await sim.call('POST', '/v1/hosting/nodejs/apps', { ...T, body: '{"name": ' });
    expectEnvelope(res, 400, 'INVALID_BODY');
    expect((await sim.stats()).byRoute['POST /v1/hosting/nodejs/apps']).toBe(1);
  });

  it('answers a JSON body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    sim = await startSimulator();
    const res = await sim.call(
      'POST',
      '/v1/commerce/stores/11111111-1111-4111-8111-111111111111/customers',
      {
        ...T,
        body: { email: 'big@example.com', givenName: 'x'.repeat(1024 * 1024) },
      },
    );
    expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
    expect((await sim.stats()).byRoute['POST /v1/commerce/stores/{storeId}/customers']).toBe(1);
  });

  it('answers a body in another media type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    sim = await startSimulator();
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await sim.call('POST', '/v1/hosting/nodejs/apps', {
        ...T,
        body: 'name=shop',
        headers: { 'content-type': contentType },
      });
      expectEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    // The source upload takes multipart; JSON there is read and refused by the route itself.
    const json = await sim.call('POST', '/v1/hosting/nodejs/apps/app-0001/source', {
      ...T,
      body: { zipFile: 'nope' },
    });
    expect(json.status).toBe(400);
    expect(json.body.fields[0].path).toBe('$.zipFile');
    const upload = await sim.call('POST', '/v1/hosting/nodejs/apps/app-0001/source', {
      ...T,
      body: 'PK',
      headers: { 'content-type': 'application/zip' },
    });
    expectEnvelope(upload, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await sim.stats()).byStatus).toEqual({ '400': 1, '415': 5 });
  });

  it('answers headers over 16 KiB with 431 in the envelope, metered under the client IP', async () => {
    sim = await startSimulator();
    const response = await rawExchange(
      sim.url,
      `GET /v1/hosting/nodejs/apps HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer demo-token\r\n` +
        `X-Padding: ${'p'.repeat(20_000)}\r\n\r\n`,
    );
    const [head = '', body = ''] = response.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/\r\nRateLimit-Limit: 600\r\n/i);
    expect(head).toMatch(/\r\nRateLimit-Remaining: 599\r\n/i);
    expect(head).toMatch(/\r\nRateLimit-Reset: \d+\r\n/i);
    expect(JSON.parse(body)).toEqual({ code: 'HEADERS_TOO_LARGE', message: expect.any(String) });
    expect((await sim.stats()).byStatus).toEqual({ '431': 1 });
  });

  it('answers a request line the parser cannot read with 400 INVALID_REQUEST', async () => {
    sim = await startSimulator();
    const response = await rawExchange(sim.url, 'NOT AN HTTP REQUEST\r\n\r\n');
    const [head = '', body = ''] = response.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/\r\nRateLimit-Remaining: \d+\r\n/i);
    expect(JSON.parse(body)).toMatchObject({ code: 'INVALID_REQUEST' });
    expect((await sim.stats()).byStatus).toEqual({ '400': 1 });
  });
});
