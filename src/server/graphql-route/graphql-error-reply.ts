/**
 * Answers a request the gateway refuses before Apollo sees it (wrong content type, oversize or
 * untrusted document) with the same GraphQL error shape Apollo would produce: the error goes through
 * `formatGraphQLError` (the one place errors become GraphQL errors) and carries the request id.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError } from '../../errors/gateway-errors.ts';
import { formatGraphQLError, stampRequestId } from '../../errors/graphql-errors.ts';
import { jsonResponseType } from './media-types.ts';

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
    .header('content-type', jsonResponseType(request.headers))
    .send(JSON.stringify({ errors: [formatted] }));
}
