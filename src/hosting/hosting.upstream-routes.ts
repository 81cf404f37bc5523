/**
 * The hosting routes this domain calls, as the upstream stack must treat them: cache, circuit and
 * the per-IP limits.
 *
 * Limits: "10 to 120 requests per minute per client IP, depending on the operation" (hosting
 * document). Every user of the gateway shares the gateway's IP, so these buckets are global (one
 * per class, across all credentials and, with Redis, across all replicas). The document gives the
 * range, not the mapping; reads 120, writes 30, source upload and deploy 10 per minute is the
 * decision, the same one the embedded simulator makes.
 *
 * Never cached: job and source-upload status (polled while they move) and logs (a live tail).
 * Secret listings are metadata (names, variants) and are cached; the secrets POST is a write.
 */
import {
  cacheFor,
  invalidates,
  neverCache,
  pathParam,
  shorterWhileMoving,
  type Tagger,
} from '../upstream/route-policy.ts';
import { inCircuit, type RouteClass, type UpstreamRoute } from '../upstream/upstream-routes.ts';

const PREFIX = '/v1/hosting/nodejs';

/** Route templates (they name the calls in errors, metrics and the simulator's stats). */
export const HOSTING_ROUTES = {
  apps: `${PREFIX}/apps`,
  job: `${PREFIX}/apps/jobs/{jobId}`,
  app: `${PREFIX}/apps/{appId}`,
  source: `${PREFIX}/apps/{appId}/source`,
  sourceStatus: `${PREFIX}/apps/{appId}/source/status`,
  deployments: `${PREFIX}/apps/{appId}/deployments`,
  status: `${PREFIX}/apps/{appId}/status`,
  secrets: `${PREFIX}/apps/{appId}/secrets`,
  logs: `${PREFIX}/apps/{appId}/logs`,
} as const;

const MINUTE = 60_000;
export const HOSTING_LIMITS = {
  read: { name: 'hosting-read', limit: 120, windowMs: MINUTE, perCredential: false },
  write: { name: 'hosting-write', limit: 30, windowMs: MINUTE, perCredential: false },
  heavy: { name: 'hosting-heavy', limit: 10, windowMs: MINUTE, perCredential: false },
} as const satisfies Record<string, RouteClass>;

const appTags: Tagger = (call) => [`app:${pathParam(call, 'appId')}`];
/** A write to an app changes the app list too. */
const appWrite = invalidates((call) => ['apps', ...appTags(call)]);

/**
 * While something moves (a variant building or deploying, a deployment pending or in progress), a
 * view reads it again at most every 5 s; once everything has settled, the entry keeps its TTL
 * (Weft's own writes to the app invalidate it at once either way).
 */
const MOVING_POLL_SEC = 5;
const MOVING_LIFECYCLE = new Set(['building', 'deploying']);
const MOVING_DEPLOYMENT = new Set(['pending', 'in_progress']);
const anyMoving = (items: unknown, key: string, moving: ReadonlySet<string>): boolean =>
  Array.isArray(items) &&
  items.some((item) =>
    moving.has(String((item as Record<string, unknown> | null)?.[key]).toLowerCase()),
  );
const runtimeStatusTtl = shorterWhileMoving(
  (data) =>
    anyMoving(
      (data as { variants?: unknown } | null)?.variants,
      'lifecycleState',
      MOVING_LIFECYCLE,
    ),
  MOVING_POLL_SEC,
);
const deploymentsTtl = shorterWhileMoving(
  (data) =>
    anyMoving((data as { deployments?: unknown } | null)?.deployments, 'status', MOVING_DEPLOYMENT),
  MOVING_POLL_SEC,
);

/**
 * The hosting document names eight scopes but not which operation needs which ("Which scope each
 * operation requires: not shown"). Weft's decision, which the simulator enforces too: every read
 * needs `apps:read` except the logs (`logs:read`); each write the scope its name says.
 */
export const HOSTING_SCOPES = {
  read: 'hosting.paas.apps:read',
  logs: 'hosting.paas.logs:read',
  create: 'hosting.paas.apps:create',
  update: 'hosting.paas.apps:update',
  delete: 'hosting.paas.apps:delete',
  upload: 'hosting.paas.code:write',
  deploy: 'hosting.paas.deploy:execute',
  secrets: 'hosting.paas.secrets:write',
} as const;

const read = (route: string, cache: UpstreamRoute['cache'], scope: string = HOSTING_SCOPES.read) =>
  ({ method: 'GET', route, cache, scope, limitClass: HOSTING_LIMITS.read }) as const;
const write = (
  method: 'POST' | 'PATCH' | 'DELETE',
  route: string,
  scope: string,
  cache: UpstreamRoute['cache'],
) => ({ method, route, cache, scope, limitClass: HOSTING_LIMITS.write }) as const;
const heavy = (route: string, scope: string, cache: UpstreamRoute['cache']) =>
  ({ method: 'POST', route, cache, scope, limitClass: HOSTING_LIMITS.heavy }) as const;

export const HOSTING_UPSTREAM_ROUTES: readonly UpstreamRoute[] = inCircuit('hosting', [
  read(HOSTING_ROUTES.apps, cacheFor({ kind: 'app-list', ttlSec: 30, tags: () => ['apps'] })),
  write(
    'POST',
    HOSTING_ROUTES.apps,
    HOSTING_SCOPES.create,
    invalidates(() => ['apps']),
  ),
  read(HOSTING_ROUTES.job, neverCache('job status is polled while it moves')),
  read(HOSTING_ROUTES.app, cacheFor({ kind: 'app', ttlSec: 30, tags: appTags })),
  write('PATCH', HOSTING_ROUTES.app, HOSTING_SCOPES.update, appWrite),
  write('DELETE', HOSTING_ROUTES.app, HOSTING_SCOPES.delete, appWrite),
  heavy(HOSTING_ROUTES.source, HOSTING_SCOPES.upload, appWrite),
  read(HOSTING_ROUTES.sourceStatus, neverCache('upload status is polled while it moves')),
  read(
    HOSTING_ROUTES.deployments,
    cacheFor({ kind: 'app-deployments', ttlSec: 30, ttlOf: deploymentsTtl, tags: appTags }),
  ),
  heavy(HOSTING_ROUTES.deployments, HOSTING_SCOPES.deploy, appWrite),
  read(
    HOSTING_ROUTES.status,
    cacheFor({
      kind: 'app-runtime-status',
      ttlSec: 30,
      ttlOf: runtimeStatusTtl,
      tags: appTags,
    }),
  ),
  read(HOSTING_ROUTES.secrets, cacheFor({ kind: 'app-secret-names', ttlSec: 60, tags: appTags })),
  write('POST', HOSTING_ROUTES.secrets, HOSTING_SCOPES.secrets, invalidates(appTags)),
  read(HOSTING_ROUTES.logs, neverCache('logs are a live tail'), HOSTING_SCOPES.logs),
]);
