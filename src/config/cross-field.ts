/**
 * The rules that involve more than one variable, checked after each variable passed its own; each
 * message names the variables, and what to set instead.
 */
import type { ParsedConfig } from './schema.ts';

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
export function crossFieldProblems(config: ParsedConfig): string[] {
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
  // Trusting every X-Forwarded-For lets each client name its own address (docs/security.md).
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
