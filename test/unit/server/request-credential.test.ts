import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createRequestCredential } from '../../../src/server/request-credential.ts';
import {
  createCredentialFactory,
  type CredentialFactory,
} from '../../../src/upstream/credential.ts';

/** The credential factory, counting the HMACs it computes. */
function countingFactory(): { credentialFor: CredentialFactory; hmacs: () => number } {
  const factory = createCredentialFactory('request-credential-test-secret');
  let hmacs = 0;
  return {
    credentialFor: (token) => {
      hmacs += 1;
      return factory(token);
    },
    hmacs: () => hmacs,
  };
}

const requestOn = (socket: object, authorization?: string) =>
  ({ headers: { authorization }, raw: { socket } }) as unknown as FastifyRequest;

describe('the credential of a request', () => {
  it('is hashed once per keep-alive connection while its requests carry the same header', () => {
    const { credentialFor, hmacs } = countingFactory();
    const credentialOf = createRequestCredential(credentialFor);
    const connection = {};
    const first = credentialOf(requestOn(connection, 'Bearer token-a'));
    // Built anew, as the HTTP parser builds each request's header value.
    const second = credentialOf(requestOn(connection, ['Bearer', 'token-a'].join(' ')));
    expect(second).toBe(first);
    expect(hmacs()).toBe(1);
    // Asked again for the same request: remembered on the request.
    const request = requestOn(connection, 'Bearer token-a');
    credentialOf(request);
    credentialOf(request);
    expect(hmacs()).toBe(1);
  });

  it('is the token’s own when the next request on the connection carries another token', () => {
    const { credentialFor, hmacs } = countingFactory();
    const credentialOf = createRequestCredential(credentialFor);
    const reference = createCredentialFactory('request-credential-test-secret');
    const connection = {};
    const a = credentialOf(requestOn(connection, 'Bearer token-a'));
    // The same length, one character apart: behind a proxy, the next request may be another client's.
    const b = credentialOf(requestOn(connection, 'Bearer token-b'));
    const again = credentialOf(requestOn(connection, 'Bearer token-a'));
    expect(a?.id).toBe(reference('token-a').id);
    expect(b?.id).toBe(reference('token-b').id);
    expect(b?.id).not.toBe(a?.id);
    expect(again?.id).toBe(a?.id);
    expect(hmacs()).toBe(3);
    // A character whose low byte is the kept header's ('š' is U+0161, 'a' is 0x61) is another
    // header, and no token.
    expect(credentialOf(requestOn(connection, 'Bearer token-\u0161'))).toBeUndefined();
  });

  it('is not kept across connections, nor for a request without a token', () => {
    const { credentialFor, hmacs } = countingFactory();
    const credentialOf = createRequestCredential(credentialFor);
    credentialOf(requestOn({}, 'Bearer token-a'));
    credentialOf(requestOn({}, 'Bearer token-a'));
    expect(hmacs()).toBe(2);
    const connection = {};
    credentialOf(requestOn(connection, 'Bearer token-a'));
    expect(credentialOf(requestOn(connection))).toBeUndefined();
    expect(credentialOf(requestOn(connection, 'Basic dXNlcjpwYXNz'))).toBeUndefined();
    expect(credentialOf(requestOn(connection, 'Bearer token-a'))?.id).toBeDefined();
    expect(hmacs()).toBe(3);
  });
});
