/** How the gateway listens, what it accepts from clients, and what it serves besides the graph. */
import { z } from 'zod';
import { configGroup } from '../config-group.ts';
import { flag } from '../switches.ts';
import { int } from '../values.ts';

export const SERVER = configGroup(
  'Server',
  'Listening, request bounds, shutdown, and the endpoints besides the graph ([security](security.md)).',
  {
    HOST: z.string().min(1).default('0.0.0.0').describe('Listen address.'),
    UPSTREAM: z
      .enum(['url', 'embedded'])
      .optional()
      .describe(
        '`url` (UPSTREAM_URL) or `embedded` (the simulator, fake data). Unset: `url` if UPSTREAM_URL is set, else `embedded`.',
      ),
    REQUEST_TIMEOUT_MS: int(1_000, 3_600_000)
      .default(60_000)
      .describe(
        'Time to receive a whole request, uploads included (408 past it); 60 s takes a 100 MiB upload at 14 Mbit/s or faster.',
      ),
    HEADERS_TIMEOUT_MS: int(1_000, 3_600_000)
      .default(10_000)
      .describe("Time to receive a request's headers; past it the connection is closed."),
    KEEPALIVE_TIMEOUT_MS: int(1_000, 600_000)
      .default(72_000)
      .describe("Idle keep-alive time; above load balancers' usual 60 s."),
    SHUTDOWN_TIMEOUT_MS: int(0, 120_000)
      .default(8_000)
      .describe('Time to finish in-flight requests on SIGTERM/SIGINT.'),
    MEMORY_RELEASE_IDLE_MS: int(0, 86_400_000)
      .default(30_000)
      .describe(
        'Idle time (probes and scrapes do not count) after which memory a burst grew is returned (needs `--expose-gc`, as `npm start`); `0`: never.',
      ),
    REQUEST_BODY_LIMIT_BYTES: int(1_024, 100 * 1024 * 1024)
      .default(256 * 1024)
      .describe('Largest JSON request body; uploads are bounded by UPLOAD_MAX_BYTES.'),
    UPLOAD_MAX_BYTES: int(1)
      .default(100 * 1024 * 1024)
      .describe('Largest file of a multipart upload (`uploadAppSource`); 100 MiB.'),
    INTROSPECTION: flag('on').describe('Schema introspection (the explorer and codegen use it).'),
    EXPLORER: flag('on').describe('The GraphiQL explorer at `GET /graphql` (Accept: text/html).'),
    TRUSTED_DOCUMENTS_PATH: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A JSON manifest of the only operations served ([clients](clients.md)); others are refused.',
      ),
    APQ_TTL_SEC: int(1)
      .default(86_400)
      .describe('How long an automatic persisted query stays registered.'),
    APQ_MAX_PER_CREDENTIAL: int(1, 1_000_000)
      .default(1_000)
      .describe(
        'Persisted queries one credential may register per APQ_TTL_SEC; clients without a token register none.',
      ),
    IDEMPOTENCY_TTL_SEC: int(60)
      .default(86_400)
      .describe("How long a mutation's result is kept for replay under its `Idempotency-Key`."),
    IDEMPOTENCY_WAIT_MS: int(100, 300_000)
      .default(30_000)
      .describe(
        'How long a keyed mutation waits for its key (then CONFLICT), or for Redis (then IDEMPOTENCY_UNAVAILABLE).',
      ),
  },
);
