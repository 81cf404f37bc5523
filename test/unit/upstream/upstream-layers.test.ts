/**
 * The upstream stack is built from one outer-to-inner list of layers, and a call's route is looked up
 * once, as it enters, for every layer below.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { cacheFor, invalidates } from '../../../src/upstream/route-policy.ts';
import { createUpstreamStack } from '../../../src/upstream/create-upstream-stack.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import type { RawResponse, Transport } from '../../../src/upstream/transport.ts';
import type { UpstreamClient } from '../../../src/upstream/upstream-call.ts';
import { assembleLayers, type UpstreamLayer } from '../../../src/upstream/upstream-layers.ts';
import {
  createRouteTable,
  type RoutedCall,
  type RouteTable,
} from '../../../src/upstream/upstream-routes.ts';

const credential = createCredentialFactory('unit-test-secret-0123456789')('demo-token');

describe('assembling the upstream layers', () => {
  /** A layer that notes its name when a call passes it. */
  const seen: string[] = [];
  const callsLayer = (name: string): UpstreamLayer => ({
    name,
    wraps: 'calls',
    wrap: (inner: UpstreamClient<RoutedCall>) => ({
      request: (call) => (seen.push(name), inner.request(call)),
      probe: (timeoutMs) => inner.probe(timeoutMs),
      close: () => inner.close(),
    }),
  });
  const attemptsLayer = (name: string): UpstreamLayer => ({
    name,
    wraps: 'attempts',
    wrap: (inner: Transport<RoutedCall>) => ({
      send: (call, signal) => (seen.push(name), inner.send(call, signal)),
      probe: (signal) => inner.probe(signal),
      close: () => inner.close(),
    }),
  });
  const retries: UpstreamLayer = {
    name: 'retries',
    wraps: 'attempts-into-calls',
    wrap: (transport) => ({
      request: async (call) => {
        seen.push('retries');
        const raw = await transport.send(call, new AbortController().signal);
        return { status: raw.status, data: raw.body as never, headers: {}, rateLimit: undefined };
      },
      probe: () => transport.probe(new AbortController().signal),
      close: () => transport.close(),
    }),
  };
  const socket: Transport<RoutedCall> = {
    send: async () => (seen.push('socket'), { status: 200, headers: {}, body: {} }) as RawResponse,
    probe: async () => true,
    close: async () => undefined,
  };
  const call: RoutedCall = { method: 'GET', route: '/x', credential, declared: undefined };

  it('passes a call through the layers in the order listed, outermost first', async () => {
    seen.length = 0;
    const client = assembleLayers(
      [callsLayer('a'), callsLayer('b'), retries, attemptsLayer('c'), attemptsLayer('d')],
      socket,
    );
    await client.request(call);
    expect(seen).toEqual(['a', 'b', 'retries', 'c', 'd', 'socket']);
  });

  it('refuses a list whose layers are out of place', () => {
    expect(() => assembleLayers([retries, callsLayer('late')], socket)).toThrow(
      'upstream layer "late" wraps calls: it must come before the one that makes calls out of attempts',
    );
    expect(() => assembleLayers([attemptsLayer('early'), retries], socket)).toThrow(
      'upstream layer "early" wraps attempts: it must come after the one that makes calls out of attempts',
    );
    expect(() => assembleLayers([retries, retries], socket)).toThrow(
      'upstream layer "retries" wraps attempts: it must come after',
    );
    expect(() => assembleLayers([attemptsLayer('c')], socket)).toThrow(
      'the upstream layers need one that makes calls out of attempts',
    );
  });
});

describe('the route lookup', () => {
  let server: Server;
  let upstreamUrl: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('happens once per call, whatever layers read the declaration', async () => {
    const declared = createRouteTable([
      {
        method: 'GET',
        route: '/things/{id}',
        cache: cacheFor({ kind: 'thing', ttlSec: 60, tags: () => ['things'] }),
        breaker: 'things',
        limitClass: { name: 'things', limit: 100, windowMs: 60_000, perCredential: false },
        redact: (data) => ({ ...(data as object), redacted: true }),
      },
      {
        method: 'POST',
        route: '/things',
        cache: invalidates(() => ['things']),
        breaker: 'things',
      },
    ]);
    let lookups = 0;
    const counted: RouteTable = {
      routes: declared.routes,
      of: (call) => (lookups++, declared.of(call)),
    };
    const stack = await createUpstreamStack(
      loadConfig({ NODE_ENV: 'test' }),
      pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
      upstreamUrl,
      counted,
    );
    try {
      const read = await stack.client.request({
        method: 'GET',
        route: '/things/{id}',
        params: { id: '1' },
        credential,
      });
      // The declaration reached the layers below: the answer was redacted.
      expect(read.data).toEqual({ ok: true, redacted: true });
      expect(lookups).toBe(1);
      await stack.client.request({ method: 'POST', route: '/things', body: {}, credential });
      expect(lookups).toBe(2);
    } finally {
      await stack.close();
    }
  });
});
