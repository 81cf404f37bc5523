/**
 * The only reader of `process.env`. Validated once with zod at start-up; a bad variable stops the
 * process with a message that names it. The result is frozen and passed down explicitly.
 */
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const int = (min: number, max?: number) => {
  let schema = z.coerce.number().int().min(min);
  if (max !== undefined) schema = schema.max(max);
  return schema;
};

const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: int(0, 65_535).default(4000),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The provider's base URL. Unset: `npm start` runs the embedded simulator and points here. */
  UPSTREAM_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
    .optional(),
  REDIS_URL: z
    .string()
    .url()
    .refine((u) => /^rediss?:\/\//.test(u), 'must be a redis:// or rediss:// URL')
    .optional(),
  UPSTREAM_RATE_LIMIT: int(1).default(600),
  UPSTREAM_RATE_WINDOW_SEC: int(1).default(1399),
  /** How long a call waits for a token of an empty bucket before failing with RATE_LIMITED. */
  UPSTREAM_BUCKET_WAIT_MS: int(0, 10_000).default(250),
  /** The token buckets in front of every upstream call. `off` exists for benchmarks only. */
  UPSTREAM_LIMITER: z.enum(['on', 'off']).default('on'),
  /** The shared response cache (and singleflight). `off` exists for benchmarks and debugging. */
  UPSTREAM_CACHE: z.enum(['on', 'off']).default('on'),
  /** Bound of the in-memory cache (LRU by serialized size); unused with REDIS_URL. */
  CACHE_MAX_BYTES: int(1024 * 1024).default(64 * 1024 * 1024),
  /** How old a cached value may be when it is served because the upstream failed (stale-if-error). */
  CACHE_STALE_MAX_AGE_SEC: int(0, 86_400).default(600),
  /** Per-kind TTL overrides, `kind=seconds,kind=seconds` (kinds: README "Cache"). */
  CACHE_TTL_OVERRIDES: z
    .string()
    .regex(/^[a-z0-9-]+=\d+(,[a-z0-9-]+=\d+)*$/, 'must look like kind=seconds,kind=seconds')
    .optional(),
  /** Prefix of every Redis key Weft writes (replicas of one deployment share it). */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,32}$/)
    .default('weft'),
  REDIS_CONNECT_TIMEOUT_MS: int(50, 60_000).default(1_000),
  /** A Redis command slower than this counts as Redis being unreachable. */
  REDIS_COMMAND_TIMEOUT_MS: int(10, 10_000).default(200),
  /**
   * While Redis is unreachable each replica limits itself to this share of every budget (credential
   * and route class), still corrected by the upstream's RateLimit headers. Set it to at most
   * 1 / replicas so that the replicas together stay within the budget.
   */
  REDIS_DOWN_BUDGET_SHARE: z.coerce.number().gt(0).max(1).default(0.25),
  /** Whole-operation deadline for one upstream call, retries included. */
  UPSTREAM_DEADLINE_MS: int(100, 120_000).default(10_000),
  UPSTREAM_CONNECT_TIMEOUT_MS: int(50, 60_000).default(2_000),
  UPSTREAM_HEADERS_TIMEOUT_MS: int(50, 120_000).default(8_000),
  UPSTREAM_BODY_TIMEOUT_MS: int(50, 120_000).default(8_000),
  UPSTREAM_MAX_ATTEMPTS: int(1, 10).default(3),
  UPSTREAM_MAX_RESPONSE_BYTES: int(1024).default(10 * 1024 * 1024),
  UPSTREAM_CONNECTIONS: int(1, 1024).default(64),
  /** Bound for finishing in-flight requests on SIGTERM/SIGINT. */
  SHUTDOWN_TIMEOUT_MS: int(0, 120_000).default(10_000),
  /**
   * Key for the HMAC that turns a bearer token into a cache/bucket key. Replicas that share Redis
   * must share it; unset, each process draws a random one (fine for a single process).
   */
  CREDENTIAL_HMAC_SECRET: z.string().min(16).optional(),
  INTROSPECTION: bool.default('true'),
  // Production policy (src/server/limits, persisted-operations, idempotency, explorer): README "Security".
  /** Deepest field nesting of an operation (the standard introspection query is 15 deep). */
  LIMIT_MAX_DEPTH: int(1, 1_000).default(15),
  /** Aliased fields per operation, counted through fragments. */
  LIMIT_MAX_ALIASES: int(0, 10_000).default(30),
  /** Root fields (other than `__typename`) per operation, counted through fragments. */
  LIMIT_MAX_ROOT_FIELDS: int(1, 10_000).default(20),
  /** Directive uses per operation, counted through fragments. */
  LIMIT_MAX_DIRECTIVES: int(0, 10_000).default(20),
  /** Lexical tokens per document (parse stops past it). */
  LIMIT_MAX_TOKENS: int(100, 1_000_000).default(2_000),
  /** UTF-8 bytes of one GraphQL document. */
  LIMIT_MAX_DOCUMENT_BYTES: int(512, 10 * 1024 * 1024).default(32 * 1024),
  /** Estimated cost of an operation (README "Security": objects resolved, lists times their size). */
  LIMIT_MAX_COST: int(1, 10_000_000).default(1_000),
  /** The size assumed for a list without a `first`/`last`/`limit`/`pageSize`/`lines` argument. */
  LIMIT_DEFAULT_LIST_SIZE: int(1, 10_000).default(10),
  /** Largest non-multipart request body (JSON); multipart uploads are capped by UPLOAD_MAX_BYTES. */
  REQUEST_BODY_LIMIT_BYTES: int(1_024, 100 * 1024 * 1024).default(256 * 1024),
  /** How long an automatic persisted query stays registered. */
  APQ_TTL_SEC: int(1).default(86_400),
  /** Trusted-documents mode: a JSON manifest of the only operations served (README "Security"). */
  TRUSTED_DOCUMENTS_PATH: z.string().min(1).optional(),
  /** How long a mutation's result is kept for replay under its `Idempotency-Key`. */
  IDEMPOTENCY_TTL_SEC: int(60).default(86_400),
  /** How long a duplicate waits for the first request with its key before it gets CONFLICT. */
  IDEMPOTENCY_WAIT_MS: int(100, 300_000).default(30_000),
  /** The self-hosted GraphiQL at `GET /graphql` (Accept: text/html). */
  EXPLORER: bool.default('true'),
  /** Consecutive upstream failures (5xx, network, timeout) that open a route class's circuit. */
  BREAKER_FAILURE_THRESHOLD: int(1, 1000).default(5),
  /** How long an open circuit refuses calls before one half-open probe. */
  BREAKER_OPEN_MS: int(100, 600_000).default(10_000),
  /** Replay whole query responses whose every upstream read was cached (needs UPSTREAM_CACHE). */
  RESPONSE_CACHE: bool.default('true'),
  /** Prometheus metrics on `GET /metrics`. */
  METRICS: bool.default('true'),
  /** OpenTelemetry tracing: off, or `log` (finished spans as JSON log lines). */
  TRACING: z.enum(['off', 'log']).default('off'),
  /** Largest file a GraphQL multipart upload may carry (`uploadAppSource`); default 100 MiB. */
  UPLOAD_MAX_BYTES: int(1).default(100 * 1024 * 1024),
  /** Subscriptions poll the upstream from this interval, backing off to the max while nothing changes. */
  SUBSCRIPTION_POLL_MIN_MS: int(50, 60_000).default(500),
  SUBSCRIPTION_POLL_MAX_MS: int(50, 300_000).default(5_000),
  /** A subscription whose resource never reaches a terminal state stops polling after this long. */
  SUBSCRIPTION_MAX_LIFETIME_MS: int(1_000).default(15 * 60_000),
  // Knobs of the embedded simulator (used only when UPSTREAM_URL is unset).
  SIM_LATENCY_MS: int(0, 60_000).default(0),
  SIM_RATE_LIMIT: int(1).default(600),
  SIM_RATE_WINDOW_SEC: int(1).default(1399),
  SIM_FAULT_RATE: z.coerce.number().min(0).max(1).default(0),
});

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses the environment. Empty strings count as unset, so `FOO=` in a shell means "default".
 * Throws {@link ConfigError} naming every bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(ConfigSchema.shape)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  // Without the limiter nothing keeps a replica within the upstream budget: never in production.
  if (parsed.data.NODE_ENV === 'production' && parsed.data.UPSTREAM_LIMITER === 'off') {
    throw new ConfigError('Invalid configuration: UPSTREAM_LIMITER: off is refused in production');
  }
  return Object.freeze(parsed.data);
}

const SchemaPullSchema = z.object({
  UPSTREAM_URL: ConfigSchema.shape.UPSTREAM_URL.unwrap(),
  /** A token with `commerce.product:read`, `commerce.tax:read` and `commerce.order:read`. */
  SCHEMA_PULL_TOKEN: z.string().min(1),
  /** A store the token can read: the catalog and tax subgraphs are introspected through it. */
  SCHEMA_PULL_STORE_ID: z.string().uuid(),
});

/** What `npm run schema:pull` needs (it never runs inside the gateway). */
export type SchemaPullConfig = Readonly<z.infer<typeof SchemaPullSchema>>;

/**
 * Parses the environment of `npm run schema:pull` (src/stitching/pull-remote-schemas.ts). Like
 * {@link loadConfig}: empty strings count as unset, and every bad variable is named.
 */
export function loadSchemaPullConfig(env: NodeJS.ProcessEnv = process.env): SchemaPullConfig {
  const present = Object.fromEntries(
    Object.keys(SchemaPullSchema.shape)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const parsed = SchemaPullSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid schema:pull configuration: ${problems.join('; ')}`);
  }
  return Object.freeze(parsed.data);
}
