/**
 * A caller's bearer token plus the HMAC that stands for it wherever a key is needed (cache, token
 * bucket, singleflight). The token itself is never logged or stored: `toJSON` and `inspect` show the
 * HMAC only, so an accidental log line cannot leak it.
 */
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
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

export function createCredentialFactory(
  secret: string = randomBytes(32).toString('hex'),
): CredentialFactory {
  // Imported once: a string key would be imported again by every HMAC (every request).
  const key = createSecretKey(Buffer.from(secret));
  return (token) =>
    new Credential(token, createHmac('sha256', key).update(token).digest('hex').slice(0, 32));
}

/** Reads `Authorization: Bearer <token>`; returns undefined when absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1] && TOKEN.test(match[1]) ? match[1] : undefined;
}
