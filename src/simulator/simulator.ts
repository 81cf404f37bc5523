/**
 * The embedded upstream: a faithful stand-in for the provider's HTTP API, built from the three seed
 * documents. `npm start` runs it in-process when `UPSTREAM_URL` is unset; every integration test and
 * the benchmark talk to it over a real socket. Gateway code never imports this folder.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { authenticate, type SimPrincipal } from './accounts.ts';
import { FixedWindows, type WindowVerdict } from './rate-windows.ts';
import { SimError } from './sim-errors.ts';
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

  const app = Fastify({ logger: false, bodyLimit: 200 * 1024 * 1024 });

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof SimError) {
      if (error.status === 429) reply.header('Retry-After', String(error.extra.retryAfterSec));
      return reply.status(error.status).send(error.toBody());
    }
    const err = error as { statusCode?: number; message?: string };
    if (err.statusCode && err.statusCode < 500) {
      return reply
        .status(err.statusCode)
        .send({ code: 'INVALID_BODY', message: err.message ?? 'invalid request' });
    }
    return reply.status(500).send({ code: 'INTERNAL_ERROR', message: 'internal error' });
  });
  // Like the real API, a JSON content type with an empty body (DELETE, POST …/deployments) is fine.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new SimError(400, 'INVALID_BODY', 'request body is not valid JSON'), undefined);
    }
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.status(404).send({ code: 'NOT_FOUND', message: 'no such path' }),
  );

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/__sim/')) return;
    if (knobs.latencyMs > 0) await sleep(knobs.latencyMs);

    const auth = authenticate(request.headers.authorization);
    const windowKey = auth.ok ? `token:${auth.principal.token}` : `ip:${request.ip}`;
    const verdict = credentialWindows.take(windowKey);
    setRateHeaders(reply, verdict);
    if (!auth.ok) {
      throw new SimError(401, 'UNAUTHORIZED', `Authorization header ${auth.reason}`);
    }
    if (!verdict.allowed) throw tooMany(verdict, 'rate limit exceeded for this credential');
    request.principal = auth.principal;

    const { ipClass, scope } = request.routeOptions.config;
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
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.url.startsWith('/__sim/')) return;
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
