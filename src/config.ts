/**
 * The only reader of `process.env`. Validated once with zod at start-up; a bad variable stops the
 * process with a message that names it. The result is frozen and passed down explicitly. Each
 * variable's `.describe()` is its documentation: docs/configuration.md is generated from this schema
 * (`npm run docs:config`; `npm run check` fails when the document is stale).
 */
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const int = (min: number, max?: number) => {
  let schema = z.coerce.number().int().min(min);
  if (max !== undefined) schema = schema.max(max);
  return schema;
};

/**
 * `kind=seconds,kind=seconds` → a map. Only the form is checked here: the kinds are whatever the
 * domains' upstream route declarations name, which this bottom layer cannot see, so an unknown kind
 * is refused where those declarations meet the overrides (`createCachePolicy`, when the upstream
 * stack is built — still before the gateway listens).
 */
const ttlOverrides = z
  .string()
  .regex(
    /^[a-z0-9-]+=\d+(,[a-z0-9-]+=\d+)*$/,
    'must look like kind=seconds,kind=seconds (e.g. app=10,store=300)',
  )
  .transform((text): ReadonlyMap<string, number> => {
    const overrides = new Map<string, number>();
    for (const pair of text.split(',')) {
      const [kind = '', seconds = ''] = pair.split('=');
      overrides.set(kind, Number(seconds));
    }
    return overrides;
  });

const REDIS_KEY_PREFIX_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;

const ConfigSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .default('development')
    .describe(
      '`development`, `production` or `test`; production refuses to guess an upstream and hides suggestions in errors.',
    ),
  PORT: int(0, 65_535).default(4000).describe('HTTP port (`0` = any free port).'),
  HOST: z.string().min(1).default('0.0.0.0').describe('Listen address.'),
  TRUST_PROXY: z
    .string()
    .regex(
      /^(true|[0-9A-Fa-f]*[.:][0-9A-Fa-f.:]*(\/\d{1,3})?(,[0-9A-Fa-f]*[.:][0-9A-Fa-f.:]*(\/\d{1,3})?)*)$/,
      'must be `true` or a comma-separated list of proxy addresses/CIDRs',
    )
    .optional()
    .describe(
      "Which proxies' `X-Forwarded-For` names the client's address (the address that bounds calls for tokens the upstream has not accepted yet): the proxies' addresses/CIDRs, or `true` (any: every client chooses its own address; refused in production). Unset: the socket's peer is the client, and an `X-Forwarded-For` that arrives is logged once.",
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level.'),
  UPSTREAM: z
    .enum(['url', 'embedded'])
    .optional()
    .describe(
      'Where the upstream is: `url` (UPSTREAM_URL) or `embedded` (the simulator, started in-process on a free port — fake data, for development and demos). Unset: `url` when UPSTREAM_URL is set, otherwise `embedded` outside production; production refuses to guess.',
    ),
  UPSTREAM_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
    .optional()
    .describe(
      "The provider's API base: scheme and host, no path; the three documents' paths (`/v1/…`, `/v2/…`) are under it (docs/provider.md).",
    ),
  REDIS_URL: z
    .string()
    .url()
    .refine((u) => /^rediss?:\/\//.test(u), 'must be a redis:// or rediss:// URL')
    .optional()
    .describe(
      'Redis for state shared by replicas: cache (and one upstream fetch for a read missed on several replicas at once), token buckets, idempotency records, APQ (docs/efficiency.md "Redis mode"). Unset: all in this process\'s memory.',
    ),
  REDIS_CLUSTER_NODES: z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((node) => node.trim())
        .filter((node) => node !== ''),
    )
    .refine(
      (nodes) => nodes.length > 0 && nodes.every((node) => /^[^\s:/]+:\d{1,5}$/.test(node)),
      'must be host:port,host:port,… (the root nodes of the cluster)',
    )
    .optional()
    .describe(
      'A Redis Cluster instead of one Redis: its root nodes, `host:port,host:port,…` (any nodes of the cluster; list several so that start-up does not depend on one). The same shared state as REDIS_URL, with keys hash-tagged per credential and per route class (docs/replicas.md). Mutually exclusive with REDIS_URL.',
    ),
  UPSTREAM_RATE_LIMIT: int(1)
    .default(600)
    .describe('The upstream budget per credential: requests per window.'),
  UPSTREAM_RATE_WINDOW_SEC: int(1)
    .default(1399)
    .describe('The upstream budget per credential: the window, seconds.'),
  UPSTREAM_BUCKET_WAIT_MS: int(0, 60_000)
    .default(5_000)
    .describe(
      'The longest a call waits for room in a bucket; it also never waits past its deadline (UPSTREAM_DEADLINE_MS). A call whose room comes later is refused at once with RATE_LIMITED and retryAfterSec.',
    ),
  UPSTREAM_WRITE_RESERVE_SHARE: z.coerce
    .number()
    .min(0)
    .max(0.5)
    .default(0.1)
    .describe(
      'The last part of each credential\'s window kept for writes (mutations): reads stop there, subscription polling and the explorer a little earlier (docs/efficiency.md "Priorities").',
    ),
  UPSTREAM_LIMITER: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      'The token buckets in front of every upstream call. `off` exists for benchmarks only.',
    ),
  UPSTREAM_CACHE: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      'The shared upstream cache (and singleflight). `off` exists for benchmarks and debugging.',
    ),
  UPSTREAM_CROSS_REPLICA_COALESCING: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      'With REDIS_URL and the upstream cache on: a cacheable read that misses on several replicas at once is fetched by one of them, and the others read its answer from the shared cache (docs/efficiency.md "One fetch across replicas"). `off`: each replica fetches for itself (singleflight per process only). Unused without Redis.',
    ),
  UPSTREAM_COALESCING_LEASE_MS: int(100, 60_000)
    .default(2_000)
    .describe(
      "How long the replica fetching for the others holds the key without renewing it (it renews every third of it while its call lasts): a replica that dies mid-call is replaced after this long. A waiting replica never waits more than half of the call's deadline (UPSTREAM_DEADLINE_MS) before fetching for itself.",
    ),
  CACHE_MAX_BYTES: int(1024 * 1024)
    .default(32 * 1024 * 1024)
    .describe(
      'Bound of the in-memory cache (LRU by estimated heap size); unused with REDIS_URL or REDIS_CLUSTER_NODES.',
    ),
  CACHE_STALE_MAX_AGE_SEC: int(0, 86_400)
    .default(600)
    .describe(
      'How old a cached value may be when it is served because the upstream failed (stale-if-error).',
    ),
  CACHE_TTL_OVERRIDES: ttlOverrides
    .optional()
    .transform((overrides) => overrides ?? (new Map() as ReadonlyMap<string, number>))
    .describe(
      'Per-kind TTL overrides, `kind=seconds,kind=seconds`: the kinds the upstream routes declare (docs/efficiency.md "Cache"); an unknown kind stops the start-up.',
    ),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(
      REDIS_KEY_PREFIX_PATTERN,
      `must match ${REDIS_KEY_PREFIX_PATTERN.source} (1–32 letters, digits, "_", "." or "-")`,
    )
    .default('weft')
    .describe('Prefix of every Redis key Weft writes (replicas of one deployment share it).'),
  REDIS_CONNECT_TIMEOUT_MS: int(50, 60_000)
    .default(1_000)
    .describe('How long connecting to Redis may take before Redis counts as unreachable.'),
  REDIS_COMMAND_TIMEOUT_MS: int(10, 10_000)
    .default(200)
    .describe('A Redis command slower than this counts as Redis being unreachable.'),
  UPSTREAM_DEADLINE_MS: int(100, 120_000)
    .default(10_000)
    .describe('Whole-operation deadline for one upstream call, retries included.'),
  UPSTREAM_CONNECT_TIMEOUT_MS: int(50, 60_000)
    .default(2_000)
    .describe('TCP/TLS connect timeout of one upstream attempt.'),
  UPSTREAM_HEADERS_TIMEOUT_MS: int(50, 120_000)
    .default(8_000)
    .describe("Time to the upstream's response headers, per attempt."),
  UPSTREAM_BODY_TIMEOUT_MS: int(50, 120_000)
    .default(8_000)
    .describe('Time between body chunks of an upstream response, per attempt.'),
  UPSTREAM_MAX_ATTEMPTS: int(1, 10)
    .default(3)
    .describe(
      'Attempts of a retryable call (GET): network errors, timeouts, 5xx, 429 within the deadline.',
    ),
  UPSTREAM_MAX_RESPONSE_BYTES: int(1024)
    .default(10 * 1024 * 1024)
    .describe('Upstream response bodies larger than this fail with UPSTREAM_ERROR.'),
  UPSTREAM_CONNECTIONS: int(1, 1024)
    .default(64)
    .describe('Keep-alive connections to the upstream.'),
  REQUEST_TIMEOUT_MS: int(1_000, 3_600_000)
    .default(60_000)
    .describe(
      'Bound for receiving a whole request, headers and body (uploads included): a slower one gets 408 and its connection is closed, so a client trickling a byte every few seconds cannot hold a socket. At 60 s a 100 MiB upload needs about 14 Mbit/s; raise it for slower links.',
    ),
  HEADERS_TIMEOUT_MS: int(1_000, 3_600_000)
    .default(10_000)
    .describe("Bound for receiving a request's headers; past it the connection is closed."),
  KEEPALIVE_TIMEOUT_MS: int(1_000, 600_000)
    .default(72_000)
    .describe(
      'How long an idle keep-alive connection stays open. Above the 60 s idle timeout of common load balancers, so they never reuse a connection the gateway is closing.',
    ),
  SHUTDOWN_TIMEOUT_MS: int(0, 120_000)
    .default(8_000)
    .describe('Bound for finishing in-flight requests on SIGTERM/SIGINT.'),
  MEMORY_RELEASE_IDLE_MS: int(0, 86_400_000)
    .default(30_000)
    .describe(
      'After this long without a request, heap a burst grew (32 MiB or more) is given back to the system by one full collection (a pause of ~0.1–0.2 s); 0 turns it off. Needs node --expose-gc, as npm start and the image run (docs/deploy.md "Memory").',
    ),
  CREDENTIAL_HMAC_SECRET: z
    .string()
    .min(16)
    .optional()
    .describe(
      'Key for the HMAC that turns a bearer token into a cache/bucket key. Required with REDIS_URL or REDIS_CLUSTER_NODES: replicas that share Redis must share it, or they share no budget, cache or idempotency record. Unset without Redis, each process draws a random one (fine for a single process).',
    ),
  INTROSPECTION: bool
    .default('true')
    .describe(
      'Schema introspection (exploring the graph in the explorer and codegen are uses of it).',
    ),
  // Production policy (src/server/limits, persisted-operations, idempotency, explorer): docs/security.md.
  LIMIT_MAX_DEPTH: int(1, 1_000)
    .default(15)
    .describe(
      'Deepest field nesting of an operation (the standard introspection query is 15 deep).',
    ),
  LIMIT_MAX_ALIASES: int(0, 10_000)
    .default(30)
    .describe('Aliased fields per operation, counted through fragments.'),
  LIMIT_MAX_ROOT_FIELDS: int(1, 10_000)
    .default(20)
    .describe('Root fields (other than `__typename`) per operation, counted through fragments.'),
  LIMIT_MAX_DIRECTIVES: int(0, 10_000)
    .default(20)
    .describe('Directive uses per operation, counted through fragments.'),
  LIMIT_MAX_TOKENS: int(100, 1_000_000)
    .default(2_000)
    .describe('Lexical tokens per document (parse stops past it).'),
  LIMIT_MAX_DOCUMENT_BYTES: int(512, 10 * 1024 * 1024)
    .default(32 * 1024)
    .describe('UTF-8 bytes of one GraphQL document.'),
  LIMIT_MAX_COST: int(1, 10_000_000)
    .default(1_000)
    .describe(
      'Estimated cost of an operation (docs/security.md: objects resolved, lists times their size).',
    ),
  LIMIT_MAX_UPSTREAM_CALLS: int(1, 100_000)
    .default(150)
    .describe(
      'The most upstream calls one operation may be able to make (its bound, docs/demand.md): an operation whose bound is higher is refused before it spends anything.',
    ),
  LIMIT_DEFAULT_LIST_SIZE: int(1, 10_000)
    .default(10)
    .describe(
      'The size assumed for a list without a `first`/`last`/`limit`/`pageSize`/`lines` argument.',
    ),
  REQUEST_BODY_LIMIT_BYTES: int(1_024, 100 * 1024 * 1024)
    .default(256 * 1024)
    .describe(
      'Largest non-multipart request body (JSON); multipart uploads are capped by UPLOAD_MAX_BYTES.',
    ),
  APQ_TTL_SEC: int(1)
    .default(86_400)
    .describe('How long an automatic persisted query stays registered.'),
  CORS_ORIGINS: z
    .string()
    .regex(
      /^(none|(https?:\/\/[A-Za-z0-9.*[\]:-]+)(,https?:\/\/[A-Za-z0-9.*[\]:-]+)*)$/,
      'must be none, or origins separated by commas (https://app.example.com, https://*.example.com, http://localhost:*)',
    )
    .optional()
    .describe(
      'Web origins whose pages may call the graph (CORS): exact origins, or patterns with * for a host label or the port; none for no browser origin. Unset: none in production, http://localhost:*, http://127.0.0.1:* and http://[::1]:* otherwise (docs/security.md "CORS").',
    ),
  APQ_MAX_PER_CREDENTIAL: int(1, 1_000_000)
    .default(1_000)
    .describe(
      'Automatic persisted queries one credential may register per APQ_TTL_SEC (unauthenticated clients register none).',
    ),
  RESPONSE_CACHE_MAX_PER_CREDENTIAL: int(1, 1_000_000)
    .default(2_000)
    .describe(
      'Whole responses one credential holds for replay at a time; storing one more forgets its oldest (docs/performance.md "Cache hit").',
    ),
  TRUSTED_DOCUMENTS_PATH: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Trusted-documents mode: a JSON manifest of the only operations served (docs/security.md).',
    ),
  IDEMPOTENCY_TTL_SEC: int(60)
    .default(86_400)
    .describe("How long a mutation's result is kept for replay under its `Idempotency-Key`."),
  IDEMPOTENCY_WAIT_MS: int(100, 300_000)
    .default(30_000)
    .describe(
      'How long a mutation with an `Idempotency-Key` waits for its key: for the first request with the key (then CONFLICT), or, while Redis cannot take the claim, for Redis (then 503 IDEMPOTENCY_UNAVAILABLE, nothing sent).',
    ),
  EXPLORER: bool
    .default('true')
    .describe('The self-hosted GraphiQL at `GET /graphql` (Accept: text/html).'),
  MCP: z
    .enum(['on', 'off'])
    .default('off')
    .describe(
      'The MCP endpoint for AI agents at `POST /mcp` (docs/agents.md): the operations the operator chose (MCP_OPERATIONS_DIR, else the TRUSTED_DOCUMENTS_PATH manifest) as tools, each stating its bound in upstream calls. `off`: nothing is registered and the MCP SDK is never loaded.',
    ),
  MCP_OPERATIONS_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      'MCP=on: a folder of `.graphql` files (read with its subfolders at start-up) whose named queries and mutations become the tools (e.g. `examples/mcp`). Unset: the named operations of the TRUSTED_DOCUMENTS_PATH manifest.',
    ),
  MCP_PRIORITY: z
    .enum(['user', 'background', 'explorer'])
    .default('background')
    .describe(
      'MCP=on: the priority of the upstream calls of the tools (the `Weft-Priority` values, docs/efficiency.md "Priorities"). `background` (the default): an agent\'s reads and writes stop when 15 % of the window is left, which the apps\' users keep; `explorer`: its reads stop at 20 %, its writes count as writes; `user`: as an app.',
    ),
  BREAKER_FAILURE_THRESHOLD: int(1, 1000)
    .default(5)
    .describe(
      "Consecutive upstream failures (5xx, network, timeout) that open a route class's circuit.",
    ),
  BREAKER_OPEN_MS: int(100, 600_000)
    .default(10_000)
    .describe('How long an open circuit refuses calls before one half-open probe.'),
  RESPONSE_CACHE: bool
    .default('true')
    .describe(
      'Replay whole query responses whose every upstream read was cached (needs UPSTREAM_CACHE).',
    ),
  METRICS: bool.default('true').describe('Prometheus metrics on `GET /metrics`.'),
  TRACING: z
    .enum(['off', 'log', 'otlp'])
    .default('off')
    .describe(
      'OpenTelemetry tracing (docs/tracing.md): off; `log` (finished spans as JSON log lines); `otlp` (batched to a collector over OTLP/HTTP, the OTEL_EXPORTER_OTLP_* variables).',
    ),
  TRACING_TRUST_TRACEPARENT: bool
    .default('false')
    .describe(
      'Whether a request\'s `traceparent`/`tracestate` headers continue the caller\'s trace (`true`: behind your own traced edge) or only become a link of a new trace (`false`: clients cannot choose trace ids or sampling). docs/tracing.md "Incoming trace context".',
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
    .optional()
    .describe(
      'TRACING=otlp: the collector base URL; traces go to its `v1/traces` path (default `http://localhost:4318`).',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
    .optional()
    .describe(
      'TRACING=otlp: the full traces URL, used as is (e.g. `http://collector:4318/v1/traces`); wins over OTEL_EXPORTER_OTLP_ENDPOINT.',
    ),
  // `grpc` is accepted here (a platform may set it for other processes) and refused below only
  // when it would apply: Weft exports over OTLP/HTTP.
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json', 'grpc'])
    .optional()
    .describe(
      'TRACING=otlp: the OTLP encoding; unset: `http/protobuf`. `grpc` is refused with TRACING=otlp.',
    ),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(['http/protobuf', 'http/json', 'grpc'])
    .optional()
    .describe('TRACING=otlp: the encoding of traces; wins over OTEL_EXPORTER_OTLP_PROTOCOL.'),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .default('weft')
    .describe("The `service.name` of Weft's spans."),
  UPLOAD_MAX_BYTES: int(1)
    .default(100 * 1024 * 1024)
    .describe(
      'Largest file a GraphQL multipart upload may carry (`uploadAppSource`); default 100 MiB.',
    ),
  SUBSCRIPTION_POLL_MIN_MS: int(50, 60_000)
    .default(500)
    .describe(
      'Subscriptions poll the upstream from this interval, backing off to the max while nothing changes.',
    ),
  SUBSCRIPTION_POLL_MAX_MS: int(50, 300_000)
    .default(5_000)
    .describe('The longest interval a subscription backs off to while nothing changes.'),
  SUBSCRIPTION_MAX_LIFETIME_MS: int(1_000)
    .default(15 * 60_000)
    .describe(
      'A subscription whose resource never reaches a terminal state stops polling after this long.',
    ),
  SUBSCRIPTION_SHARED_POLLING: z
    .enum(['replicas', 'process'])
    .default('replicas')
    .describe(
      'With REDIS_URL: `replicas` shares one poll loop per watched resource and credential among all replicas (one polls, the others relay; docs/hosting.md "Subscriptions across replicas"), `process` runs one per replica. Without Redis: one per process.',
    ),
  // Knobs of the embedded simulator (used only with UPSTREAM=embedded).
  SIM_LATENCY_MS: int(0, 60_000)
    .default(0)
    .describe('Embedded simulator (UPSTREAM=embedded only): added latency per answer.'),
  SIM_RATE_LIMIT: int(1)
    .default(600)
    .describe('Embedded simulator: requests per window per credential.'),
  SIM_RATE_WINDOW_SEC: int(1).default(1399).describe('Embedded simulator: the window, seconds.'),
  SIM_FAULT_RATE: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0)
    .describe('Embedded simulator: share of answers that fail with a 5xx (0–1).'),
});

