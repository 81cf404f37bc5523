/**
 * One log line per HTTP request, written when its response has been sent: the request (id, method,
 * path without its query string), the status and the response time — and, for a GraphQL operation,
 * what its operation line said before (name, error count and codes, its own duration, a replay).
 * One line instead of Fastify's "incoming request" + "request completed" pair beside an operation
 * line: at thousands of cached answers a second every extra line is paid by every answer, and
 * the one line holds everything an operator greps for. "incoming request" is logged at `debug` (to
 * see a request that never finishes); failures keep Fastify's own lines.
 *
 * Built on Fastify's log controller, the place it offers for reshaping its per-request lines.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { OperationLogFields } from '../observability/operation-log.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the GraphQL layer when the request was an operation (docs/deploy.md "Logs"). */
    operationLog: OperationLogFields | undefined;
  }
}

/**
 * Only what the logger's `req` serializer reads: handed the request object itself, pino's redaction
 * cloned that whole object on every line, where these three fields are all a line needs.
 */
const requestRecord = (request: FastifyRequest) => ({
  id: request.id,
  method: request.method,
  url: request.url,
});

export class AccessLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: requestRecord(request) }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    const operation = request.operationLog;
    request.log.info(
      {
        req: requestRecord(request),
        res: { statusCode: reply.statusCode },
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
        ...operation,
      },
      operation ? 'graphql operation' : 'request completed',
    );
  }
}
