/**
 * Cache and singleflight keys: `<credential HMAC id>:<kind>:<request digest>`. The request part is a
 * keyed SHA-256 (secret prefix, the same secret as the credential ids) of everything that shapes the
 * answer — method, route, path parameters, query, the headers that matter, and for GraphQL POSTs the
 * document and variables — so no token, id list or variable value appears in a key, and short values cannot be recovered by hashing guesses. A secret-prefix
 * hash rather than an HMAC: the digest is never verified, only compared, so length extension does not
 * matter, and it is a quarter of the cost on every cache lookup.
 */
import { hash } from 'node:crypto';
import type { UpstreamCall } from './upstream-call.ts';

/** Headers that identify or trace a request without changing its answer. */
const IGNORED_HEADERS = new Set([
  'x-request-id',
  'request-id',
  'traceparent',
  'tracestate',
  'baggage',
  'user-agent',
  'accept',
  'authorization',
]);

/** JSON with object keys sorted, so equal requests give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export type CacheKeyer = (call: UpstreamCall, kind: string) => string;

export function createCacheKeyer(secret: string): CacheKeyer {
  return (call, kind) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(call.headers ?? {})) {
      const lower = name.toLowerCase();
      if (!IGNORED_HEADERS.has(lower)) headers[lower] = value;
    }
    const identity = canonicalJson({
      m: call.method,
      r: call.route,
      p: call.params ?? {},
      q: call.query ?? {},
      h: headers,
      b: call.method === 'GET' ? undefined : call.body,
    });
    const digest = hash('sha256', `${secret}\u0000${identity}`, 'base64url').slice(0, 32);
    return `${call.credential.id}:${kind}:${digest}`;
  };
}
