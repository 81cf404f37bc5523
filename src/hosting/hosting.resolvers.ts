/**
 * Resolvers of the hosting part of the graph (schema/hosting.graphql): reads and the object types.
 * Mutations live in hosting-mutations.resolvers.ts, subscriptions in hosting-subscriptions.resolvers.ts.
 */
import GraphQLUpload from 'graphql-upload/GraphQLUpload.mjs';
import { nullIfNotFound } from '../errors/not-found.ts';
import { encodeGlobalId } from '../kit/global-id.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import type { AppDto, SecretMetaDto } from './hosting.api.ts';
import { requireId } from '../kit/id-checks.ts';
import { deploymentsLimit, logsQuery, upstreamVariant } from './hosting-inputs.ts';
import {
  appById,
  appStatus,
  deploymentStatus,
  fromAppRecord,
  fromDeploymentItem,
  fromJobRead,
  fromUploadStatus,
  jobStatus,
  lifecycleState,
  logLevel,
  uploadErrorStage,
  uploadStatus,
  variantOf,
  variantStatus,
  type AppParent,
} from './hosting.mappers.ts';
import { hostingMutationResolvers } from './hosting-mutations.resolvers.ts';
import { hostingSubscriptionResolvers } from './hosting-subscriptions.resolvers.ts';
import { hostingOf } from './hosting.request.ts';

/** The app record: the parent's when it has one, else the single-app read (once per request). */
const recordOf = (parent: AppParent, ctx: GatewayContext): AppDto | Promise<AppDto> =>
  parent.record ?? hostingOf(ctx).loaders.app.load(parent.appId);

const secretList = (list: { secrets: SecretMetaDto[] } | undefined): SecretMetaDto[] | null =>
  list ? list.secrets : null;

