/**
 * GraphQL multipart requests (https://github.com/jaydenseric/graphql-multipart-request-spec) on
 * Fastify, for the `Upload` scalar. The body is not parsed by Fastify: graphql-upload's
 * `processRequest` reads the raw request, resolves the operation once the `operations` and `map`
 * fields have arrived, and spools each file to a temporary file as it streams in (never into
 * memory), enforcing the size cap while it does.
 *
 * Nothing of a multipart body is read before two checks pass, so a client without a right to
 * upload cannot make the gateway spool 100 MiB first:
 * - CSRF: a multipart request is a "simple" request a browser sends cross-site without a
 *   preflight, unless it carries a header that forces one (`graphql-route/csrf.ts`); without one the
 *   route's CSRF check refuses it on request, before this plugin's hook;
 * - credentials: every upload needs a bearer token (the one `Upload` argument is a mutation's), so
 *   a multipart request without one is answered 401 UNAUTHENTICATED, and its connection closed.
 *
 * graphql-upload's reader (with busboy) loads with the first upload, not at start-up
 * (docs/deploy.md "Start-up"): the first upload waits for that import, a few milliseconds.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hookSteps } from '../graphql-route/hook-steps.ts';
import type processRequestType from 'graphql-upload/processRequest.mjs';
import { ErrorCode, RequestErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { bearerToken } from '../../upstream/credential.ts';
import { hasCsrfProof } from '../graphql-route/csrf.ts';
import { replyWithGraphQLError } from '../graphql-route/graphql-error-reply.ts';

export interface GraphQLMultipartOptions {
  /** Largest file, bytes (`UPLOAD_MAX_BYTES`). */
  readonly maxFileSize: number;
  /** Files per request (the graph's one `Upload` argument needs one). */
  readonly maxFiles?: number;
}

const isMultipart = (request: FastifyRequest): boolean =>
  /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '');

/** graphql-upload rejects with http-errors (`status`, `expose`); anything else is ours. */
function sendMultipartError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
): FastifyReply {
  const status = (error as { status?: unknown }).status;
  const known = typeof status === 'number' && status >= 400 && status < 500;
  return replyWithGraphQLError(
    request,
    reply,
    known ? status : 500,
    new GatewayError(
      RequestErrorCode.BAD_REQUEST,
      known ? (error as Error).message : 'The multipart request could not be read',
    ),
  );
}

let reader: Promise<typeof processRequestType> | undefined;
/** graphql-upload's `processRequest`, imported once, on first use. */
const processRequest: typeof processRequestType = async (...args) => {
  reader ??= import('graphql-upload/processRequest.mjs').then((module) => module.default);
  return (await reader)(...args);
};

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

  const readUpload = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!bearerToken(request.headers.authorization)) {
      // The unread body must not be taken for the next request on this connection.
      reply.header('connection', 'close');
      return replyWithGraphQLError(
        request,
        reply,
        401,
        new GatewayError(
          ErrorCode.UNAUTHENTICATED,
          'An upload needs a bearer token (Authorization: Bearer <token>); the body was not read.',
        ),
      );
    }
    try {
      request.body = await processRequest(request.raw, reply.raw, {
        // busboy counts a file that reaches its limit as truncated (it cannot know whether more
        // follows), so a file of exactly the cap needs one byte of room.
        maxFileSize: options.maxFileSize + 1,
        maxFiles: options.maxFiles ?? 1,
      });
    } catch (error) {
      request.log.info({ err: error }, 'multipart request refused');
      return sendMultipartError(request, reply, error);
    }
  };
  // A request that is not an upload (nearly all) passes without a promise (hook-steps.ts).
  scope.addHook(
    'preValidation',
    hookSteps((request, reply) => {
      if (!isMultipart(request)) return undefined;
      if (!hasCsrfProof(request)) return undefined; // refused on request already (graphql-route/csrf.ts)
      return readUpload(request, reply);
    }),
  );
}