/** Every variable's schema (with its `.describe()`): docs/configuration.md is generated from it. */
export const CONFIG_VARIABLES = ConfigSchema.shape;

type ParsedConfig = z.infer<typeof ConfigSchema>;

/** The validated configuration; `UPSTREAM` is resolved (never unset). */
export type Config = Readonly<
  Omit<ParsedConfig, 'UPSTREAM'> & { readonly UPSTREAM: 'url' | 'embedded' }
>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Variables an earlier version read and this one ignores: what replaced each (logged at start). */
export const RETIRED_VARIABLES: Readonly<Record<string, string>> = {
  REDIS_DOWN_BUDGET_SHARE:
    'no longer read: while Redis is unreachable each replica spends only the tokens its leases hold (docs/replicas.md)',
};

/** The retired variables set in `env`, each with what replaced it. */
export function retiredVariablesIn(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(RETIRED_VARIABLES)
    .filter(([name]) => env[name] !== undefined && env[name] !== '')
    .map(([name, replacement]) => `${name} is ${replacement}`);
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

/**
 * Whether this process is an npm script (`npm start` execs node), whose npm forwards every SIGTERM and
 * SIGINT it gets (src/server/shutdown/shutdown-signals.ts). npm sets `npm_lifecycle_event` in its
 * scripts' environment; it is not a setting, so it is not in the configuration.
 */
export function startedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.npm_lifecycle_event !== undefined && env.npm_lifecycle_event !== '';
}

