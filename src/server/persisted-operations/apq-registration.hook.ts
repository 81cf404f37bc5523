/**
 * Who may register an automatic persisted query: a request that carries both a document and its
 * `persistedQuery` hash asks Apollo to store the document (24 h by default, in Redis when it is
 * there). Only an authenticated client within its quota may (`APQ_MAX_PER_CREDENTIAL` documents per
 * `APQ_TTL_SEC`); for any other the hash is dropped from the request, so the operation still runs
 * — once, from its text — and nothing is stored. Redis cannot be filled for free.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isRecord } from '../../kit/is-record.ts';
import type { CredentialQuota } from '../credential-quota.ts';
import { forgetGraphqlParams, graphqlParamsOf, type GraphqlParams } from '../graphql-params.ts';
import type { RequestCredential } from '../request-credential.ts';

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
  readonly credentialOf: RequestCredential;
}) {
  /** The request registers a document: within the credential's quota, or without its hash. */
  const register = async (request: FastifyRequest, params: GraphqlParams): Promise<void> => {
    const credential = options.credentialOf(request);
    if (credential && (await options.quota.take(credential.id))) return;
    request.log.info(
      { apq: credential ? 'over quota' : 'unauthenticated' },
      'persisted query not registered',
    );
    withoutHash(params.source);
    forgetGraphqlParams(request);
  };
  // A step of the route's preHandler (graphql-route/hook-steps.ts): a request that registers
  // nothing — nearly all — passes without a promise.
  return (request: FastifyRequest, _reply: FastifyReply): Promise<void> | undefined => {
    const params = graphqlParamsOf(request);
    // A registration carries both the document and its hash.
    if (params?.query === undefined || params.extensions?.persistedQuery === undefined) return;
    return register(request, params);
  };
}
