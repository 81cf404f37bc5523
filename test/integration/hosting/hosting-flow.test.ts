/**
 * The hosting document's typical flow (create → job → upload zip → upload status → deploy →
 * deployments → status) through the gateway against the simulator, three times: by queries and
 * polling, by graphql-ws subscriptions, and by GraphQL over SSE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeProcessDate, type FakeProcessDate } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postMultipart, smallZip } from '../../support/graphql-multipart.ts';
import { collectSse, collectWs, wsClient } from '../../support/subscription-clients.ts';

let stack: Stack;
/** The stack's clock: `pollUntil` moves it past the cache's hold on moving state. */
let time: FakeProcessDate;
beforeAll(async () => {
  time = fakeProcessDate();
  // The flow is the subject here, not the backoff (job-pollers.test.ts): poll at the shortest
  // intervals the configuration allows.
  stack = await startStack({
    env: { SUBSCRIPTION_POLL_MIN_MS: '50', SUBSCRIPTION_POLL_MAX_MS: '200' },
  });
});
afterAll(async () => {
  await stack.close();
  time.restore();
});

const CREATE = `mutation($name: String!) { createApp(input: { name: $name }) {
  job { jobId status statusRaw app { appId } } userErrors { code message path } } }`;
const JOB = `query($jobId: ID!) { appJob(jobId: $jobId) { jobId status app { appId name status } } }`;
const UPLOAD = `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) {
  jobId bytes userErrors { code message path } } }`;
const UPLOAD_STATUS = `query($appId: ID!, $jobId: ID!) { app(appId: $appId) {
  sourceUpload(jobId: $jobId) { status progressMessage errorMessage errorStage } } }`;
const DEPLOY = `mutation($appId: ID!) { deployApp(input: { appId: $appId }) {
  deployment { deploymentId status gitHash } userErrors { code message path } } }`;
const AFTER = `query($appId: ID!) { app(appId: $appId) {
  name
  deployments(limit: 5) { totalCount hasMore deployments { deploymentId status gitHash errorMessage } }
  runtimeStatus { appStatus variants { variant status lifecycleState } }
  variantsWithLifecycle { variant lifecycleState }
} }`;

const SUB_JOB = `subscription($jobId: ID!) { appJob(jobId: $jobId) { jobId status app { appId name } } }`;
const SUB_UPLOAD = `subscription($appId: ID!, $jobId: ID!) { appSourceUpload(appId: $appId, jobId: $jobId) {
  appId jobId status progressMessage errorStage } }`;
const SUB_DEPLOYMENT = `subscription($appId: ID!, $deploymentId: ID!) {
  appDeployment(appId: $appId, deploymentId: $deploymentId) { deploymentId status gitHash errorMessage } }`;

async function createApp(name: string): Promise<string> {
  const { body } = await stack.gql(CREATE, { name });
  expect(body.data.createApp.userErrors).toEqual([]);
  expect(body.data.createApp.job).toMatchObject({
    status: 'PENDING',
    statusRaw: 'pending',
    app: null,
  });
  return body.data.createApp.job.jobId;
}

async function upload(appId: string): Promise<string> {
  const { body } = await postMultipart({
    url: stack.url,
    query: UPLOAD,
    variables: { input: { appId, zipFile: null } },
    filePath: 'input.zipFile',
    file: smallZip(),
  });
  expect(body.data.uploadAppSource.userErrors).toEqual([]);
  return body.data.uploadAppSource.jobId;
}

async function deploy(appId: string): Promise<{ deploymentId: string; gitHash: string }> {
  const { body } = await stack.gql(DEPLOY, { appId });
  expect(body.data.deployApp.userErrors).toEqual([]);
  expect(body.data.deployApp.deployment.status).toBe('PENDING');
  return body.data.deployApp.deployment;
}

async function expectLive(appId: string, deploymentId: string, name: string) {
  const reads = await pollUntil(
    async () => (await stack.gql(AFTER, { appId })).body,
    (body) => body.data?.app?.runtimeStatus?.variants?.[1]?.lifecycleState === 'LIVE',
  );
  const body = reads.at(-1);
  expect(body.errors).toBeUndefined();
  const app = body.data.app;
  expect(app.name).toBe(name);
  expect(app.deployments.totalCount).toBe(1);
  expect(app.deployments.deployments[0]).toMatchObject({ deploymentId, status: 'SUCCEEDED' });
  expect(app.runtimeStatus).toEqual({
    appStatus: 'ACTIVE',
    variants: [
      { variant: 'PREVIEW', status: 'RUNNING', lifecycleState: 'LIVE' },
      { variant: 'PUBLISH', status: 'RUNNING', lifecycleState: 'LIVE' },
    ],
  });
}

/**
 * Reads until `done` says so. Reads of moving state may be answered from the gateway's cache for up
 * to 5 s (deployments, runtime status), so each read after one that is not done moves the stack's
 * clock that far: the next read is a fresh one, and the simulator's timed steps move on too.
 */
async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T[]> {
  const seen: T[] = [];
  for (let reads = 0; reads < 40; reads += 1) {
    const value = await read();
    seen.push(value);
    if (done(value)) return seen;
    time.advance(5_000);
  }
  throw new Error(`never finished: ${JSON.stringify(seen.slice(-3))}`);
}

