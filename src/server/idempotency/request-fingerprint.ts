/**
 * The two hashes an idempotency record is found and checked by. Neither can be reversed to what it
 * hashes: the record key is a SHA-256 of the credential's HMAC id and the client's key, and the
 * request fingerprint is an HMAC keyed by the credential id, so even a low-entropy variable (a short
 * secret value) cannot be guessed back from a stored fingerprint by someone who reads Redis.
 */
import { createHash, createHmac } from 'node:crypto';

/** `Idempotency-Key`: 1–255 visible ASCII characters (a UUID is the usual choice). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Where a credential's use of a key is recorded. */
export function recordKeyOf(credentialId: string, idempotencyKey: string): string {
  return createHash('sha256').update(`${credentialId}\n${idempotencyKey}`).digest('hex');
}

/**
 * JSON with object keys sorted, so `{a,b}` and `{b,a}` hash alike. Values that are not plain JSON
 * (an upload's stream) count by their kind only: a file's content is not part of the fingerprint.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    return JSON.stringify(`[${value.constructor?.name ?? 'object'}]`);
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The fingerprint of "the same request": document text, operation name and variables. */
export function requestFingerprint(
  credentialId: string,
  request: { source: string; operationName: string | null; variables: unknown },
): string {
  return createHmac('sha256', credentialId)
    .update(canonicalJson([request.source, request.operationName, request.variables ?? {}]))
    .digest('hex');
}