/** Pairs that must be ordered: `[smaller, larger]`. */
const ORDERED_PAIRS = [
  ['SUBSCRIPTION_POLL_MIN_MS', 'SUBSCRIPTION_POLL_MAX_MS'],
  ['SUBSCRIPTION_POLL_MAX_MS', 'SUBSCRIPTION_MAX_LIFETIME_MS'],
  ['UPSTREAM_CONNECT_TIMEOUT_MS', 'UPSTREAM_DEADLINE_MS'],
  ['UPSTREAM_HEADERS_TIMEOUT_MS', 'UPSTREAM_DEADLINE_MS'],
  ['UPSTREAM_BODY_TIMEOUT_MS', 'UPSTREAM_DEADLINE_MS'],
  ['REDIS_COMMAND_TIMEOUT_MS', 'REDIS_CONNECT_TIMEOUT_MS'],
  ['HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS'],
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
  // Trusting every X-Forwarded-For lets each client name its own address (docs/deploy.md).
  if (production && config.TRUST_PROXY === 'true') {
    problems.push(
      'TRUST_PROXY: true is refused in production (any client could then choose the address Weft ' +
        "bounds it by); name the balancer's addresses/CIDRs (e.g. 10.0.0.0/8)",
    );
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
  const tracesProtocol =
    config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (config.TRACING === 'otlp' && tracesProtocol === 'grpc') {
    problems.push(
      'OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported with TRACING=otlp ' +
        '(http/protobuf or http/json; set OTEL_EXPORTER_OTLP_TRACES_PROTOCOL for Weft alone)',
    );
  }
  // An MCP endpoint without operations would serve agents nothing: the operator chooses the tools.
  if (
    config.MCP === 'on' &&
    config.MCP_OPERATIONS_DIR === undefined &&
    config.TRUSTED_DOCUMENTS_PATH === undefined
  ) {
    problems.push(
      'MCP_OPERATIONS_DIR: required with MCP=on unless TRUSTED_DOCUMENTS_PATH is set (the ' +
        'operations the agents may run, e.g. MCP_OPERATIONS_DIR=examples/mcp)',
    );
  }
  if (config.REDIS_URL !== undefined && config.REDIS_CLUSTER_NODES !== undefined) {
    problems.push(
      'REDIS_URL and REDIS_CLUSTER_NODES: both are set; set REDIS_URL for one Redis or ' +
        'REDIS_CLUSTER_NODES for a Redis Cluster, not both',
    );
  }
  // Replicas with their own random HMAC keys would share Redis but none of its keys.
  const redisVariable =
    config.REDIS_URL !== undefined
      ? 'REDIS_URL'
      : config.REDIS_CLUSTER_NODES !== undefined
        ? 'REDIS_CLUSTER_NODES'
        : undefined;
  // Replicas on one Redis share budgets and cache, so they must share the upstream too: left to guess,
  // each would embed its own simulator, and what one created another would answer NOT_FOUND.
  if (
    redisVariable !== undefined &&
    config.UPSTREAM === undefined &&
    config.UPSTREAM_URL === undefined
  ) {
    problems.push(
      `UPSTREAM_URL: required with ${redisVariable} (replicas sharing Redis must share one upstream; ` +
        'without it each embeds its own simulator with its own data): point every replica at one ' +
        '(`npm run simulator`, docs/replicas.md "Trying replicas locally"), or set UPSTREAM=embedded ' +
        'for a single process',
    );
  }
  if (redisVariable !== undefined && config.CREDENTIAL_HMAC_SECRET === undefined) {
    problems.push(
      `CREDENTIAL_HMAC_SECRET: required with ${redisVariable} (at least 16 characters, the same on ` +
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

/** What `npm run doctor` reads from the environment (scripts/doctor.ts checks it: usage errors). */
export interface DoctorEnvironment {
  /** The provider's API base, unless `--url` names it. */
  readonly UPSTREAM_URL: string | undefined;
  /** The Personal Access Token to check, unless `--token` gives it; never printed. */
  readonly WEFT_TOKEN: string | undefined;
}

/** The doctor's variables; empty strings count as unset, as in {@link loadConfig}. */
export function loadDoctorEnvironment(env: NodeJS.ProcessEnv = process.env): DoctorEnvironment {
  const present = (name: string): string | undefined =>
    env[name] === undefined || env[name] === '' ? undefined : env[name];
  return Object.freeze({
    UPSTREAM_URL: present('UPSTREAM_URL'),
    WEFT_TOKEN: present('WEFT_TOKEN'),
  });
}
