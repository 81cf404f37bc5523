import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialFactory } from '../../../../src/upstream/credential.ts';
import { createTransport } from '../../../../src/upstream/http/http-transport.ts';
import { DEFAULT_RETRY_POLICY } from '../../../../src/upstream/http/retry-policy.ts';
import { createUpstreamClient } from '../../../../src/upstream/upstream-client.ts';

const credential = createCredentialFactory('transport-test-secret-0123')('tok-123');
let server: Server;
let base: string;
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    if (req.url?.startsWith('/big')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ blob: 'x'.repeat(50_000) }));
    } else if (req.url?.startsWith('/slow')) {
      setTimeout(() => res.end('{}'), 2_000);
    } else {
      res.writeHead(200, {
        'content-type': 'application/json',
        'ratelimit-limit': '600',
        'ratelimit-remaining': '12',
        'ratelimit-reset': '30',
      });
      res.end(JSON.stringify({ path: req.url }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function upstream(deadlineMs = 5_000) {
  return createUpstreamClient({
    transport: createTransport({
      baseUrl: base,
      connectTimeoutMs: 1_000,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 5_000,
      maxResponseBytes: 10_000,
      connections: 4,
    }),
    deadlineMs,
    retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 },
  });
}

describe('http transport', () => {
  it('sends the bearer token, encodes path params and reads RateLimit headers', async () => {
    const client = upstream();
    const response = await client.request<{ path: string }>({
      method: 'GET',
      route: '/v2/customers/{customerId}/x',
      params: { customerId: 'a/b c' },
      query: { ids: ['1', '2'], skip: undefined },
      credential,
    });
    expect(response.data.path).toBe('/v2/customers/a%2Fb%20c/x?ids=1&ids=2');
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer tok-123');
    expect(response.rateLimit).toEqual({ limit: 600, remaining: 12, resetSec: 30 });
    await client.close();
  });

  it('refuses to send the token to another origin', async () => {
    const client = upstream();
    const before = seen.length;
    await expect(
      client.request({ method: 'GET', route: 'http://attacker.invalid/steal', credential }),
    ).rejects.toMatchObject({ kind: 'refused' });
    await expect(
      client.request({ method: 'GET', route: '//attacker.invalid/steal', credential }),
    ).rejects.toMatchObject({
      kind: 'refused',
    });
    expect(seen.length).toBe(before);
    await client.close();
  });

  it('caps the response body size', async () => {
    const client = upstream();
    await expect(
      client.request({ method: 'GET', route: '/big', credential }),
    ).rejects.toMatchObject({ kind: 'too-large' });
    await client.close();
  });

  it('enforces the per-operation deadline', async () => {
    const client = upstream(300);
    const started = Date.now();
    await expect(
      client.request({ method: 'GET', route: '/slow', credential }),
    ).rejects.toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1_500);
    await client.close();
  });
});
