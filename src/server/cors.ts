/**
 * CORS (docs/security.md "HTTP"): which web origins' pages may call the graph from a browser.
 * Origins come from `CORS_ORIGINS` — exact (`https://app.example.com`) or patterns where `*` stands
 * for one host label or for the port (`https://*.example.com`, `http://localhost:*`); unset, none in
 * production and the loopback origins in development. A preflight is answered with the headers the
 * mainstream clients send, and answers expose the ones they read.
 *
 * No credentials mode: Weft authenticates with a bearer token a page sets itself, never with
 * cookies, so `Access-Control-Allow-Credentials` is not sent and a page cannot ride on a browser's
 * ambient credentials.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { LEDGER_HEADERS } from './ledger-header.ts';

/** Loopback origins on any port: the development default. */
const DEVELOPMENT_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'];

/**
 * Request headers the clients send (Apollo Client, urql, graphql-request, graphql-sse, uploads, the
 * MCP SDK's client).
 */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'apollo-require-preflight',
  'x-apollo-operation-name',
  'apollographql-client-name',
  'apollographql-client-version',
  'x-store-id',
  'idempotency-key',
  'weft-priority',
  ...LEDGER_HEADERS,
  'weft-accept-partial',
  'weft-estimate',
  // An MCP client in a page (MCP=on, docs/agents.md) sends the protocol's version after it connects.
  'mcp-protocol-version',
  REQUEST_ID_HEADER,
];

/** Response headers a page may read. */
export const CORS_EXPOSED_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-write-reserve',
  'retry-after',
  REQUEST_ID_HEADER,
  'x-weft-response-cache',
];

/** The configured origins (patterns included). */
export function corsOriginsOf(config: Pick<Config, 'CORS_ORIGINS' | 'NODE_ENV'>): string[] {
  if (config.CORS_ORIGINS === 'none') return [];
  if (config.CORS_ORIGINS !== undefined) return config.CORS_ORIGINS.split(',');
  return config.NODE_ENV === 'production' ? [] : DEVELOPMENT_ORIGINS;
}

const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&');

/** An origin pattern as a matcher: `*` is one host label, or the whole port. */
export function originMatcher(pattern: string): (origin: string) => boolean {
  if (!pattern.includes('*')) return (origin) => origin === pattern;
  const source = pattern
    .split('*')
    .map(escape)
    .join('\uE000')
    .replace(/:\uE000$/, ':\\d{1,5}')
    .replaceAll('\uE000', '[A-Za-z0-9-]+');
  const regex = new RegExp(`^${source}$`);
  return (origin) => regex.test(origin);
}

export async function registerCors(app: FastifyInstance, config: Config): Promise<void> {
  const matchers = corsOriginsOf(config).map(originMatcher);
  await app.register(cors, {
    origin: (origin, callback) =>
      callback(null, origin !== undefined && matchers.some((matches) => matches(origin))),
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    // Browsers keep a preflight this long (Chromium caps it at two hours).
    maxAge: 600,
  });
}
