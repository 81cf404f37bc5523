/**
 * The credential of an HTTP request, derived once: several steps of the GraphQL route need it (the
 * refusal throttle, APQ registration, the replay key, the context), and each would otherwise hash
 * the token again. Remembered per request object only, so no token outlives its request.
 */
import type { FastifyRequest } from 'fastify';
import { bearerToken, type Credential, type CredentialFactory } from '../upstream/credential.ts';

export type RequestCredential = (request: FastifyRequest) => Credential | undefined;

export function createRequestCredential(credentialFor: CredentialFactory): RequestCredential {
  const known = new WeakMap<FastifyRequest, Credential | null>();
  return (request) => {
    const remembered = known.get(request);
    if (remembered !== undefined) return remembered ?? undefined;
    const token = bearerToken(request.headers.authorization);
    const credential = token ? credentialFor(token) : undefined;
    known.set(request, credential ?? null);
    return credential;
  };
}
