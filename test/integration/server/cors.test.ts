/**
 * CORS over plain HTTP: a preflight from an allowed origin gets 204 with the headers the clients
 * send and a max age; answers expose what pages read; another origin gets no CORS headers; no
 * credentials mode. (The browser's own enforcement: test/e2e/server/cors.browser.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    env: { CORS_ORIGINS: 'https://app.example.com,https://*.example.org' },
  });
});
afterAll(() => stack.close());

const preflight = (origin: string) =>
  stack.http('OPTIONS', '/graphql', {
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-store-id,idempotency-key',
    },
  });

describe('CORS', () => {
  it('answers a preflight from an allowed origin with 204 and the headers clients send', async () => {
    for (const origin of ['https://app.example.com', 'https://shop.example.org']) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      const allowed = String(res.headers['access-control-allow-headers']).split(/,\s*/);
      for (const header of [
        'authorization',
        'content-type',
        'apollo-require-preflight',
        'x-apollo-operation-name',
        'x-store-id',
        'idempotency-key',
        'x-request-id',
      ]) {
        expect(allowed).toContain(header);
      }
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      expect(res.headers['access-control-max-age']).toBe('600');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('gives another origin no CORS headers, and exposes what pages read on an answer', async () => {
    const refused = await preflight('https://evil.example.net');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    const answer = await stack.gql('{ apps { appId } }', undefined, {
      headers: { origin: 'https://app.example.com' },
    });
    expect(answer.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const exposed = String(answer.headers['access-control-expose-headers']).split(/,\s*/);
    for (const header of [
      'ratelimit-remaining',
      'ratelimit-reset',
      'x-request-id',
      'retry-after',
    ]) {
      expect(exposed).toContain(header);
    }
  });

  it('keeps Origin in Vary beside what a kept answer depends on, stored and replayed', async () => {
    const query =
      '{ certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }';
    const headers = { origin: 'https://app.example.com' };
    const first = await stack.gql(query, undefined, { headers });
    const replayed = await stack.gql(query, undefined, { headers });
    expect(replayed.headers['x-weft-response-cache']).toBe('hit');
    for (const answer of [first, replayed]) {
      expect(answer.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
      const vary = String(answer.headers.vary).toLowerCase().split(/,\s*/);
      expect(vary).toEqual(expect.arrayContaining(['origin', 'authorization', 'accept']));
      expect(answer.headers['access-control-allow-origin']).toBe('https://app.example.com');
    }
  });
});
