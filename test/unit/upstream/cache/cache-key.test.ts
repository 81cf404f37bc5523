import { describe, expect, it } from 'vitest';
import { canonicalJson, createCacheKeyer } from '../../../../src/upstream/cache/cache-key.ts';
import { createCredentialFactory } from '../../../../src/upstream/credential.ts';
import type { UpstreamCall } from '../../../../src/upstream/upstream-call.ts';

const credentialFor = createCredentialFactory('unit-test-secret-0123456789');
const keyOf = createCacheKeyer('unit-test-secret-0123456789');
const TOKEN = 'canary-token-5e1f9a';

const call = (over: Partial<UpstreamCall> = {}): UpstreamCall => ({
  method: 'GET',
  route: '/v1/commerce/stores/{storeId}/customers',
  params: { storeId: 's1' },
  query: { limit: 20, marker: 'm' },
  credential: credentialFor(TOKEN),
  ...over,
});

describe('cache keys', () => {
  it('start with the credential HMAC and hold no token, id or body in clear', () => {
    const key = keyOf(
      call({
        method: 'POST',
        route: '/v1/commerce/order-subgraph',
        body: { query: '{ order(id: "o1") { id } }', variables: { card: '4111111111111111' } },
      }),
      'order-query',
    );
    expect(key.startsWith(`${credentialFor(TOKEN).id}:order-query:`)).toBe(true);
    for (const secret of [TOKEN, '4111111111111111', 'o1', 's1']) expect(key).not.toContain(secret);
  });

  it('differ by credential, params, query, meaningful headers and body', () => {
    const base = keyOf(call(), 'k');
    expect(keyOf(call({ credential: credentialFor('another-token') }), 'k')).not.toBe(base);
    expect(keyOf(call({ params: { storeId: 's2' } }), 'k')).not.toBe(base);
    expect(keyOf(call({ query: { limit: 20, marker: 'n' } }), 'k')).not.toBe(base);
    expect(keyOf(call({ headers: { 'x-store-id': 's9' } }), 'k')).not.toBe(base);
  });

  it('ignore key order, undefined query values and tracing headers', () => {
    const base = keyOf(call(), 'k');
    expect(keyOf(call({ query: { marker: 'm', limit: 20, extra: undefined } }), 'k')).toBe(base);
    expect(keyOf(call({ headers: { 'X-Request-Id': 'r-1', traceparent: 't' } }), 'k')).toBe(base);
  });

  it('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
  });

  it('canonical JSON is JSON.stringify of the sorted value, undefined members left out', () => {
    const value = {
      z: 'quote " and \\ and \u2028',
      y: [undefined, null, true, 1.5, -0, { 'b"k': 1, a: undefined }],
      x: {},
      w: [],
      v: undefined,
    };
    expect(canonicalJson(value)).toBe(
      JSON.stringify({
        w: [],
        x: {},
        y: [null, null, true, 1.5, 0, { 'b"k': 1 }],
        z: 'quote " and \\ and \u2028',
      }),
    );
    expect(canonicalJson('text')).toBe('"text"');
    expect(canonicalJson(undefined)).toBe('null');
  });
});
