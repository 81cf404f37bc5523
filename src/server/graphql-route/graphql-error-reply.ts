/**
 * Answers a request the gateway refuses before Apollo sees it (wrong content type, oversize or
 * untrusted document) with the same GraphQL error shape Apollo would produce: the error goes through
 * `formatGraphQLError` (the one place errors become GraphQL errors) and carries the request id.
 * {@link stampErrorAnswer} does the same for the refusals Apollo Server answers before any plugin
 * runs (batching, a malformed body or search parameter).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLFormattedError } from 'graphql';
import type { GatewayError } from '../../errors/gateway-errors.ts';
import { errorCodesOf, formatGraphQLError, stampRequestId } from '../../errors/graphql-errors.ts';
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
  // The access line of a refused request names its code like an operation's (access-log.ts).
  request.operationLog = {
    operationName: null,
    errors: 1,
    errorCodes: errorCodesOf([formatted]),
    durationMs: Math.round(reply.elapsedTime),
  };
  return reply
    .status(status)
    .header('content-type', jsonResponseType(request.headers))
    .send(JSON.stringify({ errors: [formatted] }));
}

/**
 * onSend of the GraphQL route: an error answer Apollo Server wrote before its plugins ran (so
 * without the request id) gets the request id on each error, and its codes on the access line.
 * Only answers of status 400 and above are read, and only those without a request id are rewritten;
 * a callback hook, so that every other answer passes without a promise.
 */
export function stampErrorAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  if (reply.statusCode < 400 || typeof payload !== 'string' || payload.includes('"requestId"')) {
    done(null, payload);
    return;
  }
  let body: { errors?: unknown } | undefined;
  try {
    body = JSON.parse(payload) as { errors?: unknown };
  } catch {
    done(null, payload);
    return;
  }
  if (!Array.isArray(body?.errors)) {
    done(null, payload);
    return;
  }
  const errors = body.errors as GraphQLFormattedError[];
  stampRequestId(errors, request.id);
  request.operationLog ??= {
    operationName: null,
    errors: errors.length,
    errorCodes: errorCodesOf(errors),
    durationMs: Math.round(reply.elapsedTime),
  };
  done(null, JSON.stringify(body));
}
