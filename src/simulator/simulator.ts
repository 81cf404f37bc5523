/**
 * The embedded upstream: a faithful stand-in for the provider's HTTP API, built from the three seed
 * documents. `npm start` runs it in-process when `UPSTREAM_URL` is unset; every integration test and
 * the benchmark talk to it over a real socket. Gateway code never imports this folder.
 */
import Fastify, {
  type FastifyContextConfig,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { authenticate, type SimPrincipal } from './accounts.ts';
import { FixedWindows, type WindowVerdict } from './rate-windows.ts';
import { SimError } from './sim-errors.ts';
import {
  JSON_BODY_LIMIT,
  MAX_PATH_PARAM_LENGTH,
  RouteIndex,
  frameworkRefusal,
  routingRefusal,
  unparsableRefusal,
} from './sim-framework.ts';
import { SimStats, toRouteTemplate } from './sim-stats.ts';
import { createSimState, type SimContext, type SimKnobs } from './sim-context.ts';
import { registerCertificateRoutes } from './routes/certificates.routes.ts';
import { registerHostingRoutes } from './routes/hosting.routes.ts';
import { registerCommerceRoutes } from './routes/commerce.routes.ts';
import { registerSubgraphRoutes } from './subgraphs/subgraph.routes.ts';

/** Hosting's per-IP per-minute limits ("10 to 120 requests per minute per client IP"). */
export type IpRouteClass = 'hosting-read' | 'hosting-write' | 'hosting-heavy';

declare module 'fastify' {
  interface FastifyRequest {
    principal: SimPrincipal;
  }
  interface FastifyContextConfig {
    /** The scope the route requires; absent when the handler checks scopes itself (subgraphs). */
    scope?: string;
    /** Set on hosting routes: which per-IP per-minute limit applies. */
    ipClass?: IpRouteClass;
  }
}

export interface SimulatorOptions {
  /** Added latency per request, ms (`SIM_LATENCY_MS`). */
  latencyMs?: number;
  /** Per-credential requests per window (`SIM_RATE_LIMIT`). */
  rateLimit?: number;
  /** Window length in seconds (`SIM_RATE_WINDOW_SEC`). */
  rateWindowSec?: number;
  /** Share of requests answered 503 (`SIM_FAULT_RATE`), 0..1. */
  faultRate?: number;
  /** Hosting's per-IP per-minute limits; on by default. */
  ipLimits?: Partial<Record<IpRouteClass, number>> | false;
  /** The catalog subgraph's burst limit per credential per minute; default 120. */
  catalogPerMinute?: number;
  /** Clock for windows and state machines. */
  now?: () => number;
  /**
   * Told of each API request as it arrives, before anything else; the request waits for the promise
   * it returns (a test holds a request this way to decide what happens while it is in flight).
   */
  onArrival?: (request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  }) => unknown;
  /** Told of each API request once its answer is sent (a test times what followed an answer). */
  onAnswered?: (request: { readonly method: string; readonly url: string }) => void;
  /**
   * Fastify's schema controller: the embedded simulator gets the gateway's, which loads ajv only if
   * a route declares a schema (none here does), so `npm start` does not load it for the simulator.
   */
  schemaController?: FastifyServerOptions['schemaController'];
}

export const DEFAULT_IP_LIMITS: Record<IpRouteClass, number> = {
  'hosting-read': 120,
  'hosting-write': 30,
  'hosting-heavy': 10,
};

export interface Simulator {
  readonly app: FastifyInstance;
  readonly context: SimContext;
  readonly stats: SimStats;
  /** Listens on 127.0.0.1 (port 0 = any free port) and returns the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
  /** Changes knobs at run time (tests: faults, latency). */
  configure(knobs: Partial<SimKnobs>): void;
}

// `node:http` as CommonJS: an ES import of it would load Node's bundled undici (`http.WebSocket`).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

const setRateHeaders = (reply: FastifyReply, verdict: WindowVerdict): void => {
  reply.header('RateLimit-Limit', String(verdict.limit));
  reply.header('RateLimit-Remaining', String(verdict.remaining));
  reply.header('RateLimit-Reset', String(verdict.resetSec));
};

const tooMany = (verdict: WindowVerdict, message: string): SimError =>
  new SimError(429, 'TOO_MANY_REQUESTS', message, undefined, { retryAfterSec: verdict.resetSec });

