/** Request counters behind `GET /__sim/stats`, keyed by route template (`GET /v2/…/{customerId}`). */
export interface SimStatsSnapshot {
  total: number;
  byRoute: Record<string, number>;
  byStatus: Record<string, number>;
}

export class SimStats {
  private snapshotData: SimStatsSnapshot = { total: 0, byRoute: {}, byStatus: {} };

  record(route: string | undefined, status: number): void {
    const s = this.snapshotData;
    s.total += 1;
    if (route) s.byRoute[route] = (s.byRoute[route] ?? 0) + 1;
    s.byStatus[String(status)] = (s.byStatus[String(status)] ?? 0) + 1;
  }

  snapshot(): SimStatsSnapshot {
    return structuredClone(this.snapshotData);
  }

  reset(): void {
    this.snapshotData = { total: 0, byRoute: {}, byStatus: {} };
  }
}

/** Fastify's `/v2/customers/:customerId` → the documents' `/v2/customers/{customerId}`. */
export const toRouteTemplate = (method: string, fastifyUrl: string): string =>
  `${method} ${fastifyUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
