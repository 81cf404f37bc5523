/**
 * Typed calls to the Node.js app hosting API (hosting document, prefix `/v1/hosting/nodejs`). Every
 * call goes through the upstream client with its route template; nothing here caches (loaders dedupe
 * per request) and no write is ever retried (the client never retries POST, PATCH or DELETE).
 */
import type { UpstreamClient } from '../upstream/upstream-call.ts';
import type { StreamBody } from '../upstream/upstream-call.ts';
import { callerOf, type RequestScope } from '../upstream/request-scope.ts';
import { createUpstreamReader } from '../kit/upstream-reader.ts';
import { HOSTING_ROUTES } from './hosting.upstream-routes.ts';

/** `{name, status}` of an App's `variants`. */
export interface VariantStateDto {
  name: string;
  status: string;
}

/** `{variant, status, lifecycleState}` of `variantsWithLifecycle` and of the runtime status. */
export interface VariantLifecycleDto {
  variant: string;
  status: string;
  lifecycleState: string;
}

/** The App record. List reads lack `variantsWithLifecycle`. */
export interface AppDto {
  id: string;
  name: string;
  status: string;
  createdAt?: string;
  updatedAt?: string;
  urls?: { preview?: string; publish?: string };
  variants?: VariantStateDto[];
  variantsWithLifecycle?: VariantLifecycleDto[];
}

export interface JobDto {
  id: string;
  status: string;
}

/** `GET /apps/jobs/{jobId}`: the app is null until the job is active. */
export interface JobReadDto {
  job: JobDto;
  app: AppDto | null;
}

export interface DeploymentItemDto {
  id: string;
  status: string;
  gitHash?: string;
  createdAt?: string;
  updatedAt?: string;
  errorMessage?: string | null;
}

export interface DeploymentListDto {
  deployments: DeploymentItemDto[];
  totalCount: number;
  hasMore: boolean;
}

/** `POST /apps/{appId}/deployments`. */
export interface PublishResultDto {
  deploymentId: string;
  status: string;
  commitHash?: string;
}

export interface RuntimeStatusDto {
  appStatus: string;
  variants: VariantLifecycleDto[];
}

/** `GET /apps/{appId}/source/status`. */
export interface UploadStatusDto {
  status: string;
  progressMessage?: string | null;
  errorMessage?: string | null;
  errorStage?: string | null;
}

/** Secret metadata: the upstream has no value field, and neither has this type. */
export interface SecretMetaDto {
  name: string;
  systemManaged: boolean;
  createdAt?: string;
  updatedAt?: string;
}

export interface SecretListingDto {
  shared: { secrets: SecretMetaDto[] };
  variants: { preview?: { secrets: SecretMetaDto[] }; publish?: { secrets: SecretMetaDto[] } };
}

export interface LogEntryDto {
  timestamp?: string;
  source?: string;
  message?: string;
  level?: string;
}

export interface LogsDto {
  logs: LogEntryDto[];
  total: number;
}

export type UpstreamVariant = 'preview' | 'publish';

export interface LogsQuery {
  target: UpstreamVariant;
  source: string;
  since: string;
  lines?: number;
}

/** `PATCH /apps/{appId}`: at least one member (checked by the caller before the call). */
export interface UpdateAppBody {
  name?: string;
  rootPath?: string;
}

/** `POST /apps/{appId}/secrets`. Holds secret values: never log, cache or echo it. */
export interface SecretChangesBody {
  variant?: UpstreamVariant;
  operations: {
    additions?: { name: string; value: string }[];
    updates?: { name: string; value: string }[];
    deletions?: string[];
  };
}

/** A streamed multipart body with the exact length of every byte it will send. */
export interface SizedStreamBody extends StreamBody {
  readonly contentLength: number;
}

export type HostingApi = ReturnType<typeof createHostingApi>;

export function createHostingApi(upstream: UpstreamClient, scope: RequestScope) {
  const get = createUpstreamReader(upstream, scope);

  return {
    listApps: () => get<{ apps: AppDto[] }>(HOSTING_ROUTES.apps, {}),

    app: async (appId: string) => (await get<{ app: AppDto }>(HOSTING_ROUTES.app, { appId })).app,

    /** A status read: upstream, each one may advance the job. */
    job: (jobId: string, signal?: AbortSignal) =>
      get<JobReadDto>(HOSTING_ROUTES.job, { jobId }, { signal }),

    /** A status read: upstream, each one may advance the upload. */
    uploadStatus: (appId: string, jobId: string, signal?: AbortSignal) =>
      get<UploadStatusDto>(HOSTING_ROUTES.sourceStatus, { appId }, { query: { jobId }, signal }),

    /** The app's deployments; `fresh` when watching one (a cached list would hide its progress). */
    deployments: (appId: string, limit: number, signal?: AbortSignal, fresh = false) =>
      get<DeploymentListDto>(
        HOSTING_ROUTES.deployments,
        { appId },
        { query: { limit }, signal, fresh },
      ),

    runtimeStatus: (appId: string) => get<RuntimeStatusDto>(HOSTING_ROUTES.status, { appId }),

    secrets: (appId: string, variant: UpstreamVariant | undefined) =>
      get<SecretListingDto>(HOSTING_ROUTES.secrets, { appId }, { query: { variant } }),

    logs: (appId: string, query: LogsQuery) =>
      get<LogsDto>(HOSTING_ROUTES.logs, { appId }, { query: { ...query } }),

    createApp: async (name: string) =>
      (
        await upstream.request<{ job: JobDto }>({
          method: 'POST',
          route: HOSTING_ROUTES.apps,
          body: { name },
          ...callerOf(scope),
        })
      ).data.job,

    updateApp: async (appId: string, body: UpdateAppBody) =>
      (
        await upstream.request<{ app: AppDto }>({
          method: 'PATCH',
          route: HOSTING_ROUTES.app,
          params: { appId },
          body,
          ...callerOf(scope),
        })
      ).data.app,

    deleteApp: async (appId: string): Promise<void> => {
      await upstream.request<unknown>({
        method: 'DELETE',
        route: HOSTING_ROUTES.app,
        params: { appId },
        ...callerOf(scope),
      });
    },

    /**
     * Streams a multipart body (file field `zipFile`) to the upstream. The body can be read once,
     * so the client never resends it; `deadlineMs` replaces the per-call deadline, which is sized
     * for JSON calls rather than for moving up to `UPLOAD_MAX_BYTES`.
     */
    uploadSource: async (appId: string, body: SizedStreamBody, deadlineMs: number) =>
      (
        await upstream.request<{ jobId: string }>({
          method: 'POST',
          route: HOSTING_ROUTES.source,
          params: { appId },
          body: { stream: body.stream, contentType: body.contentType },
          headers: { 'content-length': String(body.contentLength) },
          deadlineMs,
          ...callerOf(scope),
        })
      ).data,

    deploy: async (appId: string) =>
      (
        await upstream.request<PublishResultDto>({
          method: 'POST',
          route: HOSTING_ROUTES.deployments,
          params: { appId },
          ...callerOf(scope),
        })
      ).data,

    changeSecrets: async (appId: string, body: SecretChangesBody) =>
      (
        await upstream.request<SecretListingDto>({
          method: 'POST',
          route: HOSTING_ROUTES.secrets,
          params: { appId },
          body,
          ...callerOf(scope),
        })
      ).data,
  };
}