export async function createSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const knobs: SimKnobs = {
    latencyMs: options.latencyMs ?? 0,
    faultRate: options.faultRate ?? 0,
    catalogPerMinute: options.catalogPerMinute ?? 120,
  };
  const stats = new SimStats();
  const credentialWindows = new FixedWindows(
    options.rateLimit ?? 600,
    (options.rateWindowSec ?? 1399) * 1000,
    now,
  );
  const ipLimits =
    options.ipLimits === false ? undefined : { ...DEFAULT_IP_LIMITS, ...options.ipLimits };
  const ipWindows = new Map<IpRouteClass, FixedWindows>(
    Object.entries(ipLimits ?? {}).map(([cls, limit]) => [
      cls as IpRouteClass,
      new FixedWindows(limit, 60_000, now),
    ]),
  );
  const context: SimContext = { state: await createSimState(now), now, knobs, onReset: [] };

  const routeIndex = new RouteIndex();

  /**
   * What every request goes through before its handler, in this order: authentication (401), the
   * credential's window (429; an unauthenticated call is metered under its IP but answered 401),
   * the route's per-IP minute (429), the route's scope (403), an injected fault (503). Sets the
   * `RateLimit-*` headers of the credential's window on the reply.
   */
  const admit = (request: FastifyRequest, reply: FastifyReply, config: FastifyContextConfig) => {
    const auth = authenticate(request.headers.authorization);
    const windowKey = auth.ok ? `token:${auth.principal.token}` : `ip:${request.ip}`;
    const verdict = credentialWindows.take(windowKey);
    setRateHeaders(reply, verdict);
    if (!auth.ok) {
      throw new SimError(401, 'UNAUTHORIZED', `Authorization header ${auth.reason}`);
    }
    if (!verdict.allowed) throw tooMany(verdict, 'rate limit exceeded for this credential');
    request.principal = auth.principal;

    const { ipClass, scope } = config;
    const ipWindow = ipClass ? ipWindows.get(ipClass) : undefined;
    if (ipWindow) {
      const ipVerdict = ipWindow.take(request.ip);
      if (!ipVerdict.allowed) throw tooMany(ipVerdict, 'per-IP request rate exceeded');
    }
    if (scope && !auth.principal.scopes.has(scope)) {
      throw new SimError(403, 'FORBIDDEN', `missing scope ${scope}`, undefined, {
        requiredScope: scope,
      });
    }
    if (knobs.faultRate > 0 && Math.random() < knobs.faultRate) {
      throw new SimError(503, 'SERVICE_UNAVAILABLE', 'injected fault');
    }
  };

  /** Writes any error as the documented envelope (429: plus `Retry-After`). */
  const sendError = (reply: FastifyReply, error: unknown) => {
    const refusal =
      error instanceof SimError
        ? error
        : frameworkRefusal(error as { statusCode?: number; code?: string });
    if (refusal.status === 429) reply.header('Retry-After', String(refusal.extra.retryAfterSec));
    return reply.status(refusal.status).send(refusal.toBody());
  };

  /**
   * Requests the router refused before any route or hook saw them (a path parameter over
   * {@link MAX_PATH_PARAM_LENGTH} characters, a bad percent-encoding): admitted like any request
   * (for the route the path names, when it names one), refused in the envelope, counted.
   */
  const refuseUnrouted = async (
    error: FastifyError,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> => {
    const match = routeIndex.match(request.method, request.raw.url ?? '/');
    try {
      if (knobs.latencyMs > 0) await sleep(knobs.latencyMs);
      admit(request, reply, match?.route.config ?? {});
      throw routingRefusal(error, match);
    } catch (refusal) {
      await sendError(reply, refusal);
    }
    stats.record(match?.route.template, reply.statusCode);
  };

  /**
   * Requests the HTTP parser could not read (headers too large, malformed request line): answered
   * on the socket in the envelope, metered under the client IP (no header could be read), counted.
   */
  const refuseUnparsable = (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const verdict = credentialWindows.take(`ip:${socket.remoteAddress ?? 'unknown'}`);
    const refusal = verdict.allowed
      ? unparsableRefusal(error.code)
      : tooMany(verdict, 'rate limit exceeded for this client');
    const body = JSON.stringify(refusal.toBody());
    const headers = [
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `RateLimit-Limit: ${verdict.limit}`,
      `RateLimit-Remaining: ${verdict.remaining}`,
      `RateLimit-Reset: ${verdict.resetSec}`,
      ...(refusal.status === 429 ? [`Retry-After: ${verdict.resetSec}`] : []),
      'Connection: close',
    ];
    stats.record(undefined, refusal.status);
    if (socket.writable) socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`);
    socket.destroy();
  };

  const app = Fastify({
    logger: false,
    bodyLimit: JSON_BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: (error, request, reply) => {
      void refuseUnrouted(error, request as FastifyRequest, reply as FastifyReply);
    },
    clientErrorHandler: refuseUnparsable,
    ...(options.schemaController ? { schemaController: options.schemaController } : {}),
  });
  app.addHook('onRoute', (route) => routeIndex.add(route));

  app.setErrorHandler((error: unknown, _request, reply) => sendError(reply, error));
  // Like the real API, a JSON content type with an empty body (DELETE, POST …/deployments) is fine.
  // Bodies are JSON (the documents): no other parser, so text/plain & co. are 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new SimError(400, 'INVALID_BODY', 'request body is not valid JSON'), undefined);
    }
  });
  app.setNotFoundHandler(() => {
    throw new SimError(404, 'NOT_FOUND', 'no such path');
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/__sim/')) return;
    await options.onArrival?.({
      method: request.method,
      url: request.url,
      headers: request.headers,
    });
    if (knobs.latencyMs > 0) await sleep(knobs.latencyMs);
    admit(request, reply, request.routeOptions.config);
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.url.startsWith('/__sim/')) return;
    options.onAnswered?.({ method: request.method, url: request.url });
    const url = request.routeOptions.url;
    stats.record(url ? toRouteTemplate(request.method, url) : undefined, reply.statusCode);
  });

  app.get('/__sim/stats', async () => stats.snapshot());
  app.post('/__sim/reset', async () => {
    stats.reset();
    credentialWindows.reset();
    for (const window of ipWindows.values()) window.reset();
    for (const hook of context.onReset) hook();
    return { ok: true };
  });

  await registerCertificateRoutes(app, context);
  await registerHostingRoutes(app, context);
  await registerCommerceRoutes(app, context);
  await registerSubgraphRoutes(app, context);

  return {
    app,
    context,
    stats,
    async listen(port = 0, host = '127.0.0.1') {
      await app.listen({ port, host });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('simulator has no port');
      return `http://${host}:${address.port}`;
    },
    close: () => app.close(),
    configure(next) {
      Object.assign(knobs, next);
    },
  };
}
