/**
 * A credential's id is the HMAC-SHA-256 of its token (docs/security.md "Tokens"), computed as two
 * one-shot hashes over precomputed pads: it must be the same id `createHmac` gives — replicas of
 * different versions sharing Redis must agree on every budget, cache and idempotency key.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';

const reference = (secret: string, token: string) =>
  createHmac('sha256', secret).update(token).digest('hex').slice(0, 32);

const SECRETS = [
  'sixteen-chars-00',
  'send-window-test-secret-0123456789',
  'x'.repeat(64), // exactly one block
  'y'.repeat(65), // hashed first
  'ключ-с-юникодом-0123456789',
];
const TOKENS = [
  'demo-token',
  'a',
  'b'.repeat(55), // the last length whose padding fits the token's block
  'c'.repeat(56),
  'd'.repeat(64),
  `eyJhbGciOiJIUzI1NiJ9.${'e'.repeat(900)}.sig`, // a JWT-sized token
  'f'.repeat(1024), // the reused buffer's room, exactly
  'g'.repeat(1025), // past it: a buffer of its own
  'tök€n', // not a bearer token's alphabet, still hashed as UTF-8
];

describe('credential id', () => {
  it('is the HMAC-SHA-256 of the token under the secret, as createHmac computes it', () => {
    for (const secret of SECRETS) {
      const credentialFor = createCredentialFactory(secret);
      for (const token of TOKENS) {
        expect(credentialFor(token).id, `${secret} / ${token.slice(0, 12)}`).toBe(
          reference(secret, token),
        );
      }
    }
  });

  it('does not depend on the tokens hashed before it (the inner buffer is reused)', () => {
    const credentialFor = createCredentialFactory('reuse-secret-0123456789');
    const short = credentialFor('short').id;
    credentialFor('a-much-longer-token-that-fills-more-of-the-buffer-0123456789');
    expect(credentialFor('short').id).toBe(short);
    expect(short).toBe(reference('reuse-secret-0123456789', 'short'));
  });

  it('differs per secret and per token', () => {
    const ids = new Set(
      SECRETS.flatMap((secret) => TOKENS.map((token) => createCredentialFactory(secret)(token).id)),
    );
    expect(ids.size).toBe(SECRETS.length * TOKENS.length);
  });
});
