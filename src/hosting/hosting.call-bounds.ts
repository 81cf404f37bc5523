/**
 * What each hosting field costs in upstream calls, at most (`kit/call-bounds.ts`, docs/budget.md
 * § Hosting). Read with hosting.resolvers.ts, hosting.loaders.ts and hosting.api.ts: every hosting
 * read is one GET (no paging loop anywhere in this domain), every loader is a keyed loader (one call
 * per distinct key per request, no batch endpoint), and every mutation sends exactly one write and
 * nothing else (no verification read; a write is never retried). Reads may be retried by the
 * upstream client: those are attempts of one logical call, counted ×1 here.
 */
import {
  FREE,
  ONE_CALL,
  intArg,
  type CallBoundDeclarations,
  type FieldCallBound,
} from '../kit/call-bounds.ts';
import { DEPLOYMENTS_LIMIT, LOG_LINES } from './hosting-inputs.ts';

/**
 * Decision: the most apps `GET /apps` is assumed to list. The hosting document shows no maximum and
 * the route is not paged (one response holds every app of the account), so whatever is selected
 * below `apps` needs a number the upstream does not give. 20: what is counted below `apps` is
 * multiplied by it, and with the default LIMIT_MAX_UPSTREAM_CALLS (150) an apps screen may still
 * select up to seven per-app reads (1 + 7 × 20 = 141), where 50 would allow two (the dashboard:
 * 1 + 2 × 50 = 101; a third per-app read, 151, is refused). An account with more than 20 apps can
 * make more calls below `apps` than the bound says: raise this number for such an account
 * (docs/budget.md § Hosting).
 */
export const APPS_LIST_MAX = 20;

/** The upstream's log lines when `lines` is omitted (hosting document: default 100, at most 500). */
const LOG_LINES_DEFAULT = 100;

const free = (fields: readonly string[]): Record<string, FieldCallBound> =>
  Object.fromEntries(fields.map((field) => [field, FREE]));

export const HOSTING_CALL_BOUNDS: CallBoundDeclarations = {
  // GET /apps: one call, whatever the size of the list (records without variantsWithLifecycle).
  // Unpaged: once it arrives, its length replaces APPS_LIST_MAX in the bound of what follows.
  'Query.apps': { calls: 1, items: APPS_LIST_MAX, unpaged: true },
  // The resolver itself calls nothing; the record fields below it (name, status, …) load the
  // single-app record with the per-request `app` loader: one call per distinct appId, shared by
  // every record field of that app. The call is counted here, once per `app` selection, so that the
  // record fields can be free for the apps that carry their record (apps list, updateApp, appJob).
  // Selecting none of them overcounts by one.
  'Query.app': ONE_CALL,
  // GET /apps/jobs/{jobId} through the `job` loader; its `app` carries the record.
  'Query.appJob': ONE_CALL,

  'Mutation.createApp': ONE_CALL, // POST /apps
  'Mutation.updateApp': ONE_CALL, // PATCH /apps/{appId}; the answer carries the record
  'Mutation.deleteApp': ONE_CALL, // DELETE /apps/{appId}
  'Mutation.uploadAppSource': ONE_CALL, // POST /apps/{appId}/source (checked before: bad zip = 0)
  'Mutation.deployApp': ONE_CALL, // POST /apps/{appId}/deployments
  'Mutation.changeAppSecrets': ONE_CALL, // POST /apps/{appId}/secrets; answers the listing

  ...free(['App.id', 'App.appId']),
  // The record's fields: from the parent's record, or from the `app` loader counted at Query.app
  // (the only way to an App without its record; `node(id:)` loads the record itself).
  ...free([
    'App.name',
    'App.status',
    'App.statusRaw',
    'App.createdAt',
    'App.updatedAt',
    'App.urls',
    'App.variants',
  ]),
  // List records lack it: the single-app read (`app` loader, one per distinct appId) — per app of
  // the list. Under Query.app it is the same call as the record's (overcounted by one).
  'App.variantsWithLifecycle': ONE_CALL,
  // GET /apps/{appId}/status through the `runtimeStatus` loader: one per distinct app.
  'App.runtimeStatus': ONE_CALL,
  // GET /apps/{appId}/deployments?limit= through the `deployments` loader (key: app and limit).
  'App.deployments': {
    calls: 1,
    items: (args) =>
      Math.min(intArg(args, 'limit', DEPLOYMENTS_LIMIT.fallback), DEPLOYMENTS_LIMIT.max),
  },
  // GET /apps/{appId}/secrets[?variant=] through the `secrets` loader (key: app and variant).
  'App.secrets': ONE_CALL,
  // GET /apps/{appId}/logs: no loader, every `logs` selection of every app is its own call.
  'App.logs': {
    calls: 1,
    items: (args) => Math.min(intArg(args, 'lines', LOG_LINES_DEFAULT), LOG_LINES.max),
  },
  // GET /apps/{appId}/source/status through the `sourceUpload` loader (key: app and job).
  'App.sourceUpload': ONE_CALL,

  // Everything below is read from the parent's answer.
  ...free([
    'AppVariantState.variant',
    'AppVariantState.variantRaw',
    'AppVariantState.status',
    'AppVariantState.statusRaw',
    'AppVariantLifecycle.variant',
    'AppVariantLifecycle.variantRaw',
    'AppVariantLifecycle.status',
    'AppVariantLifecycle.statusRaw',
    'AppVariantLifecycle.lifecycleState',
    'AppVariantLifecycle.lifecycleStateRaw',
    'AppRuntimeStatus.appStatus',
    'AppRuntimeStatus.appStatusRaw',
    'AppRuntimeStatus.variants',
    'AppJob.jobId',
    'AppJob.status',
    'AppJob.statusRaw',
    'AppJob.app',
    'AppSourceUpload.appId',
    'AppSourceUpload.jobId',
    'AppSourceUpload.status',
    'AppSourceUpload.statusRaw',
    'AppSourceUpload.progressMessage',
    'AppSourceUpload.errorMessage',
    'AppSourceUpload.errorStage',
    'AppSourceUpload.errorStageRaw',
    'AppDeployment.deploymentId',
    'AppDeployment.appId',
    'AppDeployment.status',
    'AppDeployment.statusRaw',
    'AppDeployment.gitHash',
    'AppDeployment.createdAt',
    'AppDeployment.updatedAt',
    'AppDeployment.errorMessage',
    'AppDeploymentList.deployments',
    'AppDeploymentList.totalCount',
    'AppDeploymentList.hasMore',
    'AppSecrets.shared',
    'AppSecrets.preview',
    'AppSecrets.publish',
    'AppSecret.name',
    'AppSecret.systemManaged',
    'AppSecret.createdAt',
    'AppSecret.updatedAt',
    'AppLogs.logs',
    'AppLogs.total',
    'AppLogEntry.timestamp',
    'AppLogEntry.source',
    'AppLogEntry.message',
    'AppLogEntry.level',
    'AppLogEntry.levelRaw',
  ]),
};
