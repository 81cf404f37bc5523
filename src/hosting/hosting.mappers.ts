/**
 * Upstream hosting records → the parents the hosting resolvers work from, plus the open value sets
 * (the document shows none of them completely: an unseen value is UNKNOWN, its text stays readable).
 */
import { openEnum } from '../kit/open-enum.ts';
import type {
  AppDto,
  DeploymentItemDto,
  DeploymentListDto,
  JobReadDto,
  JobDto,
  PublishResultDto,
  UploadStatusDto,
} from './hosting.api.ts';

/**
 * An app as the graph sees it. `record` is absent when only the id is known (`app(appId:)`, which
 * costs nothing until a field needs the record); list records lack `variantsWithLifecycle`.
 */
export interface AppParent {
  readonly __typename: 'App';
  appId: string;
  record?: AppDto;
}

export interface AppJobParent {
  jobId: string;
  status: string;
  /** The app as the job read returned it (null while pending or failed). */
  app: AppDto | null;
}

export interface AppSourceUploadParent extends UploadStatusDto {
  appId: string;
  jobId: string;
}

/** A deployment from the list (every field) or from the publish result (id, status, hash). */
export interface AppDeploymentParent {
  appId: string;
  deploymentId: string;
  status: string;
  gitHash: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  errorMessage: string | null;
}

export interface AppDeploymentListParent {
  appId: string;
  list: DeploymentListDto;
}

export const fromAppRecord = (record: AppDto): AppParent => ({
  __typename: 'App',
  appId: record.id,
  record,
});

/** An app known by id only: its fields load what they need. */
export const appById = (appId: string): AppParent => ({ __typename: 'App', appId });

export const fromJobRead = (read: JobReadDto): AppJobParent => ({
  jobId: read.job.id,
  status: read.job.status,
  app: read.app ?? null,
});

/** The 202 answer of create: the job is pending and no app exists yet. */
export const fromCreatedJob = (job: JobDto): AppJobParent => ({
  jobId: job.id,
  status: job.status,
  app: null,
});

export const fromUploadStatus = (
  appId: string,
  jobId: string,
  dto: UploadStatusDto,
): AppSourceUploadParent => ({ ...dto, appId, jobId });

export const fromDeploymentItem = (
  appId: string,
  item: DeploymentItemDto,
): AppDeploymentParent => ({
  appId,
  deploymentId: item.id,
  status: item.status,
  gitHash: item.gitHash ?? null,
  createdAt: item.createdAt ?? null,
  updatedAt: item.updatedAt ?? null,
  errorMessage: item.errorMessage ?? null,
});

export const fromPublishResult = (
  appId: string,
  result: PublishResultDto,
): AppDeploymentParent => ({
  appId,
  deploymentId: result.deploymentId,
  status: result.status,
  gitHash: result.commitHash ?? null,
  createdAt: null,
  updatedAt: null,
  errorMessage: null,
});

// The known members of each open value set (the simulator's values; docs/graph.md).
export const appStatus = (raw: string | undefined) => openEnum(raw, ['ACTIVE'] as const);
export const variantStatus = (raw: string | undefined) =>
  openEnum(raw, ['NOT_DEPLOYED', 'RUNNING', 'STOPPED'] as const);
export const lifecycleState = (raw: string | undefined) =>
  openEnum(raw, ['NOT_DEPLOYED', 'BUILDING', 'DEPLOYING', 'LIVE', 'FAILED'] as const);
export const jobStatus = (raw: string | undefined) =>
  openEnum(raw, ['PENDING', 'ACTIVE', 'FAILED'] as const);
export const uploadStatus = (raw: string | undefined) =>
  openEnum(raw, ['PROCESSING', 'DONE', 'FAILED'] as const);
export const uploadErrorStage = (raw: string | null | undefined) =>
  raw == null ? null : openEnum(raw, ['EXTRACT', 'BUILD'] as const);
export const deploymentStatus = (raw: string | undefined) =>
  openEnum(raw, ['PENDING', 'IN_PROGRESS', 'SUCCEEDED', 'FAILED'] as const);
export const logLevel = (raw: string | undefined) =>
  openEnum(raw, ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const);

/** A variant name the graph knows, or null (the raw text stays in `variantRaw`). */
export function variantOf(raw: string | undefined): 'PREVIEW' | 'PUBLISH' | null {
  const known = openEnum(raw, ['PREVIEW', 'PUBLISH'] as const);
  return known === 'UNKNOWN' ? null : known;
}

/**
 * Terminal states that end a watch. Besides the simulator's values, common synonyms count, so a
 * real upstream that says `success` or `error` still completes the stream instead of polling on.
 */
const ENDS = {
  job: ['active', 'failed', 'error', 'errored', 'cancelled', 'canceled'],
  upload: ['done', 'failed', 'error', 'errored', 'succeeded', 'success', 'completed', 'complete'],
  deployment: ['succeeded', 'failed', 'success', 'error', 'errored', 'completed', 'cancelled'],
} as const;

export const isTerminal = (kind: keyof typeof ENDS, raw: string): boolean =>
  (ENDS[kind] as readonly string[]).includes(raw.toLowerCase());
