/**
 * What each hosting subscription watches: the status read it polls, when it is over, and the key
 * that lets every subscriber of one credential share one poller. The upstream has no read of a
 * single deployment, so a deployment is found in the newest 50 of its app's list.
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import { requireCredential } from '../upstream/require-credential.ts';
import { requireId } from '../kit/id-checks.ts';
import { WATCH_DEPLOYMENTS_LIMIT } from './hosting-inputs.ts';
import {
  fromDeploymentItem,
  fromJobRead,
  fromUploadStatus,
  isTerminal,
  type AppDeploymentParent,
  type AppJobParent,
  type AppSourceUploadParent,
} from './hosting.mappers.ts';
import type { WatchSpec } from '../watching/watch-spec.ts';
import { hostingOf } from './hosting.request.ts';

/** Credential id first: two tokens never share a poller, two subscribers of one token always do. */
const keyOf = (ctx: GatewayContext, kind: string, ...ids: string[]) => {
  const credentialId = requireCredential(ctx.credential).id;
  return { key: [credentialId, kind, ...ids].join('\u0000'), credentialId };
};

export function watchJob(ctx: GatewayContext, jobId: string): WatchSpec<AppJobParent> {
  requireId(jobId, 'jobId');
  const api = hostingOf(ctx).api;
  return {
    ...keyOf(ctx, 'job', jobId),
    poll: async (signal) => fromJobRead(await api.job(jobId, signal)),
    isTerminal: (job) => isTerminal('job', job.status),
  };
}

export function watchSourceUpload(
  ctx: GatewayContext,
  appId: string,
  jobId: string,
): WatchSpec<AppSourceUploadParent> {
  requireId(appId, 'appId');
  requireId(jobId, 'jobId');
  const api = hostingOf(ctx).api;
  return {
    ...keyOf(ctx, 'upload', appId, jobId),
    poll: async (signal) =>
      fromUploadStatus(appId, jobId, await api.uploadStatus(appId, jobId, signal)),
    isTerminal: (upload) => isTerminal('upload', upload.status),
  };
}

export function watchDeployment(
  ctx: GatewayContext,
  appId: string,
  deploymentId: string,
): WatchSpec<AppDeploymentParent> {
  requireId(appId, 'appId');
  requireId(deploymentId, 'deploymentId');
  const api = hostingOf(ctx).api;
  return {
    ...keyOf(ctx, 'deployment', appId, deploymentId),
    poll: async (signal) => {
      const list = await api.deployments(appId, WATCH_DEPLOYMENTS_LIMIT, signal, true);
      const item = list.deployments.find((candidate) => candidate.id === deploymentId);
      if (!item) {
        throw new GatewayError(
          ErrorCode.NOT_FOUND,
          `Deployment ${deploymentId} is not among the ${WATCH_DEPLOYMENTS_LIMIT} newest deployments of app ${appId}`,
          { field: 'deploymentId' },
        );
      }
      return fromDeploymentItem(appId, item);
    },
    isTerminal: (deployment) => isTerminal('deployment', deployment.status),
  };
}
