/**
 * Hosting reads through the gateway: what each field costs upstream (per-request loaders, the lazy
 * `app(appId:)`), open value sets, secret metadata without values, logs, and `node(id:)`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const H = '/v1/hosting/nodejs';

let stack: Stack;
beforeAll(async () => {
  // The response cache would answer repeated reads without an upstream call; the counts below
  // are about what one request costs.
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

describe('apps', () => {
  it('lists the caller’s apps with one upstream call', async () => {
    const { body } = await stack.gql(`{ apps { id appId name status statusRaw createdAt
      urls { preview publish } variants { variant variantRaw status statusRaw } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.apps.map((app: any) => app.name)).toEqual([
      'storefront',
      'marketing-site',
      'orders-api',
    ]);
    expect(body.data.apps[0]).toMatchObject({
      appId: 'app-0001',
      status: 'ACTIVE',
      statusRaw: 'active',
      urls: { preview: 'https://app-0001.preview.nodejs-hosting.example' },
      variants: [
        { variant: 'PREVIEW', variantRaw: 'preview', status: expect.any(String) },
        { variant: 'PUBLISH', variantRaw: 'publish', status: 'RUNNING', statusRaw: 'running' },
      ],
    });
    expect(await stack.upstreamCalls()).toBe(1);
  });

  it('loads variantsWithLifecycle on demand, once per app', async () => {
    const { body } = await stack.gql(`{ apps { name
      a: variantsWithLifecycle { variant lifecycleState }
      b: variantsWithLifecycle { lifecycleStateRaw } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.apps[0].a).toEqual([
      { variant: 'PREVIEW', lifecycleState: expect.any(String) },
      { variant: 'PUBLISH', lifecycleState: 'LIVE' },
    ]);
    expect(await stack.upstreamCalls(`GET ${H}/apps`)).toBe(1);
    expect(await stack.upstreamCalls(`GET ${H}/apps/{appId}`)).toBe(3);
  });
});

describe('app(appId:)', () => {
  it('costs nothing until a field needs the upstream', async () => {
    const { body } = await stack.gql(`{ app(appId: "app-0001") { id appId } }`);
    expect(body.data.app.appId).toBe('app-0001');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('reads the record once for every record field, and each sub-resource once', async () => {
    const { body } = await stack.gql(`{ app(appId: "app-0001") {
      name status updatedAt variantsWithLifecycle { variant }
      runtimeStatus { appStatus appStatusRaw variants { variant status lifecycleState } }
      deployments(limit: 2) { totalCount hasMore deployments { deploymentId status statusRaw gitHash errorMessage } }
      again: deployments(limit: 2) { totalCount }
    } }`);
    expect(body.errors).toBeUndefined();
    const app = body.data.app;
    expect(app.runtimeStatus).toMatchObject({ appStatus: 'ACTIVE', appStatusRaw: 'active' });
    expect(app.deployments.totalCount).toBe(3);
    expect(app.deployments.hasMore).toBe(true);
    expect(app.deployments.deployments).toHaveLength(2);
    expect(app.deployments.deployments[1]).toMatchObject({
      status: 'FAILED',
      errorMessage: expect.stringContaining('health check failed'),
    });
    expect(await stack.upstreamCalls(`GET ${H}/apps/{appId}`)).toBe(1);
    expect(await stack.upstreamCalls(`GET ${H}/apps/{appId}/status`)).toBe(1);
    expect(await stack.upstreamCalls(`GET ${H}/apps/{appId}/deployments`)).toBe(1);
  });

  it('round-trips through node(id:)', async () => {
    const { body } = await stack.gql(`{ app(appId: "app-0002") { id } }`);
    const node = await stack.gql(
      `query($id: ID!) { node(id: $id) { __typename ... on App { appId name } } }`,
      {
        id: body.data.app.id,
      },
    );
    expect(node.body.data.node).toEqual({
      __typename: 'App',
      appId: 'app-0002',
      name: 'marketing-site',
    });
  });

  it('is null with NOT_FOUND for another account’s app', async () => {
    const { body } = await stack.gql(
      `{ app(appId: "app-0001") { name } }`,
      {},
      { token: 'demo-other' },
    );
    expect(body.data.app).toBeNull();
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('secrets', () => {
  it('returns metadata only: shared plus both variants, or filtered to one', async () => {
    const all = await stack.gql(`{ app(appId: "app-0001") { secrets {
      shared { name systemManaged createdAt } preview { name } publish { name } } } }`);
    const secrets = all.body.data.app.secrets;
    expect(secrets.shared).toContainEqual(
      expect.objectContaining({ name: 'HOSTING_APP_ID', systemManaged: true }),
    );
    expect(secrets.preview).toContainEqual({ name: 'PORT' });
    expect(secrets.publish).toContainEqual({ name: 'PORT' });

    const filtered = await stack.gql(`{ app(appId: "app-0001") { secrets(variant: PREVIEW) {
      shared { name } preview { name } publish { name } } } }`);
    expect(filtered.body.data.app.secrets.preview).toContainEqual({ name: 'PORT' });
    expect(filtered.body.data.app.secrets.publish).toBeNull();
  });

  it('has no field that could carry a value', async () => {
    const { body } = await stack.gql(`{ __type(name: "AppSecret") { fields { name } } }`);
    expect(body.data.__type.fields.map((f: any) => f.name).sort()).toEqual([
      'createdAt',
      'name',
      'systemManaged',
      'updatedAt',
    ]);
  });
});

describe('logs and jobs', () => {
  it('reads the newest lines of a log', async () => {
    const { body } = await stack.gql(`{ app(appId: "app-0001") {
      logs(target: PUBLISH, source: "app", since: "2h", lines: 10) { total logs { timestamp source message level levelRaw } } } }`);
    expect(body.errors).toBeUndefined();
    const logs = body.data.app.logs;
    expect(logs.logs).toHaveLength(10);
    expect(logs.total).toBeGreaterThan(500);
    expect(logs.logs[0]).toMatchObject({
      source: 'app',
      level: expect.stringMatching(/^(DEBUG|INFO|WARN|ERROR)$/),
    });
  });

  it('reads a create job with its app, and null for an unknown one', async () => {
    const { body } = await stack.gql(`{
      known: appJob(jobId: "job-0001") { jobId status statusRaw app { appId name } }
      unknown: appJob(jobId: "job-9999") { jobId } }`);
    expect(body.data.known).toEqual({
      jobId: 'job-0001',
      status: 'ACTIVE',
      statusRaw: 'active',
      app: { appId: 'app-0001', name: 'storefront' },
    });
    expect(body.data.unknown).toBeNull();
  });
});
