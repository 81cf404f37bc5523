/** The upstream's allowance per credential and how each call to it is bounded. */
import { z } from 'zod';
import { configGroup } from '../config-group.ts';
import { int } from '../values.ts';

export const UPSTREAM = configGroup(
  'Upstream and budget',
  "The defaults match the provider's documented allowance ([budget](budget.md)).",
  {
    UPSTREAM_RATE_LIMIT: int(1)
      .default(600)
      .describe('The budget per credential: requests per window.'),
    UPSTREAM_RATE_WINDOW_SEC: int(1)
      .default(1399)
      .describe('The budget per credential: the window, seconds.'),
    UPSTREAM_BUCKET_WAIT_MS: int(0, 60_000)
      .default(5_000)
      .describe(
        'Longest wait for budget (never past the deadline); later room is refused at once with RATE_LIMITED.',
      ),
    UPSTREAM_WRITE_RESERVE_SHARE: z.coerce
      .number()
      .min(0)
      .max(0.5)
      .default(0.1)
      .describe(
        'Share of each window kept for writes: reads stop there, polling and the explorer earlier.',
      ),
    UPSTREAM_DEADLINE_MS: int(100, 120_000)
      .default(10_000)
      .describe('Deadline of one upstream call, retries included.'),
    UPSTREAM_CONNECT_TIMEOUT_MS: int(50, 60_000)
      .default(2_000)
      .describe('TCP/TLS connect timeout of one attempt.'),
    UPSTREAM_HEADERS_TIMEOUT_MS: int(50, 120_000)
      .default(8_000)
      .describe('Time to the response headers, per attempt.'),
    UPSTREAM_BODY_TIMEOUT_MS: int(50, 120_000)
      .default(8_000)
      .describe('Time between body chunks, per attempt.'),
    UPSTREAM_MAX_ATTEMPTS: int(1, 10)
      .default(3)
      .describe(
        'Attempts of a GET after network errors, timeouts, 5xx or 429, within the deadline.',
      ),
    UPSTREAM_MAX_RESPONSE_BYTES: int(1024)
      .default(10 * 1024 * 1024)
      .describe('A larger upstream response fails with UPSTREAM_ERROR.'),
    UPSTREAM_CONNECTIONS: int(1, 1024)
      .default(64)
      .describe('Keep-alive connections to the upstream.'),
    BREAKER_FAILURE_THRESHOLD: int(1, 1000)
      .default(5)
      .describe("Consecutive failures (5xx, network, timeout) that open a route class's circuit."),
    BREAKER_OPEN_MS: int(100, 600_000)
      .default(10_000)
      .describe('How long an open circuit refuses calls before one probe.'),
  },
);
