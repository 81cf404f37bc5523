/**
 * Who may register an automatic persisted query: a request that carries both a document and its
 * `persistedQuery` hash asks Apollo to store the document (24 h by default, in Redis when it is
 * there). Only an authenticated client within its quota may (`APQ_MAX_PER_CREDENTIAL` documents per
 * `APQ_TTL_SEC`); for any other the hash is dropped from the request, so the operation still runs
 * — once, from its text — and nothing is stored. Redis cannot be filled for free.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isRecord } from '../../kit/is-record.ts';
import { bearerToken, type CredentialFactory } from '../../upstream/credential.ts';
import type { CredentialQuota } from '../credential-quota.ts';

/** The request's params (POST body or GET query) when they register a document. */
function registration(request: FastifyRequest): Record<string, unknown> | undefined {
  const params = request.method === 'GET' ? request.query : request.body;
  if (!isRecord(params) || typeof params.query !== 'string') return undefined;
  const { extensions } = params;
  if (typeof extensions === 'string')
    return extensions.includes('persistedQuery') ? params : undefined;
  return isRecord(extensions) && extensions.persistedQuery !== undefined ? params : undefined;
}

/** Removes the hash: the document runs without being stored. */
function withoutHash(params: Record<string, unknown>): void {
  let extensions = params.extensions;
  if (typeof extensions === 'string') {
    try {
      extensions = JSON.parse(extensions) as unknown;
    } catch {
      return; // Apollo refuses malformed extensions itself
    }
  }
  if (!isRecord(extensions)) return;
  const { persistedQuery: _dropped, ...rest } = extensions;
  params.extensions = typeof params.extensions === 'string' ? JSON.stringify(rest) : rest;
}

export function createApqRegistrationHook(options: {
  readonly quota: CredentialQuota;
  readonly credentialFor: CredentialFactory;
}) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const params = registration(request);
    if (!params) return;
    const token = bearerToken(request.headers.authorization);
    const allowed =
      token !== undefined && (await options.quota.take(options.credentialFor(token).id));
    if (allowed) return;
    request.log.info(
      { apq: token === undefined ? 'unauthenticated' : 'over quota' },
      'persisted query not registered',
    );
    withoutHash(params);
  };
}
