/**
 * Node.js app hosting (hosting document): the 14 operations under `/v1/hosting/nodejs`.
 *
 * Decisions where the document says "not shown" (docs/simulator.md documents them from here):
 * - Scopes ({@link HOSTING_SCOPES}): every GET needs `hosting.paas.apps:read` except logs
 *   (`hosting.paas.logs:read`); POST /apps `apps:create`; PATCH `apps:update`; DELETE `apps:delete`;
 *   POST source `code:write`; POST deployments `deploy:execute`; POST secrets `secrets:write`.
 *   A missing scope is 403 `FORBIDDEN` with `requiredScope`.
 * - Per-IP limits per minute: GETs `hosting-read` (120), create/update/delete/secrets
 *   `hosting-write` (30), source upload and deploy `hosting-heavy` (10); 429 with `retryAfterSec`
 *   and `Retry-After`.
 * - Another account's app, job, upload or deployment is 404 `NOT_FOUND`, exactly like an unknown id.
 *   The path is resolved before query and body are validated (unknown app + bad query → 404).
 * - Validation: 400 `INVALID_BODY` when a required body field is missing, else 400 `INVALID_FORMAT`
 *   (also for a missing required query parameter); every problem of the request is listed in
 *   `fields` (`{path: JSONPath, code, message}`; codes REQUIRED, INVALID_TYPE, INVALID_FORMAT,
 *   INVALID_VALUE, OUT_OF_RANGE, TOO_SHORT, TOO_LONG). Messages never quote submitted values.
 * - Ids: per-simulator counters `app-0001`, `job-0001`, `upl-0001`, `dep-0001`; seeds take the first.
 * - Value sets: app status `active`; variant status `not_deployed | running | stopped`; lifecycleState
 *   `not_deployed | building | deploying | live | failed`; job `pending | active | failed`; upload
 *   `processing | done | failed`, errorStage `extract | build`; deployment
 *   `pending | in_progress | succeeded | failed`; log level `debug | info | warn | error`.
 * - URLs: `https://{appId}.preview.nodejs-hosting.example` and `https://{appId}.nodejs-hosting.example`
 *   (by id, so a rename keeps them).
 * - Progress (hosting-lifecycle.machine.ts): status read n shows step n − 1, and one step passes per
 *   interval of `ctx.now()` time, whichever is further. Create job: POST answers 202 pending; read 1
 *   pending, read 2 (or 1500 ms) active — or failed when the name contains `fail`. The app exists (and
 *   shows in GET /apps) only once its job is active; GET /apps/jobs/{jobId} returns `app: null` while
 *   pending or failed, and after the app was deleted. Pending names are reserved.
 * - POST /apps `{name}`: string, 1–63 chars, `^[a-z0-9][a-z0-9-]*$` (400 `$.name`); a name used by
 *   another app or pending create of the account → 409 `APP_NAME_TAKEN`.
 * - PATCH `{name?, rootPath?}`: at least one (else 400 `INVALID_BODY`, fields `$.name`,
 *   `$.rootPath`). rootPath: relative POSIX path, 1–255 chars, no leading `/`, no `..` segment, no
 *   backslash (`.` = archive root). rootPath is stored but not echoed: App has no such field. A
 *   successful PATCH sets updatedAt (nothing else does after creation).
 * - DELETE → 204 with no body; the app's uploads, deployments, secrets and logs go with it.
 * - Source: multipart file part `zipFile` (other parts are read and ignored), streamed, at most
 *   200 MiB (413 `PAYLOAD_TOO_LARGE`, `$.zipFile`); no `zipFile` part, or a JSON body → 400
 *   `INVALID_BODY` `$.zipFile` REQUIRED; a malformed multipart body → 400 `INVALID_BODY` `$.zipFile`
 *   INVALID_FORMAT; any other media type → 415 `UNSUPPORTED_MEDIA_TYPE` (sim-framework.ts).
 *   Upload status: `progressMessage` 'Uploading archive' → 'Extracting archive' →
 *   'Installing dependencies' → 'Building' (one per read or 500 ms) → `done`. Not starting with
 *   `PK\x03\x04` → `failed` at read 2, errorStage `extract`, 'archive is not a valid zip file';
 *   containing `WEFT_FAIL_BUILD` → `failed` at errorStage `build` after 'Building'.
 *   `progressMessage` is a string only while processing, `errorMessage`/`errorStage` only when
 *   failed; otherwise null. `jobId` missing → 400 `$.jobId`; unknown or another app's → 404.
 *   While an upload processes, preview lifecycleState is `building`; done → preview `running`/`live`.
 * - POST deployments publishes the newest upload in state `done` (else 409 `NO_SOURCE_UPLOADED`);
 *   `commitHash` = `gitHash` = the first 40 hex digits of the archive's SHA-256. Deployment: read 1
 *   (list or status) pending, read 2 (or 500 ms) in_progress (publish lifecycleState `deploying`),
 *   read 3 (or 1000 ms) succeeded (publish `running`/`live`) or failed when the archive contains
 *   `WEFT_FAIL_DEPLOY` (errorMessage set, publish lifecycleState `failed`, status unchanged).
 *   Concurrent deployments are allowed.
 * - GET deployments: size parameter `limit`, digits only, 1–50, default 10 (else 400 `$.limit`);
 *   newest first; `totalCount` = all deployments of the app; `hasMore` = totalCount > limit;
 *   `errorMessage` null unless failed.
 * - GET status: `appStatus` = the app's status; `variants` = preview then publish.
 * - Secrets: listing sorted by name, metadata only (never a value). `?variant=` preview|publish
 *   (else 400 `$.variant`) limits `variants` to that variant; `shared` is always present. POST body
 *   `{variant?, operations: {additions?: [{name, value}], updates?: [{name, value}],
 *   deletions?: [name]}}`: absent variant = shared; ≥ 1 operation in total; name
 *   `^[A-Z_][A-Z0-9_]*$` (≤ 128 chars); value a non-empty string ≤ 32 KiB UTF-8. Conflicts with the
 *   state (add existing, update/delete missing, touch a systemManaged secret, the same name twice)
 *   → 422 `INVALID_SECRET_OPERATION` listing every rejected operation (`$.operations.additions[0].name`,
 *   `$.operations.deletions[1]`); all-or-nothing. Success returns the full listing (shared and both
 *   variants). Every app has system-managed `HOSTING_APP_ID` (shared) and `PORT` (each variant).
 * - Logs: `target` preview|publish, `source` app|build|access, `since` RFC 3339 or `^\d+[smhd]$`
 *   back from now (entries at or after it), all three required; `lines` digits 1–500, default 100.
 *   `total` = matching entries before truncation; `logs` = the newest `lines`, oldest first.
 */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../sim-context.ts';
import { registerAppRoutes } from './hosting/apps.routes.ts';
import { registerDeploymentRoutes } from './hosting/deployments.routes.ts';
import { registerLogRoutes } from './hosting/logs.routes.ts';
import { registerSecretRoutes } from './hosting/secrets.routes.ts';
import { registerSourceRoutes } from './hosting/source.routes.ts';

export {
  HOSTING_OPERATIONS,
  HOSTING_PREFIX,
  HOSTING_SCOPES,
  type HostingOperation,
} from './hosting/hosting-operations.config.ts';

/** Registers the 14 hosting operations; each route carries its `scope` and `ipClass` config. */
export async function registerHostingRoutes(app: FastifyInstance, ctx: SimContext): Promise<void> {
  registerAppRoutes(app, ctx);
  await registerSourceRoutes(app, ctx);
  registerDeploymentRoutes(app, ctx);
  registerSecretRoutes(app, ctx);
  registerLogRoutes(app, ctx);
}
