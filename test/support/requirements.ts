/**
 * What the tests need from the machine (Redis, a Redis Cluster, Chromium) and what happens without it. A missing
 * requirement fails the files that need it, with the one command that provides it; only an explicit
 * `WEFT_TEST_WITHOUT=redis,redis-cluster,chromium` skips them instead, and the run's summary then says how many
 * were skipped (`skipped-requirements-reporter.ts`). With CI=true nothing may be skipped.
 */

export type Requirement = 'redis' | 'redis-cluster' | 'chromium';

export const REQUIREMENTS: readonly Requirement[] = ['redis', 'redis-cluster', 'chromium'];

/** The variable that skips the tests of a requirement the machine lacks. */
export const OPT_OUT_VARIABLE = 'WEFT_TEST_WITHOUT';

const LABEL: Record<Requirement, string> = {
  redis: 'Redis',
  'redis-cluster': 'Redis Cluster',
  chromium: 'Chromium',
};

/** The support module a test file imports when it needs the requirement (the reporter counts by it). */
export const SUPPORT_MODULE: Record<Requirement, RegExp> = {
  redis: /support\/redis\.ts['"]/,
  // The cluster project reruns the files of support/redis.ts; the failover test starts its own.
  'redis-cluster': /support\/redis(-cluster-launcher)?\.ts['"]/,
  chromium: /support\/chromium\.ts['"]/,
};

const HOW_TO: Record<Requirement, string> = {
  redis:
    'start one: redis-server --daemonize yes --port 6379 --save "" --appendonly no ' +
    '(install it: apt-get install redis-server), or set REDIS_URL',
  'redis-cluster':
    'the test set-up starts one from redis-server on ports 7000–7005 (and 7010–7015 for the ' +
    'failover test, 7020–7029 for the nodes-down-at-start test): install it (apt-get install redis-server) and free those ports, or set ' +
    'REDIS_CLUSTER_NODES to a cluster of yours',
  chromium:
    'npm ci installs one (@sparticuz/chromium, a devDependency, for x64 Linux), or install the ' +
    "machine's: apt-get install chromium (/usr/bin/chromium; WEFT_TEST_BROWSER picks between them)",
};

export const labelOf = (requirement: Requirement): string => LABEL[requirement];

type Env = Readonly<Record<string, string | undefined>>;

/** The requirements `WEFT_TEST_WITHOUT` names (comma-separated); an unknown name is an error. */
export function optedOut(env: Env): Set<Requirement> {
  const names = (env[OPT_OUT_VARIABLE] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of names) {
    if (!(REQUIREMENTS as readonly string[]).includes(name)) {
      throw new Error(
        `${OPT_OUT_VARIABLE}=${env[OPT_OUT_VARIABLE]}: unknown "${name}" (known: ${REQUIREMENTS.join(', ')})`,
      );
    }
  }
  return new Set(names as Requirement[]);
}

/**
 * Whether the tests that need `requirement` run ('run') or are skipped ('skip'); throws, with how
 * to get it, when it is missing and not opted out, or when CI=true asks to skip anything.
 */
export function decide(
  requirement: Requirement,
  available: boolean,
  env: Env,
  where = '',
): 'run' | 'skip' {
  const skip = optedOut(env).has(requirement);
  if (skip && env.CI === 'true') {
    throw new Error(
      `${OPT_OUT_VARIABLE}=${env[OPT_OUT_VARIABLE]} with CI=true: CI runs every test, ${labelOf(requirement)} included`,
    );
  }
  if (skip) return 'skip';
  if (available) return 'run';
  throw new Error(
    `${labelOf(requirement)} is missing${where ? ` (${where})` : ''}: ${HOW_TO[requirement]}. ` +
      `Or skip the tests that need it, and say so: ${OPT_OUT_VARIABLE}=${requirement} npm test`,
  );
}
