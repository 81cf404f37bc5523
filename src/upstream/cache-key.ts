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

/**
 * JSON with object keys sorted, so equal requests give equal text whatever their key order. Built
 * by appending, not by filter/sort/map/join chains: it runs for every upstream read (~28 per
 * dashboard), and the arrays those chains allocate were most of its cost.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i += 1)
      text += `${i === 0 ? '' : ','}${canonicalJson(value[i])}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${text}}`;
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
