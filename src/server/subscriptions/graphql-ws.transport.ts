/**
 * graphql-ws (the `graphql-transport-ws` protocol) on WebSocket upgrades of the GraphQL path. The
 * bearer token travels in the connection parameters — `{authorization: 'Bearer …'}` or `{token}` —
 * because browsers cannot set headers on a WebSocket; a non-browser client may also send the
 * `Authorization` header with the upgrade. A connection that never authenticates is closed: without
 * `connection_init` within {@link CONNECTION_INIT_WAIT_MS} (4408), or with no token in it or on the
 * upgrade (4403 Forbidden), so an idle socket cannot be held open for free.
 */
import { errorCodesOf } from '../../errors/graphql-errors.ts';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { GatewayContext } from '../../kit/request-context.ts';
import { bearerToken, type CredentialFactory } from '../../upstream/credential.ts';
import { asksForLedger, paramsAskForLedger } from '../ledger-header.ts';
import {
  formatSubscriptionResult,
  prepareSubscription,
  type SubscriptionExecutionOptions,
} from './subscription-execution.ts';

export interface GraphQLWsOptions extends SubscriptionExecutionOptions {
  readonly credentialFor: CredentialFactory;
  readonly logger: FastifyBaseLogger;
  readonly isProduction: boolean;
}

export interface GraphQLWsTransport {
  /** Takes over an upgrade of the GraphQL path (the caller checked the path). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every connection (1001 going away) and the server. */
  close(): Promise<void>;
}

/** The token from connection params (`authorization` or `token`), else from the upgrade request. */
function tokenOf(
  params: Readonly<Record<string, unknown>> | undefined,
  upgrade: IncomingMessage,
): string | undefined {
  const authorization = params?.authorization ?? params?.Authorization;
  if (typeof authorization === 'string') return bearerToken(authorization);
  if (typeof params?.token === 'string') return bearerToken(`Bearer ${params.token}`);
  return bearerToken(upgrade.headers.authorization);
}

const MAX_MESSAGE_BYTES = 1024 * 1024;
/** How long a socket may stay open before its `connection_init`. */
export const CONNECTION_INIT_WAIT_MS = 3_000;

/**
 * Whether a connection asked for each event's ledger: `Weft-Ledger: 1` as a connection parameter
 * (browsers cannot set headers on a WebSocket) or on the upgrade request.
 */
function asksForLedgers(
  params: Readonly<Record<string, unknown>> | undefined,
  request: { headers: Record<string, string | string[] | undefined> },
): boolean {
  return paramsAskForLedger(params) || asksForLedger(request.headers);
}

export function createGraphQLWs(options: GraphQLWsOptions): GraphQLWsTransport {
  // Protocol messages are small; ws would otherwise accept frames of up to 100 MiB.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  /**
   * Per connection: each running subscription's request id, start, results sent, and what aborts
   * when it ends (its reads not sent yet are dropped).
   */
  const running = new WeakMap<
    object,
    Map<
      string,
      {
        requestId: string;
        at: number;
        events: number;
        errorCodes: Set<string>;
        gone: AbortController;
      }
    >
  >();
  const runningOf = (ctx: object) => {
    let map = running.get(ctx);
    if (!map) running.set(ctx, (map = new Map()));
    return map;
  };

  const server = useServer<Record<string, unknown>>(
    {
      isProd: options.isProduction,
      connectionInitWaitTimeout: CONNECTION_INIT_WAIT_MS,
      // No token, no connection (graphql-ws answers `false` with 4403 Forbidden).
      onConnect: (ctx) => tokenOf(ctx.connectionParams, ctx.extra.request) !== undefined,
      onSubscribe: (ctx, id, payload) => {
        const requestId = randomUUID();
        const gone = new AbortController();
        const prepared = prepareSubscription(options, payload, () => {
          const token = tokenOf(ctx.connectionParams, ctx.extra.request);
          return {
            requestId,
            credential: token ? options.credentialFor(token) : undefined,
            // Polling: nobody waits on one poll the way a screen waits on a query.
            priority: 'background',
            clientAddress: ctx.extra.request.socket.remoteAddress,
            gone: gone.signal,
            eventLedger: asksForLedgers(ctx.connectionParams, ctx.extra.request)
              ? { latest: undefined }
              : undefined,
            logger: options.logger.child({ reqId: requestId, transport: 'graphql-ws' }),
          };
        });
        if (!('schema' in prepared)) return prepared;
        runningOf(ctx).set(id, {
          requestId,
          at: performance.now(),
          events: 0,
          errorCodes: new Set(),
          gone,
        });
        return prepared;
      },
      onNext: (ctx, id, _payload, args, result) => {
        const entry = runningOf(ctx).get(id);
        if (entry) entry.events += 1;
        const formatted = formatSubscriptionResult(
          result,
          args.contextValue as GatewayContext,
          options.errors,
        );
        for (const code of errorCodesOf(formatted.errors)) entry?.errorCodes.add(code);
        return formatted;
      },
      // The socket closed: every subscription on it is over, its calls not sent yet dropped.
      onClose: (ctx) => {
        for (const entry of runningOf(ctx).values()) entry.gone.abort();
      },
      onError: (_ctx, _id, payload, errors) => {
        const requestId = randomUUID();
        const formatted = options.errors.all(errors, requestId);
        // The refusal's request id leads to a log line, as over HTTP.
        options.logger.info(
          {
            reqId: requestId,
            transport: 'graphql-ws',
            operationName: payload.operationName ?? null,
            errorCodes: errorCodesOf(formatted),
          },
          'graphql subscription refused',
        );
        return formatted;
      },
      onComplete: (ctx, id, payload) => {
        const entry = runningOf(ctx).get(id);
        runningOf(ctx).delete(id);
        if (!entry) return;
        entry.gone.abort();
        options.logger.info(
          {
            reqId: entry.requestId,
            transport: 'graphql-ws',
            operationName: payload.operationName ?? null,
            events: entry.events,
            ...(entry.errorCodes.size > 0 ? { errorCodes: [...entry.errorCodes] } : {}),
            durationMs: Math.round(performance.now() - entry.at),
          },
          'graphql subscription',
        );
      },
    },
    wss,
  );

  return {
    handleUpgrade(request, socket, head) {
      wss.handleUpgrade(request, socket, head, (client) => wss.emit('connection', client, request));
    },
    async close() {
      await server.dispose();
    },
  };
}
