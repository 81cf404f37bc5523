/**
 * A request's context (kit/request-context.ts) as the HTTP routes build it — the GraphQL route's and
 * the MCP endpoint's — from the same services and the same reading of the request: its id,
 * credential, address, store header and span, and a signal when the client goes away before its
 * answer is written (its reads not sent yet are dropped, upstream/call-interest.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  createGatewayContext,
  type ContextServices,
  type GatewayContext,
  type RequestFields,
} from '../kit/request-context.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';
import { storeIdHeaderOf } from '../stitching/store-routing.ts';
import { requestPriorityOf } from '../upstream/budget/call-priority.ts';
import { createRequestFacts } from '../upstream/request-facts.ts';
import { createUpstreamLedger } from '../upstream/upstream-ledger.ts';
import { asksForLedger } from './ledger-header.ts';
import type { RequestCredential } from './request-credential.ts';

export interface RequestContexts {
  /** A GraphQL request's context (before the shutdown deadline notes it). */
  graphql(request: FastifyRequest, reply: FastifyReply): GatewayContext;
  /** An MCP tool call's: the endpoint gives its own facts, priority and log note. */
  mcp(
    request: FastifyRequest,
    reply: FastifyReply,
    fields: Pick<RequestFields, 'facts' | 'priority' | 'noteOperation'>,
  ): GatewayContext;
}

/** Aborts when the response closes before it finished: the client went away. */
function goneOf(reply: FastifyReply): AbortController {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone;
}

export function createRequestContexts(deps: {
  readonly services: ContextServices;
  readonly credentialOf: RequestCredential;
  readonly metrics: GatewayMetrics | undefined;
  readonly tracing: Tracing | undefined;
}): RequestContexts {
  const { services, credentialOf, metrics, tracing } = deps;
  /**
   * A request's facts: with a ledger when it asks to see its upstream calls (`Weft-Ledger: 1`,
   * docs/budget.md) or when metrics count them per operation.
   */
  const factsOf = (listed: boolean) =>
    createRequestFacts(listed || metrics ? createUpstreamLedger() : undefined, listed);
  const common = (request: FastifyRequest) => ({
    requestId: request.id,
    credential: credentialOf(request),
    clientAddress: request.ip,
    logger: request.log,
    storeIdHeader: storeIdHeaderOf(request.headers),
    trace: tracing ? { span: tracing.requestSpan(request) } : undefined,
  });
  return {
    graphql(request, reply) {
      const gone = goneOf(reply);
      return createGatewayContext(services, {
        ...common(request),
        priority: requestPriorityOf(request.headers['weft-priority']),
        // `Weft-Ledger: 1`: the response lists the request's upstream calls (docs/budget.md).
        facts: factsOf(asksForLedger(request.headers)),
        replayKey: request.replayKey,
        noteOperation: (fields) => {
          request.operationLog = fields;
        },
        gone: gone.signal,
        // Listened to by an answer in parts: a response closed before it finished.
        onClientGone: (onGone) => {
          gone.signal.addEventListener('abort', onGone, { once: true });
          return () => gone.signal.removeEventListener('abort', onGone);
        },
      });
    },
    mcp(request, reply, fields) {
      return createGatewayContext(services, {
        ...common(request),
        gone: goneOf(reply).signal,
        ...fields,
      });
    },
  };
}
