/** `GET /metrics`: the Prometheus text exposition of the gateway's registry. */
import type { FastifyInstance } from 'fastify';
import type { GatewayMetrics } from './metrics.ts';

export function registerMetricsRoute(app: FastifyInstance, metrics: GatewayMetrics): void {
  app.get('/metrics', async (_request, reply) =>
    reply
      .header('content-type', metrics.registry.contentType)
      .send(await metrics.registry.metrics()),
  );
}
