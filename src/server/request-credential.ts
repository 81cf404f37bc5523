/**
 * The credential of an HTTP request, derived once: several steps of the GraphQL route need it (the
 * refusal throttle, APQ registration, the replay key, the context), and each would otherwise hash
 * the token again (no map remembers a token's id across requests: docs/security.md "Tokens").
 * Remembered per request object: it goes with its request.
 */
import type { FastifyRequest } from 'fastify';
import { bearerToken, type Credential, type CredentialFactory } from '../upstream/credential.ts';

export type RequestCredential = (request: FastifyRequest) => Credential | undefined;

/**
 * Where a request keeps its credential (null: it has none): a property of the request rather than a
 * WeakMap entry, which the collector must trace as an ephemeron after every request.
 */
const CREDENTIAL = Symbol('weft.requestCredential');
type WithCredential = FastifyRequest & { [CREDENTIAL]?: Credential | null };

export function createRequestCredential(credentialFor: CredentialFactory): RequestCredential {
  return (request: WithCredential) => {
    const remembered = request[CREDENTIAL];
    if (remembered !== undefined) return remembered ?? undefined;
    const token = bearerToken(request.headers.authorization);
    const credential = token ? credentialFor(token) : undefined;
    request[CREDENTIAL] = credential ?? null;
    return credential;
  };
}
