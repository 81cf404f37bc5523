/**
 * The memo of recent tokens' credentials: a token seen again is not hashed again, the memo stays
 * within its bound of characters, forgets a token left unused, and never shows a token — not in
 * the memo's own text, nor in the credential it answers.
 */
import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Credential, createCredentialFactory } from '../../../src/upstream/credential.ts';
import {
  CREDENTIAL_MEMO_MAX_TOKEN_CHARS,
  CredentialMemo,
} from '../../../src/upstream/credential-memo.ts';

const SECRET = 'unit-test-secret-0123456789';
/** Counts derivations (the HMAC a memo spares), giving each token a distinct id. */
function countingDerive() {
  let calls = 0;
  const derive = (token: string) => {
    calls += 1;
    return new Credential(token, `id-${calls}`);
  };
  return { derive, calls: () => calls };
}

describe('credential memo', () => {
  it('hashes a token once: the same token gets the same credential without a second HMAC', () => {
    const memo = new CredentialMemo<Credential>();
    const { derive, calls } = countingDerive();
    const first = memo.credentialOf('token-a', derive);
    const again = memo.credentialOf('token-a', derive);
    expect(again).toBe(first);
    expect(calls()).toBe(1);
    memo.credentialOf('token-b', derive);
    expect(calls()).toBe(2);
  });

  it("is the credential factory's: a token seen again gets the credential it got then", () => {
    const memo = new CredentialMemo<Credential>();
    const credentialFor = createCredentialFactory(SECRET, memo);
    const first = credentialFor('token-a');
    expect(credentialFor('token-a')).toBe(first);
    expect(memo.size).toBe(1);
  });

  it('answers the id the token always had: its HMAC, first seen or remembered', () => {
    const credentialFor = createCredentialFactory(SECRET, new CredentialMemo<Credential>());
    const hmacOf = (token: string) =>
      createHmac('sha256', SECRET).update(token).digest('hex').slice(0, 32);
    expect(credentialFor('token-a').id).toBe(hmacOf('token-a'));
    expect(credentialFor('token-a').id).toBe(hmacOf('token-a'));
    expect(credentialFor('token-b').id).toBe(hmacOf('token-b'));
  });

  it('stays within its bound of characters, forgetting the least recently used tokens', () => {
    // Each entry weighs its token (8 chars) plus 256: room for exactly four.
    const memo = new CredentialMemo<Credential>({ maxChars: 4 * (8 + 256) });
    const { derive, calls } = countingDerive();
    for (let i = 0; i < 100; i += 1)
      memo.credentialOf(`token-${String(i).padStart(2, '0')}`, derive);
    expect(memo.size).toBe(4);
    // The last four are held; the first was forgotten and is derived again.
    memo.credentialOf('token-99', derive);
    expect(calls()).toBe(100);
    memo.credentialOf('token-00', derive);
    expect(calls()).toBe(101);
  });

  it('does not hold a token longer than CREDENTIAL_MEMO_MAX_TOKEN_CHARS', () => {
    const memo = new CredentialMemo<Credential>();
    const { derive, calls } = countingDerive();
    const long = 'x'.repeat(CREDENTIAL_MEMO_MAX_TOKEN_CHARS + 1);
    memo.credentialOf(long, derive);
    memo.credentialOf(long, derive);
    expect(calls()).toBe(2);
    expect(memo.size).toBe(0);
  });

  it('forgets a token unused for its idle time, counted from its last use', () => {
    let clock = 1_000_000;
    const memo = new CredentialMemo<Credential>({ idleMs: 1_000, now: () => clock });
    const { derive, calls } = countingDerive();
    memo.credentialOf('token-a', derive);
    clock += 800;
    memo.credentialOf('token-a', derive); // used again: its idle time starts over
    clock += 800;
    memo.credentialOf('token-a', derive);
    expect(calls()).toBe(1);
    clock += 1_001;
    memo.credentialOf('token-a', derive);
    expect(calls()).toBe(2);
  });

  it('never shows a token: not in its own text, nor in the credential it answers', () => {
    const memo = new CredentialMemo<Credential>();
    const credentialFor = createCredentialFactory(SECRET, memo);
    const token = 'secret-bearer-token-value';
    const credential = credentialFor(token);
    const shown = [
      JSON.stringify({ memo, credential }),
      inspect({ memo, credential }, { depth: 10, showHidden: true }),
      String(memo),
      `${credential}`,
    ];
    for (const text of shown) expect(text).not.toContain(token);
    expect(JSON.stringify(memo)).toBe('"credential memo (1 tokens)"');
    expect(JSON.stringify(credential)).toBe(`"credential:${credential.id}"`);
  });
});
