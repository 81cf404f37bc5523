/**
 * The only reader of `process.env` for the gateway. Validated once at start-up; a bad variable stops
 * the process with a message that names it. The result is frozen and passed down explicitly.
 */
import { ConfigError } from './config-error.ts';
import { crossFieldProblems } from './cross-field.ts';
import { ConfigSchema, type Config } from './schema.ts';

/** The variables of `shape` that `env` sets: empty strings count as unset, so `FOO=` means default. */
export function presentIn(
  shape: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv,
): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.keys(shape)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
}

/** Parses the environment; throws {@link ConfigError} naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(presentIn(ConfigSchema.shape, env));
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

/**
 * Node's own flags given through `NODE_OPTIONS`, which the process's `execArgv` does not hold: read
 * for the signals Node answers with a diagnosis (src/server/shutdown/diagnostic-signals.ts). Not a
 * setting, so not in the configuration.
 */
export function nodeOptionFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return env.NODE_OPTIONS?.split(/\s+/).filter(Boolean) ?? [];
}
