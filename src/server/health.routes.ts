/**
 * `/healthz`: the process is alive. `/readyz`: the schema is built and the upstream answers (any
 * HTTP status counts; the probe sends no credential, so it costs no budget). The probe result is
 * reused for a couple of seconds so frequent checks do not hammer the upstream.
 *
 * `/readyz` also says what this replica can reach of the shared state (Redis, or a cluster's slots),
 * without letting it decide readiness: a replica on its fallbacks still serves within its share, and
 * Redis lost is usually lost for every replica, so taking them out of the balancer would turn a
 * degraded service into none (docs/replicas.md "Health").
 */
import type { FastifyInstance } from 'fastify';
import type { SharedStateReport } from '../redis/redis-connection.ts';

export interface ReadinessChecks {
  schemaReady: () => boolean;
  upstreamReachable: () => Promise<boolean>;
  /** What the Redis connection can serve now (undefined without Redis); sends nothing. */
  sharedState?: (() => SharedStateReport) | undefined;
}

export function registerHealthRoutes(
  app: FastifyInstance,
  checks: ReadinessChecks,
  ttlMs = 2_000,
): void {
  let cached: { at: number; ok: boolean } | undefined;
  const upstreamOk = async () => {
    if (cached && Date.now() - cached.at < ttlMs) return cached.ok;
    const ok = await checks.upstreamReachable();
    cached = { at: Date.now(), ok };
    return ok;
  };

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const schema = checks.schemaReady();
    const upstream = await upstreamOk();
    const ready = schema && upstream;
    const sharedState = checks.sharedState?.();
    return reply.status(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not-ready',
      checks: { schema, upstream },
      ...(sharedState ? { sharedState } : {}),
    });
  });
}
