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

/**
 * The resource kinds of the upstream cache's TTL table (docs: "Cache"), the vocabulary of
 * `CACHE_TTL_OVERRIDES`. Each upstream route's cache rule names one of these; a test keeps the two
 * in step, so a typo in an override is refused here, before anything starts.
 */
export const CACHE_KINDS = [
  'certificate-entitlement',
  'certificate-bundle',
  'certificate-list',
  'certificate-detail',
  'domain-verification',
  'certificate-subscription',
  'app-list',
  'app',
  'app-deployments',
  'app-runtime-status',
  'app-secret-names',
  'store',
  'channel',
  'store-customer',
  'transaction',
  'catalog-query',
  'tax-query',
  'order-query',
] as const;
export type CacheKind = (typeof CACHE_KINDS)[number];

const KNOWN_KINDS: ReadonlySet<string> = new Set(CACHE_KINDS);

/** `kind=seconds,kind=seconds` → a map; names every unknown kind and the known ones. */
const ttlOverrides = z
  .string()
  .regex(
    /^[a-z0-9-]+=\d+(,[a-z0-9-]+=\d+)*$/,
    'must look like kind=seconds,kind=seconds (e.g. app=10,store=300)',
  )
  .transform((text, ctx) => {
    const overrides = new Map<CacheKind, number>();
    for (const pair of text.split(',')) {
      const [kind = '', seconds = ''] = pair.split('=');
      if (!KNOWN_KINDS.has(kind)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `unknown kind "${kind}" (known: ${CACHE_KINDS.join(', ')})`,
        });
        continue;
      }
      overrides.set(kind as CacheKind, Number(seconds));
    }
    return overrides as ReadonlyMap<CacheKind, number>;
  });

const REDIS_KEY_PREFIX_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;

const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: int(0, 65_535).default(4000),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Where the upstream is: `url` (UPSTREAM_URL) or `embedded` (the simulator, started in-process on
   * a free port — fake data, for development and demos). Unset: `url` when UPSTREAM_URL is set,
   * otherwise `embedded` outside production; production refuses to guess.
   */
  UPSTREAM: z.enum(['url', 'embedded']).optional(),
  /** The provider's base URL. */
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
  /** Per-kind TTL overrides, `kind=seconds,kind=seconds` (kinds: docs/efficiency.md "Cache"). */
  CACHE_TTL_OVERRIDES: ttlOverrides
    .optional()
    .transform((overrides) => overrides ?? (new Map() as ReadonlyMap<CacheKind, number>)),
  /** Prefix of every Redis key Weft writes (replicas of one deployment share it). */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(
      REDIS_KEY_PREFIX_PATTERN,
      `must match ${REDIS_KEY_PREFIX_PATTERN.source} (1–32 letters, digits, "_", "." or "-")`,
    )
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
  SHUTDOWN_TIMEOUT_MS: int(0, 120_000).default(8_000),
  /**
   * Key for the HMAC that turns a bearer token into a cache/bucket key. Required with REDIS_URL:
   * replicas that share Redis must share it, or they share no budget, cache or idempotency record.
   * Unset without Redis, each process draws a random one (fine for a single process).
   */
  CREDENTIAL_HMAC_SECRET: z.string().min(16).optional(),
  INTROSPECTION: bool.default('true'),
  // Production policy (src/server/limits, persisted-operations, idempotency, explorer): docs/security.md.
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
  /** Estimated cost of an operation (docs/security.md: objects resolved, lists times their size). */
  LIMIT_MAX_COST: int(1, 10_000_000).default(1_000),
  /** The size assumed for a list without a `first`/`last`/`limit`/`pageSize`/`lines` argument. */
  LIMIT_DEFAULT_LIST_SIZE: int(1, 10_000).default(10),
  /** Largest non-multipart request body (JSON); multipart uploads are capped by UPLOAD_MAX_BYTES. */
  REQUEST_BODY_LIMIT_BYTES: int(1_024, 100 * 1024 * 1024).default(256 * 1024),
  /** How long an automatic persisted query stays registered. */
  APQ_TTL_SEC: int(1).default(86_400),
  /** Trusted-documents mode: a JSON manifest of the only operations served (docs/security.md). */
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
  // Knobs of the embedded simulator (used only with UPSTREAM=embedded).
  SIM_LATENCY_MS: int(0, 60_000).default(0),
  SIM_RATE_LIMIT: int(1).default(600),
  SIM_RATE_WINDOW_SEC: int(1).default(1399),
  SIM_FAULT_RATE: z.coerce.number().min(0).max(1).default(0),
});

