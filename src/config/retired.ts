/** Variables an earlier version read and this one ignores: warned about at start, never refused. */

/** Each retired variable with what replaced it (logged at start, listed in docs/configuration.md). */
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
