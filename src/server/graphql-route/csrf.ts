/**
 * CSRF prevention that does not block real clients (docs/security.md "HTTP"). A browser sends a
 * cross-site request without asking the server first (a "simple" request) only when it carries
 * nothing but CORS-safelisted headers and a form-like content type. A request that carries any of
 * these headers cannot be simple — the browser must preflight it, and the CORS policy decides —
 * so it is proof enough: `Authorization` (every client that calls with a token, which is every
 * client that can do anything), or Apollo's `apollo-require-preflight` / `x-apollo-operation-name`
 * for a request without credentials. POSTs must be JSON or multipart anyway (415 otherwise), and
 * JSON is not a simple content type; what this guards is GET and multipart.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequestErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { mediaTypeOf } from './content-type.policy.ts';
import { replyWithGraphQLError } from './graphql-error-reply.ts';

export const CSRF_PROOF_HEADERS = [
  'authorization',
  'apollo-require-preflight',
  'x-apollo-operation-name',
] as const;

/** Whether the request carries a header no simple cross-site request can carry. */
export const hasCsrfProof = (request: FastifyRequest): boolean =>
  CSRF_PROOF_HEADERS.some((name) => {
    const value = request.headers[name];
    return typeof value === 'string' && value.length > 0;
  });

/** The content types a browser sends cross-site without a preflight (as Apollo's check lists them). */
const SIMPLE_CONTENT_TYPES: readonly string[] = [
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
];

/**
 * What to send comes first: a message is cut at 300 characters, and Apollo's own, which explains
 * before it names the headers, lost the header names to the cut.
 */
export const CSRF_REFUSAL_MESSAGE =
  'Send `Authorization: Bearer <token>` (without a token: `apollo-require-preflight: true` or ' +
  '`x-apollo-operation-name`). A GET or multipart request with none of these headers could be a ' +
  'Cross-Site Request Forgery (CSRF), so it was refused.';

/**
 * The onRequest check of the GraphQL route, the same rule as Apollo's `csrfPrevention` (which stays
 * on behind it) but answered here, where the refusal carries the request id like every other one.
 */
export function refuseCrossSiteRequest(
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  const type = mediaTypeOf(request.headers['content-type']);
  if (type !== undefined && !SIMPLE_CONTENT_TYPES.includes(type)) return undefined;
  if (hasCsrfProof(request)) return undefined;
  return replyWithGraphQLError(
    request,
    reply,
    400,
    new GatewayError(RequestErrorCode.BAD_REQUEST, CSRF_REFUSAL_MESSAGE, {
      headers: [...CSRF_PROOF_HEADERS],
    }),
  );
}
