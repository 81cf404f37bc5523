/**
 * The environments of the two commands that run beside the gateway, never inside it: `npm run
 * schema:pull` and `npm run doctor`. Read like the gateway's: empty strings count as unset.
 */
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { ESSENTIALS } from './groups/essentials.ts';
import { presentIn } from './load-config.ts';

const SchemaPullSchema = z.object({
  UPSTREAM_URL: ESSENTIALS.variables.UPSTREAM_URL.unwrap(),
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
  const parsed = SchemaPullSchema.safeParse(presentIn(SchemaPullSchema.shape, env));
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
