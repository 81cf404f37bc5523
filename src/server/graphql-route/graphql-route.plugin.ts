/**
 * The GraphQL route as one encapsulated Fastify plugin: every hook below belongs to this route
 * alone (Fastify encapsulation), so none filters on the URL, and the checks of a phase run as the
 * steps of one callback hook (hook-steps.ts) in the order written here — steps 1–3 of the operation
 * pipeline (operation-pipeline.ts), then Apollo Server:
 *
 *   onRequest      a client throttled for refused documents gets 429 (limits/refusal-throttle.ts);
 *                  a GET that prefers HTML gets the explorer page; a POST of another content type
 *                  than JSON or multipart is refused (415); a GET or multipart request without a
 *                  CSRF proof header is refused (400, csrf.ts)
 *   preValidation  a multipart upload's body is streamed in (behind the CSRF preflight header)
 *   preHandler     document checks (size, tokens, trusted documents) → a subscription that asks
 *                  for `text/event-stream` becomes an SSE stream → anything else must accept
 *                  JSON (406), and one that reads `multipart/mixed` is handed to Apollo as reading
 *                  the incremental format it asked for (of the two Weft writes); then APQ
 *                  registration rights; then whole-response replay
 *   handler        Apollo Server: parse, validation, variables, cost, idempotency, execution (a
 *                  query with `@defer` or `@stream`: incremental/incremental-delivery.plugin.ts) — or, still
 *                  running at the shutdown deadline, a 503 SHUTTING_DOWN answer
 *
 * graphql-ws is the same path's WebSocket upgrade (subscriptions/graphql-ws.transport.ts).
 */
import type { ApolloServer } from '@apollo/server';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, RequestErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import { operationTypeOf } from '../../upstream/graphql-operation.ts';
import { createRefusalThrottle } from '../limits/refusal-throttle.ts';
import type { ExplorerPage } from '../explorer/explorer.routes.ts';
import { requestedDocument } from '../limits/document-limits.ts';
import type { OperationPipeline } from '../operation-pipeline.ts';
import type { RequestCredential } from '../request-credential.ts';
import {
  createReplayHook,
  type ResponseReplayOptions,
} from '../response-cache/response-replay.hook.ts';
import type { DrainDeadline } from '../shutdown/drain-deadline.ts';
import type { GraphQLSseTransport } from '../subscriptions/graphql-sse.transport.ts';
import { acceptGraphQLMultipart } from '../uploads/graphql-multipart.plugin.ts';
import { refuseUnsupportedContentType } from './content-type.policy.ts';
import { refuseCrossSiteRequest } from './csrf.ts';
import { replyWithGraphQLError, stampErrorAnswer } from './graphql-error-reply.ts';
import { hookSteps, type HookStep } from './hook-steps.ts';
import {
  acceptsJson,
  asksForEventStream,
  partsAccept,
  prefersEventStream,
  prefersHtml,
  readsParts,
} from './media-types.ts';

export interface GraphqlRouteOptions {
  readonly path: string;
  readonly apollo: ApolloServer<GatewayContext>;
  readonly contextOf: (request: FastifyRequest, reply: FastifyReply) => Promise<GatewayContext>;
  readonly pipeline: OperationPipeline;
  readonly credentialOf: RequestCredential;
  readonly sse: GraphQLSseTransport;
  /** Answers an operation still executing at the shutdown deadline (shutdown/drain-deadline.ts). */
  readonly drain: DrainDeadline;
  /** Largest uploaded file, bytes. */
  readonly maxUploadBytes: number;
  /** With EXPLORER on. */
  readonly explorer?: ExplorerPage | undefined;
  /** With the whole-response cache on. */
  readonly replay?: ResponseReplayOptions | undefined;
  /** Who may register an APQ document (absent in trusted-documents mode). */
  readonly apqRegistration?: HookStep | undefined;
}