const PROGRESS = ['Uploading archive', 'Extracting archive', 'Installing dependencies', 'Building'];

/** A pushed sequence: each state once, in the order the state machine goes. */
function expectProgression(states: string[], order: string[]) {
  expect(states.length).toBeGreaterThanOrEqual(2);
  const positions = states.map((state) => order.indexOf(state));
  expect(positions.every((position) => position >= 0)).toBe(true);
  for (let i = 1; i < positions.length; i += 1) {
    expect(positions[i]).toBeGreaterThan(positions[i - 1]!);
  }
}

const uploadState = (r: any): string =>
  r.data.appSourceUpload.progressMessage ?? r.data.appSourceUpload.status;

describe('the typical flow', { timeout: 60_000 }, () => {
  it('works by queries and polling', async () => {
    const jobId = await createApp('flow-poll');
    const jobs = await pollUntil(
      async () => (await stack.gql(JOB, { jobId })).body.data.appJob,
      (job) => job.status !== 'PENDING',
    );
    expect(jobs.at(-1)).toMatchObject({
      status: 'ACTIVE',
      app: { name: 'flow-poll', status: 'ACTIVE' },
    });
    const appId = jobs.at(-1).app.appId;

    const uploadJobId = await upload(appId);
    const uploads = await pollUntil(
      async () =>
        (await stack.gql(UPLOAD_STATUS, { appId, jobId: uploadJobId })).body.data.app.sourceUpload,
      (status) => status.status !== 'PROCESSING',
    );
    expect(uploads[0]).toMatchObject({
      status: 'PROCESSING',
      progressMessage: 'Uploading archive',
    });
    expect(uploads.at(-1)).toEqual({
      status: 'DONE',
      progressMessage: null,
      errorMessage: null,
      errorStage: null,
    });

    const { deploymentId } = await deploy(appId);
    const lists = await pollUntil(
      async () => (await stack.gql(AFTER, { appId })).body.data.app.deployments.deployments[0],
      (item) => item.status === 'SUCCEEDED' || item.status === 'FAILED',
    );
    expect(lists[0]).toMatchObject({ deploymentId, status: 'PENDING' });
    expect(lists.at(-1).status).toBe('SUCCEEDED');
    await expectLive(appId, deploymentId, 'flow-poll');
  });

  it('works with subscriptions over graphql-ws', async () => {
    const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    try {
      const jobId = await createApp('flow-ws');
      const job = await collectWs(client, SUB_JOB, { jobId });
      expect(job.failure).toBeUndefined();
      expect(job.results.map((r) => r.data.appJob.status)).toEqual(['PENDING', 'ACTIVE']);
      const appId = job.results.at(-1).data.appJob.app.appId;

      const uploadJobId = await upload(appId);
      const uploads = await collectWs(client, SUB_UPLOAD, { appId, jobId: uploadJobId });
      const states = uploads.results.map(uploadState);
      expect(states[0]).toBe('Uploading archive');
      expect(states.at(-1)).toBe('DONE');
      expectProgression(states, [...PROGRESS, 'DONE']);

      const { deploymentId, gitHash } = await deploy(appId);
      const deployment = await collectWs(client, SUB_DEPLOYMENT, { appId, deploymentId });
      const statuses = deployment.results.map((r) => r.data.appDeployment.status);
      expect(statuses[0]).toBe('PENDING');
      expect(statuses.at(-1)).toBe('SUCCEEDED');
      expectProgression(statuses, ['PENDING', 'IN_PROGRESS', 'SUCCEEDED']);
      expect(deployment.results.at(-1).data.appDeployment.gitHash).toBe(gitHash);
      await expectLive(appId, deploymentId, 'flow-ws');
    } finally {
      await client.dispose();
    }
  });

  it('works with subscriptions over SSE', async () => {
    const jobId = await createApp('flow-sse');
    const job = await collectSse(stack.url, SUB_JOB, { jobId });
    expect(job.failure).toBeUndefined();
    expect(job.results.map((r) => r.data.appJob.status)).toEqual(['PENDING', 'ACTIVE']);
    const appId = job.results.at(-1).data.appJob.app.appId;

    const uploadJobId = await upload(appId);
    const uploads = await collectSse(stack.url, SUB_UPLOAD, { appId, jobId: uploadJobId });
    expect(uploads.results.at(-1).data.appSourceUpload).toMatchObject({
      appId,
      jobId: uploadJobId,
      status: 'DONE',
    });
    expectProgression(uploads.results.map(uploadState), [...PROGRESS, 'DONE']);

    const { deploymentId } = await deploy(appId);
    const deployment = await collectSse(stack.url, SUB_DEPLOYMENT, { appId, deploymentId });
    const statuses = deployment.results.map((r) => r.data.appDeployment.status);
    expect(statuses.at(-1)).toBe('SUCCEEDED');
    expectProgression(statuses, ['PENDING', 'IN_PROGRESS', 'SUCCEEDED']);
    await expectLive(appId, deploymentId, 'flow-sse');
  });
});
