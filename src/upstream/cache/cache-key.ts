/**
 * Cache and singleflight keys: `<credential HMAC id>:<kind>:<request digest>`. The request part is a
 * keyed SHA-256 (secret prefix, the same secret as the credential ids) of everything that shapes the
 * answer — method, route, path parameters, query, the headers that matter, and for GraphQL POSTs the
 * document and variables — so no token, id list or variable value appears in a key, and short values cannot be recovered by hashing guesses. A secret-prefix
 * hash rather than an HMAC: the digest is never verified, only compared, so length extension does not
 * matter, and one hash costs less than an HMAC's two on every cache lookup.
 */
import { hash } from 'node:crypto';
import type { UpstreamCall } from '../upstream-call.ts';

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

/** Whether the keys are already in `Array.prototype.sort`'s order (UTF-16 code units). */
function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i += 1) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

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
  const keys = Object.keys(record);
  // Sorting copies the array (most of a key's garbage); most objects here come in order.
  if (!inOrder(keys)) keys.sort();
  let text = '{';
  for (const key of keys) {
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
    // Members written in sorted order, which canonicalJson then need not sort.
    const identity = canonicalJson({
      b: call.method === 'GET' ? undefined : call.body,
      h: headers,
      m: call.method,
      p: call.params ?? {},
      q: call.query ?? {},
      r: call.route,
    });
    const digest = hash('sha256', `${secret}\u0000${identity}`, 'base64url').slice(0, 32);
    return `${call.credential.id}:${kind}:${digest}`;
  };
}
