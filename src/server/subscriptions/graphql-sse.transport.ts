/**
 * GraphQL over SSE (graphql-sse, "distinct connections" mode): a `POST /graphql` subscription whose
 * `Accept` names `text/event-stream` (the GraphQL route decides, graphql-route.plugin.ts) is answered
 * with an event stream of its results, ending with `complete`. The bearer token is the request's
 * `Authorization` header, as for any other POST.
 */
import { errorCodesOf } from '../../errors/graphql-errors.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult as SseExecutionResult } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fastify';
import type { ExecutionArgs } from 'graphql';
import { bearerToken, type CredentialFactory } from '../../upstream/credential.ts';
import { EVENT_STREAM } from '../graphql-route/media-types.ts';
import { asksForLedger } from '../ledger-header.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import {
  formatSubscriptionResult,
  prepareSubscription,
  type SubscriptionExecutionOptions,
} from './subscription-execution.ts';

export interface GraphQLSseOptions extends SubscriptionExecutionOptions {
  readonly credentialFor: CredentialFactory;
}

export interface GraphQLSseTransport {
  /** Answers one subscription POST with its event stream (the reply is hijacked). */
  serve(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** Ends every open event stream (shutdown). */
  close(): void;
}

export function createGraphQLSse(options: GraphQLSseOptions): GraphQLSseTransport {
  const open = new Set<FastifyReply>();
  /** The codes of the errors each stream sent, for its log line. */
  const sentCodes = new WeakMap<FastifyRequest, Set<string>>();
  /** Each stream's GraphQL context, for what its events carry besides their result. */
  const contexts = new WeakMap<FastifyRequest, GatewayContext>();
  /** Aborts when each stream's connection closes: its reads not sent yet are dropped. */
  const closings = new WeakMap<FastifyRequest, AbortSignal>();

  const handler = createHandler({
    // No single-connection mode: each subscription is its own POST.
    authenticate: () => null,
    onSubscribe: (req, params) => {
      const request = req.raw;
      const prepared = prepareSubscription(options, params, () => {
        const token = bearerToken(request.headers.authorization);
        return {
          requestId: request.id,
          credential: token ? options.credentialFor(token) : undefined,
          // Polling: nobody waits on one poll the way a screen waits on a query.
          priority: 'background',
          clientAddress: request.ip,
          gone: closings.get(request),
          eventLedger: asksForLedger(request.headers) ? { latest: undefined } : undefined,
          logger: request.log,
        };
      });
      // Request errors go out as one `next` event (then `complete`), formatted in onNext.
      // graphql-sse recognises a result by its `data` member.
      if (!('schema' in prepared)) return { data: null, errors: [...prepared] };
      contexts.set(request, prepared.contextValue as GatewayContext);
      // graphql-sse types its context as a plain record; the value is the GatewayContext.
      return prepared as ExecutionArgs & { contextValue: undefined };
    },
    // graphql-sse serializes with JSON.stringify, so formatted errors go out as they are.
    onNext: (_ctx, req, result) => {
      const formatted = formatSubscriptionResult(
        result,
        {
          requestId: req.raw.id,
          logger: req.raw.log,
          eventLedger: contexts.get(req.raw)?.eventLedger,
        },
        options.errors,
      );
      for (const code of errorCodesOf(formatted.errors)) sentCodes.get(req.raw)?.add(code);
      return formatted as unknown as SseExecutionResult;
    },
  });

  async function serve(request: FastifyRequest, reply: FastifyReply) {
    // graphql-sse accepts exactly `text/event-stream`; clients may list more types.
    request.headers.accept = EVENT_STREAM;
    reply.hijack();
    open.add(reply);
    const closed = new AbortController();
    reply.raw.once('close', () => closed.abort());
    closings.set(request, closed.signal);
    const codes = new Set<string>();
    sentCodes.set(request, codes);
    const started = performance.now();
    try {
      await handler(request, reply);
    } catch (error) {
      request.log.error({ err: error }, 'event stream failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500);
      reply.raw.end();
    } finally {
      open.delete(reply);
      request.log.info(
        {
          transport: 'graphql-sse',
          ...(codes.size > 0 ? { errorCodes: [...codes] } : {}),
          durationMs: Math.round(performance.now() - started),
        },
        'graphql subscription',
      );
    }
    return reply;
  }

  return {
    serve,
    close() {
      for (const reply of open) reply.raw.end();
    },
  };
}
