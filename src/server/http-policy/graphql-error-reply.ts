/**
 * Answers a request the gateway refuses before Apollo sees it (wrong content type, oversize or
 * untrusted document) with the same GraphQL error shape Apollo would produce: the error goes through
 * `formatGraphQLError` (the one place errors become GraphQL errors) and carries the request id.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError } from '../../errors/gateway-errors.ts';
import { formatGraphQLError, stampRequestId } from '../../errors/graphql-errors.ts';

const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

/** The response media type a GraphQL-over-HTTP client asked for: the newer one when it prefers it. */
export function responseMediaType(accept: string | undefined): string {
  if (accept === undefined) return 'application/json; charset=utf-8';
  const ranges = accept.split(',').map((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { type, q: q ? Number(q.slice(2)) || 0 : 1 };
  });
  const quality = (type: string) =>
    Math.max(0, ...ranges.filter((r) => r.type === type).map((r) => r.q));
  return quality(GRAPHQL_RESPONSE_JSON) > quality('application/json')
    ? `${GRAPHQL_RESPONSE_JSON}; charset=utf-8`
    : 'application/json; charset=utf-8';
}

/** Sends `{ errors: [error] }` with `status` and ends the request. */
export function replyWithGraphQLError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  error: GatewayError,
): FastifyReply {
  const formatted = formatGraphQLError({ message: error.message }, error);
  stampRequestId([formatted], request.id);
  return reply
    .status(status)
    .header('content-type', responseMediaType(request.headers.accept))
    .send(JSON.stringify({ errors: [formatted] }));
}
