/**
 * The whole configuration schema, assembled from its groups in the order docs/configuration.md
 * shows them: the variables a deployment sets, then the references by subject.
 */
import { z } from 'zod';
import { CACHES } from './groups/caches.ts';
import { ESSENTIALS } from './groups/essentials.ts';
import { LIMITS } from './groups/limits.ts';
import { OBSERVABILITY } from './groups/observability.ts';
import { REDIS } from './groups/redis.ts';
import { SERVER } from './groups/server.ts';
import { DEVELOPMENT, SIMULATOR } from './groups/simulator-and-development.ts';
import { AGENTS, SUBSCRIPTIONS } from './groups/subscriptions-and-agents.ts';
import { UPSTREAM } from './groups/upstream.ts';

export const CONFIG_GROUPS = [
  ESSENTIALS,
  SERVER,
  UPSTREAM,
  CACHES,
  REDIS,
  LIMITS,
  SUBSCRIPTIONS,
  AGENTS,
  OBSERVABILITY,
  SIMULATOR,
  DEVELOPMENT,
] as const;

export const ConfigSchema = z.object({
  ...ESSENTIALS.variables,
  ...SERVER.variables,
  ...UPSTREAM.variables,
  ...CACHES.variables,
  ...REDIS.variables,
  ...LIMITS.variables,
  ...SUBSCRIPTIONS.variables,
  ...AGENTS.variables,
  ...OBSERVABILITY.variables,
  ...SIMULATOR.variables,
  ...DEVELOPMENT.variables,
});

/** Every variable's schema (with its `.describe()`). */
export const CONFIG_VARIABLES = ConfigSchema.shape;

export type ParsedConfig = z.infer<typeof ConfigSchema>;

/** The validated configuration; `UPSTREAM` is resolved (never unset). */
export type Config = Readonly<
  Omit<ParsedConfig, 'UPSTREAM'> & { readonly UPSTREAM: 'url' | 'embedded' }
>;