export const hostingResolvers: Resolvers = {
  Upload: GraphQLUpload,

  Query: {
    apps: async (_parent, _args, ctx) =>
      (await hostingOf(ctx).api.listApps()).apps.map(fromAppRecord),
    // No upstream call here: the fields load what they need (see the SDL).
    app: (_parent, { appId }) => appById(requireId(appId, 'appId')),
    appJob: async (_parent, { jobId }, ctx) => {
      const read = await nullIfNotFound(hostingOf(ctx).loaders.job.load(requireId(jobId, 'jobId')));
      return read && fromJobRead(read);
    },
  },

  ...hostingMutationResolvers,
  ...hostingSubscriptionResolvers,

  App: {
    id: (parent) => encodeGlobalId('App', parent.appId),
    appId: (parent) => parent.appId,
    name: async (parent, _args, ctx) => (await recordOf(parent, ctx)).name,
    status: async (parent, _args, ctx) => appStatus((await recordOf(parent, ctx)).status),
    statusRaw: async (parent, _args, ctx) => (await recordOf(parent, ctx)).status,
    createdAt: async (parent, _args, ctx) => (await recordOf(parent, ctx)).createdAt ?? null,
    updatedAt: async (parent, _args, ctx) => (await recordOf(parent, ctx)).updatedAt ?? null,
    urls: async (parent, _args, ctx) => (await recordOf(parent, ctx)).urls ?? null,
    variants: async (parent, _args, ctx) => (await recordOf(parent, ctx)).variants ?? [],
    variantsWithLifecycle: async (parent, _args, ctx) => {
      const own = parent.record?.variantsWithLifecycle;
      if (own) return own;
      // List records lack it: the single-app read has it.
      const record = await hostingOf(ctx).loaders.app.load(parent.appId);
      return record.variantsWithLifecycle ?? [];
    },
    runtimeStatus: (parent, _args, ctx) => hostingOf(ctx).loaders.runtimeStatus.load(parent.appId),
    deployments: async (parent, { limit }, ctx) => ({
      appId: parent.appId,
      list: await hostingOf(ctx).loaders.deployments.load({
        appId: parent.appId,
        limit: deploymentsLimit(limit),
      }),
    }),
    secrets: (parent, { variant }, ctx) =>
      hostingOf(ctx).loaders.secrets.load({
        appId: parent.appId,
        variant: variant ? upstreamVariant(variant) : undefined,
      }),
    logs: (parent, args, ctx) => hostingOf(ctx).api.logs(parent.appId, logsQuery(args)),
    sourceUpload: async (parent, { jobId }, ctx) => {
      const key = { appId: parent.appId, jobId: requireId(jobId, 'jobId') };
      return fromUploadStatus(
        key.appId,
        key.jobId,
        await hostingOf(ctx).loaders.sourceUpload.load(key),
      );
    },
  },

  AppVariantState: {
    variant: (dto) => variantOf(dto.name),
    variantRaw: (dto) => dto.name,
    status: (dto) => variantStatus(dto.status),
    statusRaw: (dto) => dto.status,
  },

  AppVariantLifecycle: {
    variant: (dto) => variantOf(dto.variant),
    variantRaw: (dto) => dto.variant,
    status: (dto) => variantStatus(dto.status),
    statusRaw: (dto) => dto.status,
    lifecycleState: (dto) => lifecycleState(dto.lifecycleState),
    lifecycleStateRaw: (dto) => dto.lifecycleState,
  },

  AppRuntimeStatus: {
    appStatus: (dto) => appStatus(dto.appStatus),
    appStatusRaw: (dto) => dto.appStatus,
    variants: (dto) => dto.variants ?? [],
  },

  AppJob: {
    jobId: (parent) => parent.jobId,
    status: (parent) => jobStatus(parent.status),
    statusRaw: (parent) => parent.status,
    app: (parent) => (parent.app ? fromAppRecord(parent.app) : null),
  },

  AppSourceUpload: {
    appId: (parent) => parent.appId,
    jobId: (parent) => parent.jobId,
    status: (parent) => uploadStatus(parent.status),
    statusRaw: (parent) => parent.status,
    progressMessage: (parent) => parent.progressMessage ?? null,
    errorMessage: (parent) => parent.errorMessage ?? null,
    errorStage: (parent) => uploadErrorStage(parent.errorStage),
    errorStageRaw: (parent) => parent.errorStage ?? null,
  },

  AppDeployment: {
    deploymentId: (parent) => parent.deploymentId,
    appId: (parent) => parent.appId,
    status: (parent) => deploymentStatus(parent.status),
    statusRaw: (parent) => parent.status,
    gitHash: (parent) => parent.gitHash,
    createdAt: (parent) => parent.createdAt,
    updatedAt: (parent) => parent.updatedAt,
    errorMessage: (parent) => parent.errorMessage,
  },

  AppDeploymentList: {
    deployments: (parent) =>
      parent.list.deployments.map((item) => fromDeploymentItem(parent.appId, item)),
    totalCount: (parent) => parent.list.totalCount,
    hasMore: (parent) => parent.list.hasMore,
  },

  AppSecrets: {
    shared: (dto) => dto.shared.secrets,
    preview: (dto) => secretList(dto.variants.preview),
    publish: (dto) => secretList(dto.variants.publish),
  },

  AppSecret: {
    name: (dto) => dto.name,
    systemManaged: (dto) => dto.systemManaged,
    createdAt: (dto) => dto.createdAt ?? null,
    updatedAt: (dto) => dto.updatedAt ?? null,
  },

  AppLogs: {
    logs: (dto) => dto.logs,
    total: (dto) => dto.total,
  },

  AppLogEntry: {
    timestamp: (dto) => dto.timestamp ?? null,
    source: (dto) => dto.source ?? null,
    message: (dto) => dto.message ?? null,
    level: (dto) => logLevel(dto.level),
    levelRaw: (dto) => dto.level ?? null,
  },
};

/** `node(id:)` for apps: the global id holds the app id; an unknown app is null. */
export async function resolveAppNode(
  parts: string[],
  ctx: GatewayContext,
): Promise<AppParent | null> {
  const [appId] = parts;
  if (!appId) return null;
  const record = await nullIfNotFound(hostingOf(ctx).loaders.app.load(appId));
  return record && fromAppRecord(record);
}
