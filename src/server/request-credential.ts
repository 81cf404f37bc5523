/**
 * The credential of an HTTP request, derived once: several steps of the GraphQL route need it (the
 * refusal throttle, APQ registration, the replay key, the context), and each would otherwise hash
 * the token again. Remembered per request object, and per keep-alive connection for the next
 * request that carries the same `Authorization` header: no map remembers a token's id across
 * connections (docs/security.md "Tokens").
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { bearerToken, type Credential, type CredentialFactory } from '../upstream/credential.ts';

export type RequestCredential = (request: FastifyRequest) => Credential | undefined;

/**
 * Where a request keeps its credential (null: it has none): a property of the request rather than a
 * WeakMap entry, which the collector must trace as an ephemeron after every request.
 */
const CREDENTIAL = Symbol('weft.requestCredential');
type WithCredential = FastifyRequest & { [CREDENTIAL]?: Credential | null };

/**
 * The last credential a connection carried, kept on its socket: a client sends the same header on
 * every request of a connection, and the HMAC, with the OpenSSL objects it makes, was a visible
 * share of a replayed answer's CPU (docs/performance.md). It lives as long as the connection does.
 */
const CONNECTION_CREDENTIAL = Symbol('weft.connectionCredential');
interface ConnectionCredential {
  readonly header: string;
  readonly credential: Credential;
}
type Connection = object & { [CONNECTION_CREDENTIAL]?: ConnectionCredential };

/**
 * Whether two `Authorization` headers are the same, in a time that does not depend on where they
 * differ: behind a proxy that reuses connections, the previous header may be another client's.
 */
function sameHeader(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const bytesA = Buffer.from(a);
  const bytesB = Buffer.from(b);
  return bytesA.length === bytesB.length && timingSafeEqual(bytesA, bytesB);
}

export function createRequestCredential(credentialFor: CredentialFactory): RequestCredential {
  const derive = (header: string | undefined, connection: Connection | undefined) => {
    if (header === undefined) return undefined;
    const last = connection?.[CONNECTION_CREDENTIAL];
    if (last && sameHeader(last.header, header)) return last.credential;
    const token = bearerToken(header);
    if (!token) return undefined;
    const credential = credentialFor(token);
    if (connection) connection[CONNECTION_CREDENTIAL] = { header, credential };
    return credential;
  };
  return (request: WithCredential) => {
    const remembered = request[CREDENTIAL];
    if (remembered !== undefined) return remembered ?? undefined;
    const credential = derive(request.headers.authorization, request.raw.socket ?? undefined);
    request[CREDENTIAL] = credential ?? null;
    return credential;
  };
}
