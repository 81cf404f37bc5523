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
  return Object.freeze(parsed.data);
}
