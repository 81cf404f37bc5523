import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

/** What `/split` answers, in two chunks; and how the test ends it once the first has arrived. */
const SPLIT_ANSWER = { name: 'Zürich – 東京' };
let endSplit: (() => void) | undefined;

/** The upstream's routes: what each path answers. */
function answer(req: IncomingMessage, res: ServerResponse) {
  seen.push(req);
  if (req.url?.startsWith('/big')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ blob: 'x'.repeat(50_000) }));
  } else if (req.url?.startsWith('/stream')) {
    // No declared length: the cap must hold while the body streams in.
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < 6; i += 1) res.write(`"${'y'.repeat(4_000)}"`);
    res.end();
  } else if (req.url?.startsWith('/split')) {
    // One answer in two writes with a three-byte character cut between them; the second is written
    // once the client has received the first (the test ends it), so the client reads two chunks.
    const bytes = Buffer.from(JSON.stringify(SPLIT_ANSWER));
    const cut = bytes.indexOf(Buffer.from('東')) + 1;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.write(bytes.subarray(0, cut));
    endSplit = () => res.end(bytes.subarray(cut));
  } else if (req.url?.startsWith('/reset')) {
    req.socket.destroy();
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
}

/** Listens on loopback, on `port` or any. */
async function listening(target: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve) => target.listen(port, '127.0.0.1', resolve));
  return (target.address() as AddressInfo).port;
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The HTTP attempt alone, as the layers above it call it. */
function transportOnly(baseUrl = base) {
  return createTransport({
    baseUrl,
    connectTimeoutMs: 1_000,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
    maxResponseBytes: 10_000,
    connections: 1,
  });
}

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

  it('decodes an answer read in several chunks as one text (a character cut between two)', async () => {
    const client = upstream();
    let chunks = 0;
    const onChunk = (message: unknown) => {
      const { request } = message as { request: { path: string } };
      if (request.path !== '/split') return;
      chunks += 1;
      if (chunks === 1) endSplit?.();
    };
    subscribe('undici:request:bodyChunkReceived', onChunk);
    try {
      const response = await client.request({ method: 'GET', route: '/split', credential });
      expect(chunks).toBe(2);
      expect(response.data).toEqual(SPLIT_ANSWER);
    } finally {
      unsubscribe('undici:request:bodyChunkReceived', onChunk);
      await client.close();
    }
  });

  it.each([
    ['with a declared length over the cap', '/big'],
    ['with no declared length, while it streams in', '/stream'],
  ])('caps the response body size: a body %s', async (_case, route) => {
    const client = upstream();
    await expect(client.request({ method: 'GET', route, credential })).rejects.toMatchObject({
      kind: 'too-large',
    });
    await client.close();
  });

  it('sends nothing for a call whose signal ended before the pool started it', async () => {
    const transport = transportOnly();
    const ended = new AbortController();
    ended.abort(new Error('the caller went away'));
    const before = seen.length;
    await expect(
      transport.send({ method: 'GET', route: '/never-sent', credential }, ended.signal),
    ).rejects.toMatchObject({ kind: 'timeout' });
    // An answer for another call on the same pool has come back: the ended one would have by now.
    await transport.send(
      { method: 'GET', route: '/after', credential },
      new AbortController().signal,
    );
    expect(seen.slice(before).map((req) => req.url)).toEqual(['/after']);
    await transport.close();
  });

  it('hands an answer on at once when no request waits to be written, failed calls before it included', async () => {
    // Its own upstream, down at first: a call refused at connect fails before the pool starts it.
    const own = createServer(answer);
    const port = await listening(own);
    await new Promise<void>((resolve) => own.close(() => resolve()));
    const transport = transportOnly(`http://127.0.0.1:${port}`);
    const live = () => new AbortController().signal;
    await expect(
      transport.send({ method: 'GET', route: '/down', credential }, live()),
    ).rejects.toMatchObject({ kind: 'network' });
    const again = createServer(answer);
    await listening(again, port);
    // Each other way a call ends without an answer: ended before it started, its connection cut,
    // its body over the cap. None may leave a call counted as waiting to be written.
    const ended = new AbortController();
    ended.abort(new Error('gone'));
    await expect(
      transport.send({ method: 'GET', route: '/a', credential }, ended.signal),
    ).rejects.toMatchObject({ kind: 'timeout' });
    await expect(
      transport.send({ method: 'GET', route: '/reset', credential }, live()),
    ).rejects.toMatchObject({ kind: 'network' });
    await expect(
      transport.send({ method: 'GET', route: '/stream', credential }, live()),
    ).rejects.toMatchObject({ kind: 'too-large' });
    // The answer's end is published just before the transport's handler sees it: a check-phase
    // callback queued there runs after the answer only if the answer was handed on at once.
    const order: string[] = [];
    const onEnd = (message: unknown) => {
      const { request } = message as { request: { path: string } };
      if (request.path === '/ordered') setImmediate(() => order.push('next check phase'));
    };
    subscribe('undici:request:trailers', onEnd);
    try {
      await transport.send({ method: 'GET', route: '/ordered', credential }, live());
      order.push('answer');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      unsubscribe('undici:request:trailers', onEnd);
      await transport.close();
      await new Promise<void>((resolve) => again.close(() => resolve()));
    }
    expect(order).toEqual(['answer', 'next check phase']);
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
