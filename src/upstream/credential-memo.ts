/**
 * The credentials of recently seen bearer tokens, so that a token seen again is not hashed again:
 * the HMAC of every request's token (a native HMAC object, a digest and its hex text) was about a
 * tenth of a cached answer's own cost. A front end sends the same token on every screen, so nearly
 * every request after the first finds its credential here.
 *
 * The memo holds tokens as its keys, in this process's memory only — the place the HMAC already
 * receives them. Nothing else may: its `toJSON` and `inspect` show only how many it holds, so a log
 * line, an error or a metric that names it by accident cannot carry a token, and the credential it
 * answers still shows only the HMAC id. Bounded in characters (a JWT weighs a kilobyte, an opaque
 * token a few dozen bytes), and a token unused for {@link CREDENTIAL_MEMO_IDLE_MS} is forgotten, so
 * a token does not stay in memory long after its client stopped sending it.
 */
import { inspect } from 'node:util';
import { LRUCache } from 'lru-cache';

/** Characters of tokens held (~2 MiB): some 1 500 JWTs, or 8 000 short opaque tokens. */
export const CREDENTIAL_MEMO_CHARS = 2 * 1024 * 1024;
/** Room an entry takes beside its token's characters (the credential, the entry's bookkeeping). */
const ENTRY_OVERHEAD_CHARS = 256;
/** A longer token is hashed on every request: one would take a sizeable share of the memo. */
export const CREDENTIAL_MEMO_MAX_TOKEN_CHARS = 8 * 1024;
/** A token not seen for this long is forgotten (and hashed again if it comes back). */
export const CREDENTIAL_MEMO_IDLE_MS = 10 * 60_000;

export interface CredentialMemoOptions {
  readonly maxChars?: number;
  readonly idleMs?: number;
  /** The clock of the idle time (ms). */
  readonly now?: () => number;
}

/** Of `Credential`s (credential.ts); generic only so that this file need not import that one. */
export class CredentialMemo<Credential extends object> {
  readonly #entries: LRUCache<string, Credential>;

  constructor(options: CredentialMemoOptions = {}) {
    this.#entries = new LRUCache<string, Credential>({
      maxSize: options.maxChars ?? CREDENTIAL_MEMO_CHARS,
      sizeCalculation: (_credential, token) => token.length + ENTRY_OVERHEAD_CHARS,
      ttl: options.idleMs ?? CREDENTIAL_MEMO_IDLE_MS,
      // Counted from the last request that carried the token, not from the first.
      updateAgeOnGet: true,
      // The clock read on each lookup (a fraction of a µs), not a timer per millisecond to cache it.
      ttlResolution: 0,
      ...(options.now && { perf: { now: options.now } }),
    });
  }

  /** The credential of `token`: remembered, or derived by `derive` and remembered. */
  credentialOf(token: string, derive: (token: string) => Credential): Credential {
    const known = this.#entries.get(token);
    if (known) return known;
    const credential = derive(token);
    if (token.length <= CREDENTIAL_MEMO_MAX_TOKEN_CHARS) this.#entries.set(token, credential);
    return credential;
  }

  /** How many tokens are held. */
  get size(): number {
    return this.#entries.size;
  }

  toJSON(): string {
    return `credential memo (${this.#entries.size} tokens)`;
  }

  toString(): string {
    return this.toJSON();
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}
