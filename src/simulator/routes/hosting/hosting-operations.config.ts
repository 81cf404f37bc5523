/**
 * The 14 hosting operations with the scope and per-IP class each requires. The document names the
 * eight scopes and the 10..120 requests/minute range but not the mapping; this table is the decision.
 */
import type { IpRouteClass } from '../../simulator.ts';

export const HOSTING_PREFIX = '/v1/hosting/nodejs';

export interface HostingOperationConfig {
  readonly scope: string;
  readonly ipClass: IpRouteClass;
}

const read = (scope = 'hosting.paas.apps:read'): HostingOperationConfig => ({
  scope,
  ipClass: 'hosting-read',
});
const write = (scope: string): HostingOperationConfig => ({ scope, ipClass: 'hosting-write' });
const heavy = (scope: string): HostingOperationConfig => ({ scope, ipClass: 'hosting-heavy' });

/** Operation (method + path relative to {@link HOSTING_PREFIX}, as in the document) → route config. */
export const HOSTING_OPERATIONS = {
  'GET /apps': read(),
  'POST /apps': write('hosting.paas.apps:create'),
  'GET /apps/jobs/{jobId}': read(),
  'GET /apps/{appId}': read(),
  'PATCH /apps/{appId}': write('hosting.paas.apps:update'),
  'DELETE /apps/{appId}': write('hosting.paas.apps:delete'),
  'POST /apps/{appId}/source': heavy('hosting.paas.code:write'),
  'GET /apps/{appId}/source/status': read(),
  'GET /apps/{appId}/deployments': read(),
  'POST /apps/{appId}/deployments': heavy('hosting.paas.deploy:execute'),
  'GET /apps/{appId}/status': read(),
  'GET /apps/{appId}/secrets': read(),
  'POST /apps/{appId}/secrets': write('hosting.paas.secrets:write'),
  'GET /apps/{appId}/logs': read('hosting.paas.logs:read'),
} as const satisfies Record<string, HostingOperationConfig>;

export type HostingOperation = keyof typeof HOSTING_OPERATIONS;

/** Operation → required scope (for documentation and tests). */
export const HOSTING_SCOPES = Object.fromEntries(
  Object.entries(HOSTING_OPERATIONS).map(([operation, config]) => [operation, config.scope]),
) as Readonly<Record<HostingOperation, string>>;

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Splits an operation into the Fastify method, full URL (`:param` syntax) and route config. */
export function routeOf(operation: HostingOperation): {
  method: HttpMethod;
  url: string;
  config: HostingOperationConfig;
} {
  const [method, path] = operation.split(' ') as [HttpMethod, string];
  const { scope, ipClass } = HOSTING_OPERATIONS[operation];
  return {
    method,
    url: `${HOSTING_PREFIX}${path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1')}`,
    config: { scope, ipClass },
  };
}
