/**
 * The state machines of the hosting part: create-app jobs, upload jobs and deployments.
 *
 * Each record moves through numbered steps. Its target step is
 * `max(reads - 1, 0) + floor(elapsed / stepMs)`, where `reads` counts the status reads that advance it
 * (a read counts itself first), so read n shows step n - 1 and, independently, one step passes per
 * `stepMs` of `ctx.now()` time. The record never moves backwards and stops at its terminal step.
 * Every other read of the same app settles records by time only (reads are not counted).
 *
 * - create job (1500 ms): 0 pending → 1 active | failed (name contains "fail").
 * - upload (500 ms): 0..3 processing ('Uploading archive', 'Extracting archive',
 *   'Installing dependencies', 'Building') → 4 done | failed at build (`WEFT_FAIL_BUILD`);
 *   a non-zip archive fails at step 1 (stage extract).
 * - deployment (500 ms): 0 pending → 1 in_progress → 2 succeeded | failed (`WEFT_FAIL_DEPLOY`).
 */
import type { SimContext } from '../../sim-context.ts';
import {
  createPlatformSecrets,
  type HostingApp,
  type HostingDeployment,
  type HostingJob,
  type HostingLogEntry,
  type HostingUpload,
  type SteppedRecord,
} from '../../fixtures/hosting.fixtures.ts';

export const JOB_STEP_MS = 1500;
export const UPLOAD_STEP_MS = 500;
export const DEPLOYMENT_STEP_MS = 500;

export const UPLOAD_PROGRESS = [
  'Uploading archive',
  'Extracting archive',
  'Installing dependencies',
  'Building',
] as const;

const UPLOAD_DONE_STEP = UPLOAD_PROGRESS.length;
const UPLOAD_EXTRACT_STEP = 1;
const DEPLOYMENT_DONE_STEP = 2;

export const NOT_A_ZIP_MESSAGE = 'archive is not a valid zip file';
export const BUILD_FAILED_MESSAGE = 'build failed: npm run build exited with code 1';
export const DEPLOY_FAILED_MESSAGE =
  'deployment failed: the new release did not pass its health check';

function targetStep(record: SteppedRecord, now: number, stepMs: number): number {
  const elapsed = Math.max(0, now - record.createdAt);
  return Math.max(record.reads - 1, 0) + Math.floor(elapsed / stepMs);
}

const log = (app: HostingApp, at: number, entry: Omit<HostingLogEntry, 'at'>): void => {
  app.logs.push({ at, ...entry });
};

/** Brings a create-app job up to date; on activation the app comes into existence. */
export function advanceJob(ctx: SimContext, job: HostingJob): void {
  if (job.status !== 'pending') return;
  const now = ctx.now();
  if (targetStep(job, now, JOB_STEP_MS) < 1) return;
  job.step = 1;
  if (job.name.includes('fail')) {
    job.status = 'failed';
    return;
  }
  job.status = 'active';
  ctx.state.hosting.apps.set(job.appId, {
    id: job.appId,
    accountId: job.accountId,
    name: job.name,
    rootPath: '.',
    status: 'active',
    createdAt: now,
    updatedAt: now,
    variants: {
      preview: { status: 'not_deployed', lifecycleState: 'not_deployed' },
      publish: { status: 'not_deployed', lifecycleState: 'not_deployed' },
    },
    uploads: [],
    deployments: [],
    secrets: createPlatformSecrets(job.appId, now),
    logs: [],
  });
}

/** Settles every pending create job of an account by time (GET /apps, name checks). */
export function settleJobs(ctx: SimContext, accountId: string): void {
  for (const job of ctx.state.hosting.jobs.values()) {
    if (job.accountId === accountId) advanceJob(ctx, job);
  }
}

/** Brings an upload job up to date, applying each step's effect on the preview variant. */
export function advanceUpload(ctx: SimContext, app: HostingApp, upload: HostingUpload): void {
  const now = ctx.now();
  const target = targetStep(upload, now, UPLOAD_STEP_MS);
  while (upload.status === 'processing' && upload.step < target) {
    upload.step += 1;
    if (upload.step === UPLOAD_EXTRACT_STEP && !upload.isZip) {
      upload.status = 'failed';
      upload.errorStage = 'extract';
      upload.errorMessage = NOT_A_ZIP_MESSAGE;
      app.variants.preview.lifecycleState = 'failed';
      log(app, now, {
        target: 'preview',
        source: 'build',
        level: 'error',
        message: `upload ${upload.id}: ${NOT_A_ZIP_MESSAGE}`,
      });
    } else if (upload.step === UPLOAD_DONE_STEP && upload.failBuild) {
      upload.status = 'failed';
      upload.errorStage = 'build';
      upload.errorMessage = BUILD_FAILED_MESSAGE;
      app.variants.preview.lifecycleState = 'failed';
      log(app, now, {
        target: 'preview',
        source: 'build',
        level: 'error',
        message: `upload ${upload.id}: ${BUILD_FAILED_MESSAGE}`,
      });
    } else if (upload.step === UPLOAD_DONE_STEP) {
      upload.status = 'done';
      app.variants.preview.status = 'running';
      app.variants.preview.lifecycleState = 'live';
      log(app, now, {
        target: 'preview',
        source: 'build',
        level: 'info',
        message: `upload ${upload.id}: build completed, preview is live`,
      });
    }
  }
}

/** Brings a deployment up to date, applying each step's effect on the publish variant. */
export function advanceDeployment(
  ctx: SimContext,
  app: HostingApp,
  deployment: HostingDeployment,
): void {
  const now = ctx.now();
  const target = targetStep(deployment, now, DEPLOYMENT_STEP_MS);
  while (
    (deployment.status === 'pending' || deployment.status === 'in_progress') &&
    deployment.step < Math.min(target, DEPLOYMENT_DONE_STEP)
  ) {
    deployment.step += 1;
    deployment.updatedAt = now;
    if (deployment.step === 1) {
      deployment.status = 'in_progress';
      app.variants.publish.lifecycleState = 'deploying';
    } else if (deployment.failDeploy) {
      deployment.status = 'failed';
      deployment.errorMessage = DEPLOY_FAILED_MESSAGE;
      app.variants.publish.lifecycleState = 'failed';
      log(app, now, {
        target: 'publish',
        source: 'build',
        level: 'error',
        message: `deployment ${deployment.id}: ${DEPLOY_FAILED_MESSAGE}`,
      });
    } else {
      deployment.status = 'succeeded';
      app.variants.publish.status = 'running';
      app.variants.publish.lifecycleState = 'live';
      log(app, now, {
        target: 'publish',
        source: 'build',
        level: 'info',
        message: `deployment ${deployment.id}: commit ${deployment.gitHash.slice(0, 7)} is live`,
      });
      log(app, now, {
        target: 'publish',
        source: 'app',
        level: 'info',
        message: 'server listening on port 3000',
      });
    }
  }
}

/** Counts one status read on every unfinished deployment of the app, then settles it. */
export function readDeployments(ctx: SimContext, app: HostingApp): void {
  for (const deployment of app.deployments) {
    if (deployment.status === 'pending' || deployment.status === 'in_progress') {
      deployment.reads += 1;
    }
  }
  settleApp(ctx, app);
}

/** Settles the app's uploads and deployments by time only. */
export function settleApp(ctx: SimContext, app: HostingApp): void {
  for (const upload of app.uploads) advanceUpload(ctx, app, upload);
  for (const deployment of app.deployments) advanceDeployment(ctx, app, deployment);
}
