/**
 * A caller's bearer token plus the HMAC that stands for it wherever a key is needed (cache, token
 * bucket, singleflight). The token itself is never logged or stored: `toJSON` and `inspect` show the
 * HMAC only, so an accidental log line cannot leak it.
 */
import { hash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

export class Credential {
  readonly #token: string;
  /** Stable, non-reversible id of the token (hex HMAC-SHA256, 32 chars). */
  readonly id: string;

  constructor(token: string, id: string) {
    this.#token = token;
    this.id = id;
  }

  /** The `Authorization` header value. Only the upstream client calls this. */
  authorizationHeader(): string {
    return `Bearer ${this.#token}`;
  }

  toJSON(): string {
    return `credential:${this.id}`;
  }

  toString(): string {
    return this.toJSON();
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}

export type CredentialFactory = (token: string) => Credential;

/** Tokens are opaque to the gateway; only their shape is checked (RFC 6750 b64token). */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** SHA-256's block and digest sizes (bytes). */
const BLOCK = 64;
const DIGEST = 32;
/** Token bytes the reused inner buffer holds; a longer token gets a buffer of its own. */
const INNER_ROOM = 1024;

/**
 * HMAC-SHA-256 (RFC 2104) of a token under the secret, as two one-shot SHA-256 hashes over the
 * key's inner and outer pads — the same bytes as `createHmac('sha256', secret)`. `createHmac` built
 * an HMAC context, a handle and a stream object on every request and fetched the digest anew: on
 * the hit path it was the costliest step of Weft's own code. The pads are computed once; the token's
 * bytes are written after the inner pad, hashed, and wiped, so no copy of the token outlives the
 * call (docs/security.md "Tokens").
 */
function hmacSha256Hex(secret: string): (token: string) => string {
  const raw = Buffer.from(secret);
  // A key longer than a block is hashed first; a shorter one is padded with zeros.
  const key = Buffer.alloc(BLOCK);
  (raw.length > BLOCK ? hash('sha256', raw, 'buffer') : raw).copy(key);
  /** The inner pad, then room for the token. */
  const inner = Buffer.alloc(BLOCK + INNER_ROOM);
  /** The outer pad, then the inner digest. */
  const outer = Buffer.alloc(BLOCK + DIGEST);
  for (let i = 0; i < BLOCK; i += 1) {
    inner[i] = key[i]! ^ 0x36;
    outer[i] = key[i]! ^ 0x5c;
  }
  const innerPad = inner.subarray(0, BLOCK);
  return (token) => {
    const length = Buffer.byteLength(token);
    let innerDigest: Buffer;
    if (length <= INNER_ROOM) {
      inner.write(token, BLOCK, 'utf8');
      innerDigest = hash('sha256', inner.subarray(0, BLOCK + length), 'buffer');
      inner.fill(0, BLOCK, BLOCK + length);
    } else {
      const message = Buffer.concat([innerPad, Buffer.from(token)]);
      innerDigest = hash('sha256', message, 'buffer');
      message.fill(0);
    }
    innerDigest.copy(outer, BLOCK);
    return hash('sha256', outer, 'hex');
  };
}

export function createCredentialFactory(
  secret: string = randomBytes(32).toString('hex'),
): CredentialFactory {
  const hmac = hmacSha256Hex(secret);
  return (token) => new Credential(token, hmac(token).slice(0, 32));
}

/** Reads `Authorization: Bearer <token>`; returns undefined when absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1] && TOKEN.test(match[1]) ? match[1] : undefined;
}