type ParsedConfig = z.infer<typeof ConfigSchema>;

/** The validated configuration; `UPSTREAM` is resolved (never unset). */
export type Config = Readonly<
  Omit<ParsedConfig, 'UPSTREAM'> & { readonly UPSTREAM: 'url' | 'embedded' }
>;

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
  const problems = crossFieldProblems(parsed.data);
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const upstream =
    parsed.data.UPSTREAM ?? (parsed.data.UPSTREAM_URL === undefined ? 'embedded' : 'url');
  return Object.freeze({ ...parsed.data, UPSTREAM: upstream });
}

/** Pairs that must be ordered: `[smaller, larger]`. */
const ORDERED_PAIRS = [
  ['SUBSCRIPTION_POLL_MIN_MS', 'SUBSCRIPTION_POLL_MAX_MS'],
  ['SUBSCRIPTION_POLL_MAX_MS', 'SUBSCRIPTION_MAX_LIFETIME_MS'],
  ['UPSTREAM_CONNECT_TIMEOUT_MS', 'UPSTREAM_DEADLINE_MS'],
  ['UPSTREAM_HEADERS_TIMEOUT_MS', 'UPSTREAM_DEADLINE_MS'],
  ['UPSTREAM_BODY_TIMEOUT_MS', 'UPSTREAM_DEADLINE_MS'],
  ['UPSTREAM_BUCKET_WAIT_MS', 'UPSTREAM_DEADLINE_MS'],
  ['REDIS_COMMAND_TIMEOUT_MS', 'REDIS_CONNECT_TIMEOUT_MS'],
] as const satisfies readonly (readonly [keyof ParsedConfig, keyof ParsedConfig])[];

/** Rules that involve more than one variable; each message names the variables. */
function crossFieldProblems(config: ParsedConfig): string[] {
  const problems: string[] = [];
  for (const [smaller, larger] of ORDERED_PAIRS) {
    if (config[smaller] > config[larger]) {
      problems.push(
        `${smaller} (${config[smaller]}) must not exceed ${larger} (${config[larger]})`,
      );
    }
  }
  const production = config.NODE_ENV === 'production';
  // Without the limiter nothing keeps a replica within the upstream budget: never in production.
  if (production && config.UPSTREAM_LIMITER === 'off') {
    problems.push('UPSTREAM_LIMITER: off is refused in production');
  }
  if (config.UPSTREAM === 'url' && config.UPSTREAM_URL === undefined) {
    problems.push('UPSTREAM_URL: required when UPSTREAM=url');
  }
  if (config.UPSTREAM === 'embedded' && config.UPSTREAM_URL !== undefined) {
    problems.push('UPSTREAM_URL: must be unset when UPSTREAM=embedded (choose one upstream)');
  }
  // A production process that silently served the simulator's fake data would look healthy.
  if (production && config.UPSTREAM === undefined && config.UPSTREAM_URL === undefined) {
    problems.push(
      'UPSTREAM_URL: required in production (the provider base URL); ' +
        'set UPSTREAM=embedded to serve the simulator on purpose',
    );
  }
  // Replicas with their own random HMAC keys would share Redis but none of its keys.
  if (config.REDIS_URL !== undefined && config.CREDENTIAL_HMAC_SECRET === undefined) {
    problems.push(
      'CREDENTIAL_HMAC_SECRET: required with REDIS_URL (at least 16 characters, the same on ' +
        'every replica) so that replicas share budgets, cache and idempotency records',
    );
  }
  return problems;
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
