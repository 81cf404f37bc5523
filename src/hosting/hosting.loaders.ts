/**
 * Per-request loaders for hosting reads: each record is fetched at most once per request, however
 * many fields or list items ask for it. Status reads (job, upload, deployments) advance state
 * upstream, so reading them once per request also keeps one request's answer consistent.
 */
import { createKeyedLoader } from '../kit/keyed-loader.ts';
import type { HostingApi, UpstreamVariant } from './hosting.api.ts';

const join = (...parts: (string | number | undefined)[]): string =>
  parts.map((part) => (part === undefined ? '' : String(part))).join('\u0000');

export type HostingLoaders = ReturnType<typeof createHostingLoaders>;

export function createHostingLoaders(api: HostingApi) {
  return {
    /** The single-app record (with `variantsWithLifecycle`). */
    app: createKeyedLoader(
      (appId: string) => api.app(appId),
      (appId) => appId,
    ),
    job: createKeyedLoader(
      (jobId: string) => api.job(jobId),
      (jobId) => jobId,
    ),
    runtimeStatus: createKeyedLoader(
      (appId: string) => api.runtimeStatus(appId),
      (appId) => appId,
    ),
    deployments: createKeyedLoader(
      (key: { appId: string; limit: number }) => api.deployments(key.appId, key.limit),
      (key) => join(key.appId, key.limit),
    ),
    secrets: createKeyedLoader(
      (key: { appId: string; variant: UpstreamVariant | undefined }) =>
        api.secrets(key.appId, key.variant),
      (key) => join(key.appId, key.variant),
    ),
    sourceUpload: createKeyedLoader(
      (key: { appId: string; jobId: string }) => api.uploadStatus(key.appId, key.jobId),
      (key) => join(key.appId, key.jobId),
    ),
  };
}
