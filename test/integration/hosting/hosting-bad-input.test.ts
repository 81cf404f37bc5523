/**
 * Every bad hosting input gets a clear error and causes no upstream write: bounds and enums are
 * checked by the gateway before any call; an unknown app and a missing scope are the upstream's to
 * say, and the gateway passes them on typed (FORBIDDEN names the scope).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postMultipart, smallZip } from '../../support/graphql-multipart.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

/** Upstream write requests (POST, PATCH, DELETE) the simulator saw, whatever their answer. */
async function upstreamWrites(): Promise<number> {
  const stats = await stack.sim.stats();
  return Object.entries(stats.byRoute)
    .filter(([route]) => /^(POST|PATCH|DELETE) \/v1\/hosting\//.test(route))
    .reduce((sum, [, count]) => sum + count, 0);
}

const LOGS = `query($lines: Int) { app(appId: "app-0001") {
  logs(target: PUBLISH, source: "app", since: "1h", lines: $lines) { total } } }`;
const DEPLOYMENTS = `query($limit: Int) { app(appId: "app-0001") { deployments(limit: $limit) { totalCount } } }`;

describe('bounds checked before any upstream call', () => {
  it.each([0, 501])('refuses logs lines %i', async (lines) => {
    const { status, body } = await stack.gql(LOGS, { lines });
    // The schema's @range: the whole operation is refused before it runs, naming the argument.
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors[0]).toMatchObject({
      message: '`lines` must be a whole number from 1 to 500',
      extensions: { code: 'BAD_USER_INPUT', field: 'lines', min: 1, max: 500 },
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it.each([0, 51])('refuses deployments limit %i', async (limit) => {
    const { body } = await stack.gql(DEPLOYMENTS, { limit });
    expect(body.errors[0]).toMatchObject({
      message: '`limit` must be a whole number from 1 to 50',
      extensions: { code: 'BAD_USER_INPUT', field: 'limit' },
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('accepts the bounds themselves', async () => {
    const low = await stack.gql(LOGS, { lines: 1 });
    const high = await stack.gql(DEPLOYMENTS, { limit: 50 });
    expect(low.body.errors).toBeUndefined();
    expect(high.body.errors).toBeUndefined();
  });

  it('refuses an empty log source', async () => {
    const { body } = await stack.gql(
      `{ app(appId: "app-0001") { logs(target: PREVIEW, source: " ", since: "1h") { total } } }`,
    );
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'source' });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('an upstream 400 about one parameter names it in extensions.field', async () => {
    // The gateway passes `since` through (its format is not documented); the upstream refuses it.
    const { body } = await stack.gql(
      `{ app(appId: "app-0001") { logs(target: PREVIEW, source: "app", since: "yesterday") { total } } }`,
    );
    expect(body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'since',
      upstream: { status: 400, fields: [expect.objectContaining({ path: '$.since' })] },
    });
  });

  it('refuses an unknown variant (GraphQL enum), inline and as a variable', async () => {
    const inline = await stack.gql(
      `{ app(appId: "app-0001") { secrets(variant: STAGING) { shared { name } } } }`,
    );
    expect(inline.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const variable = await stack.gql(
      `query($v: AppVariant!) { app(appId: "app-0001") { logs(target: $v, source: "app", since: "1h") { total } } }`,
      { v: 'STAGING' },
    );
    expect(variable.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const mutation = await stack.gql(
      `mutation { changeAppSecrets(input: { appId: "app-0001", variant: STAGING, deletions: ["X"] }) { userErrors { code } } }`,
    );
    expect(mutation.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('inputs checked before any upstream write', () => {
  it('updateApp without name and rootPath', async () => {
    const { body } = await stack.gql(
      `mutation { updateApp(input: { appId: "app-0001" }) { app { name } userErrors { code message path } } }`,
    );
    expect(body.data.updateApp).toEqual({
      app: null,
      userErrors: [
        {
          code: 'INVALID_INPUT',
          message: 'Nothing to update: give `name`, `rootPath` or both',
          path: null,
        },
      ],
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('changeAppSecrets without any operation, or with an empty value', async () => {
    const none = await stack.gql(
      `mutation { changeAppSecrets(input: { appId: "app-0001", additions: [] }) { userErrors { code message path } } }`,
    );
    expect(none.body.data.changeAppSecrets.userErrors[0].message).toMatch(/^Nothing to change/);
    const empty = await stack.gql(
      `mutation { changeAppSecrets(input: { appId: "app-0001", additions: [{ name: "A", value: "" }] }) { userErrors { code message path } } }`,
    );
    expect(empty.body.data.changeAppSecrets.userErrors).toEqual([
      {
        code: 'INVALID_INPUT',
        message: 'A secret value must not be empty',
        path: ['input', 'additions', '0', 'value'],
      },
    ]);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a non-zip upload', async () => {
    const { body } = await postMultipart({
      url: stack.url,
      query: `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) { jobId userErrors { code path } } }`,
      variables: { input: { appId: 'app-0001', zipFile: null } },
      filePath: 'input.zipFile',
      file: Buffer.from('plain text, not an archive'),
    });
    expect(body.data.uploadAppSource.userErrors).toEqual([
      { code: 'INVALID_INPUT', path: ['input', 'zipFile'] },
    ]);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a form-shaped upload (no token, no preflight header)', async () => {
    const { status } = await postMultipart({
      token: null,
      url: stack.url,
      query: `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) { jobId } }`,
      variables: { input: { appId: 'app-0001', zipFile: null } },
      filePath: 'input.zipFile',
      file: smallZip(),
      headers: {},
    });
    expect(status).toBe(400);
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('what only the upstream knows', () => {
  it('an unknown app id is NOT_FOUND, with no write', async () => {
    const { body } = await stack.gql(
      `{ app(appId: "app-9999") { name runtimeStatus { appStatus } } }`,
    );
    expect(body.data.app).toBeNull();
    expect(body.errors.map((e: any) => e.extensions.code)).toContain('NOT_FOUND');
    expect(await upstreamWrites()).toBe(0);
  });

  it('a write to an unknown app is NOT_FOUND and changes nothing', async () => {
    const { body } = await stack.gql(
      `mutation { deployApp(input: { appId: "app-9999" }) { deployment { deploymentId } userErrors { code } } }`,
    );
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { status: 404 },
    });
    const stats = await stack.sim.stats();
    expect(stats.byStatus).toEqual({ '404': 1 });
  });

  it.each([
    [
      'deployApp',
      `mutation { deployApp(input: { appId: "app-0001" }) { deployment { deploymentId } userErrors { code } } }`,
      'hosting.paas.deploy:execute',
    ],
    [
      'changeAppSecrets',
      `mutation { changeAppSecrets(input: { appId: "app-0001", deletions: ["X"] }) { userErrors { code } } }`,
      'hosting.paas.secrets:write',
    ],
    [
      'createApp',
      `mutation { createApp(input: { name: "readonly-app" }) { job { jobId } userErrors { code } } }`,
      'hosting.paas.apps:create',
    ],
  ])('%s with a read-only token is FORBIDDEN, naming the scope', async (_name, mutation, scope) => {
    const deploymentsBefore =
      stack.sim.simulator.context.state.hosting.apps.get('app-0001')!.deployments.length;
    const { body } = await stack.gql(mutation, {}, { token: 'demo-readonly' });
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', requiredScope: scope });
    expect(body.errors[0].extensions.outcome).toBeUndefined();
    const stats = await stack.sim.stats();
    expect(stats.byStatus).toEqual({ '403': 1 });
    expect(
      stack.sim.simulator.context.state.hosting.apps.get('app-0001')!.deployments,
    ).toHaveLength(deploymentsBefore);
  });

  it('an upload with a read-only token is FORBIDDEN, naming the scope', async () => {
    const { body } = await postMultipart({
      url: stack.url,
      token: 'demo-readonly',
      query: `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) { jobId } }`,
      variables: { input: { appId: 'app-0001', zipFile: null } },
      filePath: 'input.zipFile',
      file: smallZip(),
    });
    expect(body.errors[0].extensions).toMatchObject({
      code: 'FORBIDDEN',
      requiredScope: 'hosting.paas.code:write',
    });
  });
});
