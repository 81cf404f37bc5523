/**
 * The configuration's entry point: every layer imports it from here, so the folder behind it
 * (src/config/: the schema by group, the switch syntax, the loader, the cross-variable rules, the
 * retired variables, the tools' environments) can change shape without touching them. Each
 * variable's `.describe()` is its documentation: docs/configuration.md is generated from the groups
 * (`npm run docs:config`; `npm run check` fails when the document is stale).
 */
export { ConfigError } from './config/config-error.ts';
export type { ConfigGroup } from './config/config-group.ts';
export { loadConfig, nodeOptionFlags, startedByNpm } from './config/load-config.ts';
export { RETIRED_VARIABLES, retiredVariablesIn } from './config/retired.ts';
export { CONFIG_GROUPS, CONFIG_VARIABLES, type Config } from './config/schema.ts';
export { SWITCH_VALUES } from './config/switches.ts';
export {
  loadDoctorEnvironment,
  loadSchemaPullConfig,
  type DoctorEnvironment,
  type SchemaPullConfig,
} from './config/tool-config.ts';
