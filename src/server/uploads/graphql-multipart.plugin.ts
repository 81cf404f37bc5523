/**
 * GraphQL multipart requests (https://github.com/jaydenseric/graphql-multipart-request-spec) on
 * Fastify, for the `Upload` scalar. The body is not parsed by Fastify: graphql-upload's
 * `processRequest` reads the raw request, resolves the operation once the `operations` and `map`
 * fields have arrived, and spools each file to a temporary file as it streams in (never into
 * memory), enforcing the size cap while it does.
 *
 * CSRF protection stays on: a multipart request is a "simple" request a browser sends cross-site
 * without a preflight, so Apollo Server refuses it unless it carries `apollo-require-preflight` or
 * `x-apollo-operation-name`. Such a request is refused here before its body is read at all, by
 * leaving the body unparsed and letting Apollo's own check answer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import processRequest from 'graphql-upload/processRequest.mjs';

export interface GraphQLMultipartOptions {
  /** Largest file, bytes (`UPLOAD_MAX_BYTES`). */
  readonly maxFileSize: number;
  /** Files per request (the graph's one `Upload` argument needs one). */
  readonly maxFiles?: number;
}

/** The headers Apollo Server's CSRF prevention accepts as proof of a preflighted request. */
export const PREFLIGHT_HEADERS = ['apollo-require-preflight', 'x-apollo-operation-name'] as const;

const isMultipart = (request: FastifyRequest): boolean =>
  /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '');

const hasPreflightHeader = (request: FastifyRequest): boolean =>
  PREFLIGHT_HEADERS.some((name) => {
    const value = request.headers[name];
    return typeof value === 'string' && value.length > 0;
  });

/** graphql-upload rejects with http-errors (`status`, `expose`); anything else is ours. */
function sendMultipartError(reply: FastifyReply, error: unknown): FastifyReply {
  const status = (error as { status?: unknown }).status;
  const known = typeof status === 'number' && status >= 400 && status < 500;
  return reply
    .code(known ? status : 500)
    .header('content-type', 'application/json; charset=utf-8')
    .send({
      errors: [
        {
          message: known ? (error as Error).message : 'The multipart request could not be read',
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
}

/** Registers multipart bodies on the GraphQL route's scope (graphql-route.plugin.ts). */
export function acceptGraphQLMultipart(
  scope: FastifyInstance,
  options: GraphQLMultipartOptions,
): void {
  // Leave the stream unread: processRequest consumes it in preValidation, where the reply (whose
  // close releases the spooled files) is at hand.
  scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => {
    done(null, undefined);
  });

  scope.addHook('preValidation', async (request, reply) => {
    if (!isMultipart(request)) return;
    if (!hasPreflightHeader(request)) return; // Apollo's CSRF prevention answers 400
    try {
      request.body = await processRequest(request.raw, reply.raw, {
        // busboy counts a file that reaches its limit as truncated (it cannot know whether more
        // follows), so a file of exactly the cap needs one byte of room.
        maxFileSize: options.maxFileSize + 1,
        maxFiles: options.maxFiles ?? 1,
      });
    } catch (error) {
      request.log.info({ err: error }, 'multipart request refused');
      return sendMultipartError(reply, error);
    }
  });
}
