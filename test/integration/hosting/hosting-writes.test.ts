/**
 * Hosting writes: upstream validation as `userErrors` with paths into the input, secret values that
 * appear in no response and no log line, and writes of unknown outcome that are never retried and
 * name the read that tells the truth.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { collectSse } from '../../support/subscription-clients.ts';

const H = '/v1/hosting/nodejs';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(async () => {
  stack.sim.simulator.configure({ faultRate: 0 });
  await stack.resetCounts();
});

const CREATE = `mutation($name: String!) { createApp(input: { name: $name }) {
  job { jobId status } userErrors { code message path } } }`;
const SUB_JOB = `subscription($jobId: ID!) { appJob(jobId: $jobId) { status app { appId } } }`;

/** A fresh app of account A (create, then watch its job until ACTIVE). */
async function freshApp(name: string): Promise<string> {
  const { body } = await stack.gql(CREATE, { name });
  const jobId = body.data.createApp.job.jobId;
  const { results } = await collectSse(stack.url, SUB_JOB, { jobId });
  return results.at(-1).data.appJob.app.appId;
}

describe('createApp, updateApp, deleteApp, deployApp', () => {
  it('reports the upstream’s validation as userErrors with a path into the input', async () => {
    const bad = await stack.gql(CREATE, { name: 'Not A Valid Name' });
    expect(bad.body.data.createApp).toEqual({
      job: null,
      userErrors: [
        { code: 'INVALID_FORMAT', message: expect.any(String), path: ['input', 'name'] },
      ],
    });
    const taken = await stack.gql(CREATE, { name: 'storefront' });
    expect(taken.body.data.createApp.userErrors).toEqual([
      { code: 'APP_NAME_TAKEN', message: expect.any(String), path: ['input', 'name'] },
    ]);
  });

  it('renames an app and moves its root path; the next read sees the new name', async () => {
    const appId = await freshApp('rename-me');
    const { body } = await stack.gql(
      `mutation($appId: ID!) { updateApp(input: { appId: $appId, name: "renamed", rootPath: "server" }) {
        app { appId name updatedAt } userErrors { code message path } } }`,
      { appId },
    );
    expect(body.data.updateApp).toMatchObject({ app: { appId, name: 'renamed' }, userErrors: [] });
    expect(stack.sim.simulator.context.state.hosting.apps.get(appId)!.rootPath).toBe('server');
    const read = await stack.gql(`query($appId: ID!) { app(appId: $appId) { name } }`, { appId });
    expect(read.body.data.app.name).toBe('renamed');

    const badPath = await stack.gql(
      `mutation($appId: ID!) { updateApp(input: { appId: $appId, rootPath: "../etc" }) { userErrors { code path } } }`,
      { appId },
    );
    expect(badPath.body.data.updateApp.userErrors).toEqual([
      { code: 'INVALID_FORMAT', path: ['input', 'rootPath'] },
    ]);
  });

  it('deletes an app, which is NOT_FOUND afterwards', async () => {
    const appId = await freshApp('delete-me');
    const { body } = await stack.gql(
      `mutation($appId: ID!) { deleteApp(input: { appId: $appId }) { deletedAppId userErrors { code } } }`,
      { appId },
    );
    expect(body.data.deleteApp).toEqual({ deletedAppId: appId, userErrors: [] });
    const read = await stack.gql(`query($appId: ID!) { app(appId: $appId) { name } }`, { appId });
    expect(read.body.data.app).toBeNull();
    expect(read.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('reports a deploy without processed source as a userError', async () => {
    const appId = await freshApp('nothing-to-deploy');
    const { body } = await stack.gql(
      `mutation($appId: ID!) { deployApp(input: { appId: $appId }) { deployment { deploymentId } userErrors { code message path } } }`,
      { appId },
    );
    expect(body.data.deployApp).toEqual({
      deployment: null,
      userErrors: [{ code: 'NO_SOURCE_UPLOADED', message: expect.any(String), path: null }],
    });
  });
});

describe('changeAppSecrets', () => {
  const CHANGE = `mutation($input: ChangeAppSecretsInput!) { changeAppSecrets(input: $input) {
    secrets { shared { name systemManaged updatedAt } preview { name } publish { name } }
    userErrors { code message path } } }`;

  it('never shows a secret value: not in a response, an error or a log line', async () => {
    const canary = `canary-${Math.random().toString(36).slice(2)}-value`;
    const secondCanary = `${canary}-second`;
    const store = () => stack.sim.simulator.context.state.hosting.apps.get('app-0003')!.secrets;
    const responses: string[] = [];

    const added = await stack.gql(CHANGE, {
      input: { appId: 'app-0003', additions: [{ name: 'CANARY_TOKEN', value: canary }] },
    });
    responses.push(added.text);
    expect(added.body.data.changeAppSecrets.userErrors).toEqual([]);
    expect(added.body.data.changeAppSecrets.secrets.shared).toContainEqual(
      expect.objectContaining({ name: 'CANARY_TOKEN', systemManaged: false }),
    );
    expect(store().shared.get('CANARY_TOKEN')!.value).toBe(canary); // it did reach the upstream

    const updated = await stack.gql(CHANGE, {
      input: {
        appId: 'app-0003',
        variant: 'PUBLISH',
        additions: [{ name: 'CANARY_TOKEN', value: secondCanary }],
      },
    });
    responses.push(updated.text);
    expect(store().publish.get('CANARY_TOKEN')!.value).toBe(secondCanary);

    // Rejected (the name exists): the upstream's 422 names the operation, never the value.
    const rejected = await stack.gql(CHANGE, {
      input: {
        appId: 'app-0003',
        additions: [{ name: 'CANARY_TOKEN', value: canary }],
        updates: [{ name: 'MISSING', value: canary }],
      },
    });
    responses.push(rejected.text);
    expect(rejected.body.data.changeAppSecrets.userErrors).toEqual([
      expect.objectContaining({
        code: expect.any(String),
        path: ['input', 'additions', '0', 'name'],
      }),
      expect.objectContaining({
        code: expect.any(String),
        path: ['input', 'updates', '0', 'name'],
      }),
    ]);

    // An unknown outcome (the upstream answers 503): the error does not carry it either.
    stack.sim.simulator.configure({ faultRate: 1 });
    const unknown = await stack.gql(CHANGE, {
      input: { appId: 'app-0003', updates: [{ name: 'CANARY_TOKEN', value: canary }] },
    });
    stack.sim.simulator.configure({ faultRate: 0 });
    responses.push(unknown.text);
    expect(unknown.body.errors[0].extensions.outcome).toBe('UNKNOWN');

    for (const text of responses) {
      expect(text).not.toContain(canary);
    }
    expect(stack.logs.length).toBeGreaterThan(0);
    expect(stack.logs.filter((line) => line.includes(canary))).toEqual([]);
  });
});

describe('writes of unknown outcome', () => {
  it.each([
    [
      'deployApp',
      `mutation { deployApp(input: { appId: "app-0001" }) { deployment { deploymentId } userErrors { code } } }`,
      `POST ${H}/apps/{appId}/deployments`,
      'app(appId:) { deployments { deployments { deploymentId status createdAt } } }',
    ],
    [
      'createApp',
      `mutation { createApp(input: { name: "maybe-created" }) { job { jobId } userErrors { code } } }`,
      `POST ${H}/apps`,
      'apps { appId name }',
    ],
    [
      'updateApp',
      `mutation { updateApp(input: { appId: "app-0001", name: "maybe" }) { app { name } userErrors { code } } }`,
      `PATCH ${H}/apps/{appId}`,
      'app(appId:) { name updatedAt }',
    ],
    [
      'deleteApp',
      `mutation { deleteApp(input: { appId: "app-0001" }) { deletedAppId userErrors { code } } }`,
      `DELETE ${H}/apps/{appId}`,
      'app(appId:) { appId name }',
    ],
  ])(
    '%s: one attempt, outcome UNKNOWN, and the read to check',
    async (_name, mutation, route, verifyWith) => {
      stack.sim.simulator.configure({ faultRate: 1 });
      const { body } = await stack.gql(mutation);
      stack.sim.simulator.configure({ faultRate: 0 });
      expect(body.data).toBeNull();
      expect(body.errors[0].message).toMatch(/may or may not have been applied/);
      expect(body.errors[0].extensions).toMatchObject({
        code: 'UPSTREAM_ERROR',
        outcome: 'UNKNOWN',
        verifyWith,
        upstream: { status: 503 },
      });
      expect(await stack.upstreamCalls(route)).toBe(1); // never retried
    },
  );
});
