/**
 * Builds the one upstream client from the configuration: transport (undici pool), deadline and
 * retry policy, and the budget bookkeeping fed by every response's RateLimit-* headers.
 * The efficiency layers (cache, singleflight, token bucket) compose here.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { createBudgetTracker, type BudgetTracker } from './budget-tracker.js';
import { createTransport } from './http-transport.js';
import { DEFAULT_RETRY_POLICY } from './retry-policy.js';
import { createUpstreamClient, type UpstreamClient } from './upstream-client.js';

export interface UpstreamStack {
  readonly client: UpstreamClient;
  readonly budget: BudgetTracker;
  close(): Promise<void>;
}

export function createUpstreamStack(
  config: Config,
  logger: FastifyBaseLogger,
  upstreamUrl: string,
): UpstreamStack {
  const budget = createBudgetTracker({
    limit: config.UPSTREAM_RATE_LIMIT,
    windowSec: config.UPSTREAM_RATE_WINDOW_SEC,
  });
  const log = logger.child({ component: 'upstream' });
  const client = createUpstreamClient({
    transport: createTransport({
      baseUrl: upstreamUrl,
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: config.UPSTREAM_BODY_TIMEOUT_MS,
      maxResponseBytes: config.UPSTREAM_MAX_RESPONSE_BYTES,
      connections: config.UPSTREAM_CONNECTIONS,
    }),
    deadlineMs: config.UPSTREAM_DEADLINE_MS,
    retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: config.UPSTREAM_MAX_ATTEMPTS },
    observe: ({ call, status, rateLimit, durationMs, attempt }) => {
      if (rateLimit) budget.record(call.credential.id, rateLimit);
      log.debug(
        { route: `${call.method} ${call.route}`, status, durationMs, attempt },
        'upstream call',
      );
    },
  });
  return { client, budget, close: () => client.close() };
}
