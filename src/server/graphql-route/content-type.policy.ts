/**
 * The content types a POST to the GraphQL route may carry: `application/json` (GraphQL over HTTP)
 * or `multipart/form-data` (GraphQL multipart uploads, parsed and capped by the uploads code).
 * Anything else — `text/plain`, a form, no content type — is 415 before the body is read. Together
 * with Apollo's CSRF prevention this leaves no "simple" cross-site request that executes an
 * operation. The JSON body size is Fastify's `bodyLimit` (REQUEST_BODY_LIMIT_BYTES, 413 past it).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { replyWithGraphQLError } from './graphql-error-reply.ts';

/** Media types a POST to the GraphQL endpoint may carry. */
export const ACCEPTED_POST_MEDIA_TYPES: readonly string[] = [
  'application/json',
  'multipart/form-data',
];

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

/**
 * An onRequest check of the GraphQL route (hook-steps.ts): a POST of another content type is
 * refused (415).
 */
export function refuseUnsupportedContentType(
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  if (request.method !== 'POST') return undefined;
  const type = mediaTypeOf(request.headers['content-type']);
  if (type !== undefined && ACCEPTED_POST_MEDIA_TYPES.includes(type)) return undefined;
  return replyWithGraphQLError(
    request,
    reply,
    415,
    new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      // What to send first: the client's own type comes last, where the length cap may cut it.
      `Send \`Content-Type: application/json\` (\`multipart/form-data\` for uploads); ${type ?? 'a request without one'} is not accepted.`,
      { contentType: type ?? null },
    ),
  );
}