export async function graphqlRoute(
  scope: FastifyInstance,
  options: GraphqlRouteOptions,
): Promise<void> {
  const { explorer, pipeline, sse } = options;
  const throttle = createRefusalThrottle();
  /** Who sent a request: its credential when it has a token, else its address. */
  const clientOf = (request: FastifyRequest): string => {
    const credential = options.credentialOf(request);
    return credential ? `credential:${credential.id}` : `address:${request.ip}`;
  };

  // First of all: a client that keeps sending refused documents waits, at no cost to anyone else.
  const refuseThrottled = (request: FastifyRequest, reply: FastifyReply) => {
    const retryAfterSec = throttle.retryAfterSec(clientOf(request));
    if (retryAfterSec === undefined) return undefined;
    reply.header('retry-after', String(retryAfterSec));
    return replyWithGraphQLError(
      request,
      reply,
      429,
      new GatewayError(
        ErrorCode.RATE_LIMITED,
        `Too many refused operations from this client; retry in ${retryAfterSec} s`,
        { retryAfterSec, limiter: 'REFUSALS' },
      ),
    );
  };
  const serveExplorer = (request: FastifyRequest, reply: FastifyReply) => {
    if (!explorer || request.method !== 'GET' || !prefersHtml(request.headers)) return undefined;
    return reply.status(200).headers(explorer.headers).send(explorer.html);
  };
  scope.addHook(
    'onRequest',
    hookSteps(refuseThrottled, serveExplorer, refuseUnsupportedContentType, refuseCrossSiteRequest),
  );
  // Every error answer of the route is GraphQL-shaped and carries the request id: Fastify's own
  // refusals (a body that is not JSON, or past REQUEST_BODY_LIMIT_BYTES) and a hook that failed…
  scope.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return replyWithGraphQLError(
        request,
        reply,
        status,
        new GatewayError(RequestErrorCode.BAD_REQUEST, error.message),
      );
    }
    request.log.error({ err: error }, 'graphql route failed');
    return replyWithGraphQLError(
      request,
      reply,
      500,
      new GatewayError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error'),
    );
  });
  // …and the refusals Apollo Server answers before its plugins run.
  scope.addHook('onSend', stampErrorAnswer);

  acceptGraphQLMultipart(scope, { maxFileSize: options.maxUploadBytes });

  const checkOperation = (request: FastifyRequest, reply: FastifyReply) => {
    const streams = request.method === 'POST' && asksForEventStream(request.headers);
    const document = requestedDocument(request);
    const refusal = document && pipeline.refuseDocument(document);
    if (refusal) {
      throttle.noteRefusal(clientOf(request));
      request.log.info(
        { refused: refusal.details.limit ?? refusal.details.reason },
        'graphql operation refused',
      );
      // A client that would rather have a stream (a graphql-sse client) gets the refusal inside
      // one, like every other subscription error; SSE runs the same check (prepareSubscription).
      if (streams && prefersEventStream(request.headers)) return sse.serve(request, reply);
      // A limit is a request the client can fix (400); an untrusted document is not permitted (403).
      const status = refusal.code === ErrorCode.FORBIDDEN ? 403 : 400;
      return replyWithGraphQLError(request, reply, status, refusal);
    }
    // Only a subscription becomes a stream; a query or a mutation is answered as JSON whatever
    // else the Accept header lists (urql lists `text/event-stream` on every request).
    if (streams && operationTypeOf(request.body) === 'subscription') {
      return sse.serve(request, reply);
    }
    // Anything else is answered as JSON (a query with `@defer` or `@stream`, as JSON parts): a client that
    // accepts neither JSON type nor parts is told so before the operation runs (Apollo would run
    // it, spend upstream calls, then answer 406).
    if (request.method === 'OPTIONS') return undefined;
    // A client that reads parts gets them in the format it names (incremental/), and JSON when the
    // answer is one piece (a client that reads JSON parts reads JSON).
    if (readsParts(request.headers)) {
      request.headers.accept = partsAccept(request.headers);
      return undefined;
    }
    if (acceptsJson(request.headers)) return undefined;
    return replyWithGraphQLError(
      request,
      reply,
      406,
      new GatewayError(
        ErrorCode.BAD_USER_INPUT,
        'Send `Accept: application/json` or `application/graphql-response+json` (`multipart/mixed` for `@defer` and `@stream`, `text/event-stream` for subscriptions): this Accept header allows neither.',
        { header: 'accept' },
      ),
    );
  };

  // Document checks, then APQ registration rights, then the replay: one hook (hook-steps.ts).
  scope.decorateRequest('replayKey', undefined);
  scope.addHook(
    'preHandler',
    hookSteps(
      checkOperation,
      ...(options.apqRegistration ? [options.apqRegistration] : []),
      ...(options.replay ? [createReplayHook(options.replay)] : []),
    ),
  );

  const execute = fastifyApolloHandler(options.apollo, { context: options.contextOf });
  // The answer is Apollo's serialized response (the integration's route type says so).
  scope.route<{ Reply: string }>({
    url: options.path,
    method: ['GET', 'POST', 'OPTIONS'],
    handler: (request, reply) =>
      options.drain.run(request, reply, async () => execute.call(scope, request, reply)),
  });
}
