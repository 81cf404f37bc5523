/**
 * The hosting part of the simulator, through real HTTP: all 14 operations, the typical flow, the
 * state machines (by reads and by simulated time), validation, scopes, account isolation, the
 * per-IP limit, streamed uploads and the rule that secret values never leave the simulator.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormData, request } from 'undici';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import {
  HOSTING_SCOPES,
  type HostingOperation,
} from '../../../src/simulator/routes/hosting.routes.ts';
import { digestArchive } from '../../../src/simulator/routes/hosting/archive-digest.stream.ts';

const P = '/v1/hosting/nodejs';
const ZIP_HEAD = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const CANARY = 'canary-7f1c0e9b-do-not-echo';
const CANARY_2 = 'canary-2-b8d4a1e3-do-not-echo';

/** A full garbage collection on demand (the flag can be set at run time). */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Every response body seen by this file, to prove no secret value ever left the simulator. */
const seenBodies: string[] = [];

/** The simulated clock: the fixtures are built at START; tests move it with tick(). */
const START = Date.parse('2025-06-01T12:00:00.000Z');
let clock = START;
const tick = (ms: number): void => {
  clock += ms;
};

let sim: RunningSimulator;

/** The harness's reply shape (its `body` is parsed JSON of any shape). */
type Reply = Awaited<ReturnType<RunningSimulator['call']>>;

async function call(
  method: string,
  path: string,
  init: { token?: string; body?: unknown } = { token: 'demo-token' },
): Promise<Reply> {
  const reply = await sim.call(method, `${P}${path}`, init);
  seenBodies.push(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? ''));
  return reply;
}
const get = (path: string, token = 'demo-token'): Promise<Reply> => call('GET', path, { token });

const zip = (text = ''): Buffer => Buffer.concat([ZIP_HEAD, Buffer.from(`fake archive ${text}`)]);

async function upload(
  appId: string,
  content: Buffer | undefined,
  options: { token?: string; field?: string; target?: RunningSimulator } = {},
): Promise<Reply> {
  const form = new FormData();
  form.append('comment', 'uploaded by the test');
  if (content) form.append(options.field ?? 'zipFile', new Blob([content]), 'app.zip');
  const res = await request(`${(options.target ?? sim).url}${P}/apps/${appId}/source`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token ?? 'demo-token'}` },
    body: form,
  });
  const text = await res.body.text();
  seenBodies.push(text);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = String(v);
  return { status: res.statusCode, headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** Creates an app in account A and reads its job until active; returns the app id. */
async function createApp(name: string, token = 'demo-token'): Promise<string> {
  const created = await call('POST', '/apps', { token, body: { name } });
  expect(created.status).toBe(202);
  await get(`/apps/jobs/${created.body.job.id}`, token);
  const done = await get(`/apps/jobs/${created.body.job.id}`, token);
  expect(done.body.job.status).toBe('active');
  return done.body.app.id as string;
}

/** Uploads an archive and reads its status until terminal; returns the final status body. */
async function uploadAndSettle(appId: string, content: Buffer): Promise<Reply['body']> {
  const uploaded = await upload(appId, content);
  expect(uploaded.status).toBe(200);
  for (let i = 0; i < 10; i += 1) {
    const status = await get(`/apps/${appId}/source/status?jobId=${uploaded.body.jobId}`);
    if (status.body.status !== 'processing') return status.body;
  }
  throw new Error('upload never settled');
}

beforeAll(async () => {
  sim = await startSimulator({ now: () => clock, ipLimits: false, rateLimit: 100_000 });
});

afterAll(async () => {
  await sim.close();
  // Secret values: neither the canaries nor any seeded value appear in any response body.
  const everything = seenBodies.join('\n');
  expect(everything).not.toContain(CANARY);
  expect(everything).not.toContain(CANARY_2);
  expect(everything).not.toMatch(/seed-[0-9a-f]{24}/);
  expect(everything).not.toMatch(/"value"\s*:/);
});

describe('apps', () => {
  it('lists the caller’s apps without variantsWithLifecycle', async () => {
    const a = await get('/apps');
    expect(a.status).toBe(200);
    const names = a.body.apps.map((app: { name: string }) => app.name);
    expect(names).toEqual(expect.arrayContaining(['storefront', 'marketing-site', 'orders-api']));
    expect(names).not.toContain('partner-portal');
    for (const app of a.body.apps) {
      expect(app).toEqual({
        id: expect.stringMatching(/^app-/),
        name: expect.any(String),
        status: 'active',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
        updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
        urls: {
          preview: expect.stringMatching(/^https:/),
          publish: expect.stringMatching(/^https:/),
        },
        variants: [
          { name: 'preview', status: expect.any(String) },
          { name: 'publish', status: expect.any(String) },
        ],
      });
    }
    const b = await get('/apps', 'demo-other');
    expect(b.body.apps.map((app: { name: string }) => app.name)).toEqual(['partner-portal']);
  });

  it('reads one app with variantsWithLifecycle; another account’s app is 404', async () => {
    const one = await get('/apps/app-0001');
    expect(one.status).toBe(200);
    expect(one.body.app.variantsWithLifecycle).toEqual([
      { variant: 'preview', status: 'running', lifecycleState: 'live' },
      { variant: 'publish', status: 'running', lifecycleState: 'live' },
    ]);
    const foreign = await get('/apps/app-0001', 'demo-other');
    const unknown = await get('/apps/app-9999', 'demo-other');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body.code).toBe('NOT_FOUND');
  });

  it('validates the name of a new app and rejects a taken one with 409', async () => {
    const missing = await call('POST', '/apps', { token: 'demo-token', body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('INVALID_BODY');
    expect(missing.body.fields).toEqual([
      { path: '$.name', code: 'REQUIRED', message: expect.any(String) },
    ]);
    for (const name of ['Bad_Name', '-leading', '', 'a'.repeat(64), 42]) {
      const bad = await call('POST', '/apps', { token: 'demo-token', body: { name } });
      expect(bad.status, String(name)).toBe(400);
      expect(bad.body.code).toBe('INVALID_FORMAT');
      expect(bad.body.fields[0].path).toBe('$.name');
    }
    const longest = await call('POST', '/apps', {
      token: 'demo-token',
      body: { name: 'a'.repeat(63) },
    });
    expect(longest.status).toBe(202);
    const taken = await call('POST', '/apps', {
      token: 'demo-token',
      body: { name: 'storefront' },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('APP_NAME_TAKEN');
    // A pending create reserves its name; another account may use the same name.
    const reserved = await call('POST', '/apps', {
      token: 'demo-token',
      body: { name: 'a'.repeat(63) },
    });
    expect(reserved.status).toBe(409);
    const otherAccount = await call('POST', '/apps', {
      token: 'demo-other',
      body: { name: 'storefront' },
    });
    expect(otherAccount.status).toBe(202);
  });

  it('a create job whose name contains "fail" ends failed with app null and frees the name', async () => {
    const created = await call('POST', '/apps', {
      token: 'demo-token',
      body: { name: 'will-fail' },
    });
    expect(created.body).toEqual({
      job: { id: expect.stringMatching(/^job-/), status: 'pending' },
    });
    const first = await get(`/apps/jobs/${created.body.job.id}`);
    expect(first.body).toEqual({ job: { id: created.body.job.id, status: 'pending' }, app: null });
    const second = await get(`/apps/jobs/${created.body.job.id}`);
    expect(second.body).toEqual({ job: { id: created.body.job.id, status: 'failed' }, app: null });
    const list = await get('/apps');
    expect(list.body.apps.map((app: { name: string }) => app.name)).not.toContain('will-fail');
    const again = await call('POST', '/apps', { token: 'demo-token', body: { name: 'will-fail' } });
    expect(again.status).toBe(202);
  });

  it('a create job becomes active after 1500 ms of simulated time without reads', async () => {
    const created = await call('POST', '/apps', {
      token: 'demo-token',
      body: { name: 'timed-app' },
    });
    const before = await get('/apps');
    expect(before.body.apps.map((app: { name: string }) => app.name)).not.toContain('timed-app');
    tick(1499);
    expect((await get('/apps')).body.apps.map((app: { name: string }) => app.name)).not.toContain(
      'timed-app',
    );
    tick(1);
    const after = await get('/apps');
    expect(after.body.apps.map((app: { name: string }) => app.name)).toContain('timed-app');
    const job = await get(`/apps/jobs/${created.body.job.id}`);
    expect(job.body.job.status).toBe('active');
    expect(job.body.app.variantsWithLifecycle).toHaveLength(2);
    // Jobs are account-scoped too.
    expect((await get(`/apps/jobs/${created.body.job.id}`, 'demo-other')).status).toBe(404);
    expect((await get('/apps/jobs/job-9999')).status).toBe(404);
  });

  it('patches name and rootPath, validates both and bumps updatedAt', async () => {
    const appId = await createApp('patch-me');
    const before = (await get(`/apps/${appId}`)).body.app;
    tick(60_000);
    const renamed = await call('PATCH', `/apps/${appId}`, {
      token: 'demo-token',
      body: { name: 'patched', rootPath: 'apps/web' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.app).toMatchObject({ id: appId, name: 'patched', urls: before.urls });
    expect(renamed.body.app.variantsWithLifecycle).toHaveLength(2);
    expect(Date.parse(renamed.body.app.updatedAt)).toBe(Date.parse(before.updatedAt) + 60_000);
    expect(renamed.body.app).not.toHaveProperty('rootPath');

    const empty = await call('PATCH', `/apps/${appId}`, { token: 'demo-token', body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('INVALID_BODY');
    expect(empty.body.fields.map((f: { path: string }) => f.path)).toEqual([
      '$.name',
      '$.rootPath',
    ]);
    for (const rootPath of ['../up', 'a/../b', '/absolute', '', 'x'.repeat(256), 7]) {
      const bad = await call('PATCH', `/apps/${appId}`, {
        token: 'demo-token',
        body: { rootPath },
      });
      expect(bad.status, String(rootPath)).toBe(400);
      expect(bad.body.fields).toEqual([
        { path: '$.rootPath', code: expect.any(String), message: expect.any(String) },
      ]);
    }
    const ok = await call('PATCH', `/apps/${appId}`, {
      token: 'demo-token',
      body: { rootPath: '.' },
    });
    expect(ok.status).toBe(200);
    const taken = await call('PATCH', `/apps/${appId}`, {
      token: 'demo-token',
      body: { name: 'storefront' },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('APP_NAME_TAKEN');
    const same = await call('PATCH', `/apps/${appId}`, {
      token: 'demo-token',
      body: { name: 'patched' },
    });
    expect(same.status).toBe(200);
  });

  it('deletes with 204 and no body; then the app is 404 everywhere', async () => {
    const appId = await createApp('delete-me');
    const foreign = await call('DELETE', `/apps/${appId}`, { token: 'demo-other' });
    expect(foreign.status).toBe(404);
    const deleted = await call('DELETE', `/apps/${appId}`, { token: 'demo-token' });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await get(`/apps/${appId}`)).status).toBe(404);
    expect((await get(`/apps/${appId}/status`)).status).toBe(404);
    expect((await call('DELETE', `/apps/${appId}`, { token: 'demo-token' })).status).toBe(404);
  });
});

describe('typical flow: create → job → upload → status → deploy → deployments → status', () => {
  it('walks every state, one step per read', async () => {
    const created = await call('POST', '/apps', {
      token: 'demo-token',
      body: { name: 'checkout-web' },
    });
    expect(created.status).toBe(202);
    const jobId = created.body.job.id;
    expect((await get(`/apps/jobs/${jobId}`)).body.job.status).toBe('pending');
    const active = await get(`/apps/jobs/${jobId}`);
    expect(active.body.job.status).toBe('active');
    const appId: string = active.body.app.id;
    expect(active.body.app.variantsWithLifecycle).toEqual([
      { variant: 'preview', status: 'not_deployed', lifecycleState: 'not_deployed' },
      { variant: 'publish', status: 'not_deployed', lifecycleState: 'not_deployed' },
    ]);

    const early = await call('POST', `/apps/${appId}/deployments`, { token: 'demo-token' });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('NO_SOURCE_UPLOADED');

    const archive = zip('checkout');
    const uploaded = await upload(appId, archive);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body).toEqual({ jobId: expect.stringMatching(/^upl-/) });
    const statusPath = `/apps/${appId}/source/status?jobId=${uploaded.body.jobId}`;
    const seen = [];
    for (let i = 0; i < 4; i += 1) seen.push((await get(statusPath)).body);
    expect(seen).toEqual(
      ['Uploading archive', 'Extracting archive', 'Installing dependencies', 'Building'].map(
        (progressMessage) => ({
          status: 'processing',
          progressMessage,
          errorMessage: null,
          errorStage: null,
        }),
      ),
    );
    const done = await get(statusPath);
    expect(done.body).toEqual({
      status: 'done',
      progressMessage: null,
      errorMessage: null,
      errorStage: null,
    });
    expect((await get(statusPath)).body.status).toBe('done');

    const deployed = await call('POST', `/apps/${appId}/deployments`, { token: 'demo-token' });
    expect(deployed.status).toBe(200);
    const commitHash = createHash('sha256').update(archive).digest('hex').slice(0, 40);
    expect(deployed.body).toEqual({
      deploymentId: expect.stringMatching(/^dep-/),
      status: 'pending',
      commitHash,
    });
    const list1 = await get(`/apps/${appId}/deployments`);
    expect(list1.body).toEqual({
      deployments: [
        {
          id: deployed.body.deploymentId,
          status: 'pending',
          gitHash: commitHash,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          errorMessage: null,
        },
      ],
      totalCount: 1,
      hasMore: false,
    });
    const list2 = await get(`/apps/${appId}/deployments`);
    expect(list2.body.deployments[0].status).toBe('in_progress');
    const deploying = await get(`/apps/${appId}`);
    expect(deploying.body.app.variantsWithLifecycle[1]).toEqual({
      variant: 'publish',
      status: 'not_deployed',
      lifecycleState: 'deploying',
    });
    const status = await get(`/apps/${appId}/status`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      appStatus: 'active',
      variants: [
        { variant: 'preview', status: 'running', lifecycleState: 'live' },
        { variant: 'publish', status: 'running', lifecycleState: 'live' },
      ],
    });
    const list3 = await get(`/apps/${appId}/deployments`);
    expect(list3.body.deployments[0].status).toBe('succeeded');
    const logs = await get(`/apps/${appId}/logs?target=publish&source=build&since=1h`);
    expect(logs.body.logs.at(-1).message).toContain(deployed.body.deploymentId);
  });

  it('uploads and deployments also advance with simulated time', async () => {
    const appId = await createApp('timed-deploy');
    const uploaded = await upload(appId, zip('timed'));
    tick(4 * 500);
    const status = await get(`/apps/${appId}/source/status?jobId=${uploaded.body.jobId}`);
    expect(status.body.status).toBe('done');
    const deployed = await call('POST', `/apps/${appId}/deployments`, { token: 'demo-token' });
    tick(500);
    expect((await get(`/apps/${appId}`)).body.app.variantsWithLifecycle[1].lifecycleState).toBe(
      'deploying',
    );
    tick(500);
    const app = await get(`/apps/${appId}`);
    expect(app.body.app.variantsWithLifecycle[1]).toEqual({
      variant: 'publish',
      status: 'running',
      lifecycleState: 'live',
    });
    const list = await get(`/apps/${appId}/deployments`);
    expect(list.body.deployments[0]).toMatchObject({
      id: deployed.body.deploymentId,
      status: 'succeeded',
    });
  });
});

describe('source upload', () => {
  it('fails a non-zip archive at the extract stage', async () => {
    const uploaded = await upload('app-0002', Buffer.from('just some text, not a zip'));
    expect(uploaded.status).toBe(200);
    const path = `/apps/app-0002/source/status?jobId=${uploaded.body.jobId}`;
    expect((await get(path)).body).toMatchObject({
      status: 'processing',
      progressMessage: 'Uploading archive',
    });
    expect((await get(path)).body).toEqual({
      status: 'failed',
      progressMessage: null,
      errorMessage: 'archive is not a valid zip file',
      errorStage: 'extract',
    });
  });

  it('fails at the build stage when the archive carries WEFT_FAIL_BUILD', async () => {
    const appId = await createApp('build-breaks');
    const final = await uploadAndSettle(appId, zip('xx WEFT_FAIL_BUILD xx'));
    expect(final).toEqual({
      status: 'failed',
      progressMessage: null,
      errorMessage: expect.any(String),
      errorStage: 'build',
    });
    // A failed upload is not publishable.
    const deploy = await call('POST', `/apps/${appId}/deployments`, { token: 'demo-token' });
    expect(deploy.status).toBe(409);
    expect(deploy.body.code).toBe('NO_SOURCE_UPLOADED');
  });

  it('a deployment of an archive carrying WEFT_FAIL_DEPLOY fails with an errorMessage', async () => {
    const appId = await createApp('deploy-breaks');
    expect((await uploadAndSettle(appId, zip('WEFT_FAIL_DEPLOY'))).status).toBe('done');
    const deployed = await call('POST', `/apps/${appId}/deployments`, { token: 'demo-token' });
    await get(`/apps/${appId}/deployments`);
    await get(`/apps/${appId}/deployments`);
    const list = await get(`/apps/${appId}/deployments`);
    expect(list.body.deployments[0]).toMatchObject({
      id: deployed.body.deploymentId,
      status: 'failed',
      errorMessage: expect.stringMatching(/.+/),
    });
    const status = await get(`/apps/${appId}/status`);
    expect(status.body.variants[1]).toEqual({
      variant: 'publish',
      status: 'not_deployed',
      lifecycleState: 'failed',
    });
  });

  it('requires the zipFile part and a jobId; unknown and foreign upload ids are 404', async () => {
    const missing = await upload('app-0001', undefined);
    expect(missing.status).toBe(400);
    expect(missing.body.fields).toEqual([
      { path: '$.zipFile', code: 'REQUIRED', message: expect.any(String) },
    ]);
    const wrongField = await upload('app-0001', zip(), { field: 'archive' });
    expect(wrongField.status).toBe(400);
    expect(wrongField.body.fields[0].path).toBe('$.zipFile');
    const notMultipart = await call('POST', '/apps/app-0001/source', {
      token: 'demo-token',
      body: { zipFile: 'nope' },
    });
    expect(notMultipart.status).toBe(400);
    expect(notMultipart.body.fields[0].path).toBe('$.zipFile');

    for (const [contentType, raw] of [
      ['multipart/form-data', 'no boundary'],
      [
        'multipart/form-data; boundary=b',
        '--b\r\nContent-Disposition: form-data; name="zipFile"; filename="a.zip"\r\n\r\nPK',
      ],
    ] as const) {
      const malformed = await sim.call('POST', `${P}/apps/app-0001/source`, {
        token: 'demo-token',
        body: raw,
        headers: { 'content-type': contentType },
      });
      expect(malformed.status, contentType).toBe(400);
      expect(malformed.body.fields[0].path).toBe('$.zipFile');
    }

    const noJob = await get('/apps/app-0001/source/status');
    expect(noJob.status).toBe(400);
    expect(noJob.body.code).toBe('INVALID_FORMAT');
    expect(noJob.body.fields).toEqual([
      { path: '$.jobId', code: 'REQUIRED', message: expect.any(String) },
    ]);
    expect((await get('/apps/app-0001/source/status?jobId=upl-9999')).status).toBe(404);
    // upl-0002 belongs to app-0002; upl-0004 to account B.
    expect((await get('/apps/app-0001/source/status?jobId=upl-0002')).status).toBe(404);
    expect((await get('/apps/app-0001/source/status?jobId=upl-0001')).status).toBe(200);
    const foreign = await get('/apps/app-0004/source/status?jobId=upl-0001', 'demo-other');
    expect(foreign.status).toBe(404);
  });

  it('streams a 50 MiB archive without holding it in memory', async () => {
    const appId = await createApp('big-upload');
    const boundary = 'weft-boundary-3c1f';
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const chunks = 50;
    const hash = createHash('sha256').update(ZIP_HEAD);
    for (let i = 0; i < chunks; i += 1) hash.update(chunk);
    // Full collections at fixed points of the upload (client and server share this process): what
    // survives is what the server holds. A buffering server would hold tens of MiB at 40 MiB in.
    const gc = exposeGc();
    const retained = (): number => {
      gc();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const baseline = retained();
    const growth: number[] = [];
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="zipFile"; filename="big.zip"\r\n` +
          'Content-Type: application/zip\r\n\r\n',
      );
      yield ZIP_HEAD;
      for (let i = 0; i < chunks; i += 1) {
        if (i > 0 && i % 10 === 0) growth.push(retained() - baseline);
        yield chunk;
      }
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const res = await request(`${sim.url}${P}/apps/${appId}/source`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer demo-token',
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body: Readable.from(body()),
    });
    const reply = (await res.body.json()) as { jobId: string };
    seenBodies.push(JSON.stringify(reply));
    expect(res.statusCode).toBe(200);
    const stored = sim.simulator.context.state.hosting.apps
      .get(appId)
      ?.uploads.find((u) => u.id === reply.jobId);
    expect(stored).toMatchObject({
      bytes: ZIP_HEAD.length + chunks * chunk.length,
      sha256: hash.digest('hex'),
      isZip: true,
    });
    expect(growth).toHaveLength(4);
    expect(Math.max(...growth)).toBeLessThan(16 * 1024 * 1024);
  });

  it('finds the failure markers across chunk boundaries', async () => {
    async function* split(): AsyncGenerator<Buffer> {
      yield Buffer.from('PK');
      yield Buffer.from([0x03, 0x04]);
      yield Buffer.from('....WEFT_FA');
      yield Buffer.from('I');
      yield Buffer.from('L_DEPLOY....');
    }
    const digest = await digestArchive(split(), ['WEFT_FAIL_BUILD', 'WEFT_FAIL_DEPLOY']);
    expect(digest.head).toEqual(ZIP_HEAD);
    expect([...digest.markers]).toEqual(['WEFT_FAIL_DEPLOY']);
    expect(digest.bytes).toBe(4 + 11 + 1 + 12);
  });
});

describe('deployments list bounds', () => {
  it('uses limit (default 10, 1..50), newest first, with totalCount and hasMore', async () => {
    const two = await get('/apps/app-0001/deployments?limit=2');
    expect(two.status).toBe(200);
    expect(two.body.deployments.map((d: { id: string }) => d.id)).toEqual(['dep-0003', 'dep-0002']);
    expect(two.body.deployments[1].errorMessage).toEqual(expect.any(String));
    expect(two.body).toMatchObject({ totalCount: 3, hasMore: true });
    const all = await get('/apps/app-0001/deployments');
    expect(all.body).toMatchObject({ totalCount: 3, hasMore: false });
    expect((await get('/apps/app-0001/deployments?limit=50')).status).toBe(200);
    expect((await get('/apps/app-0001/deployments?limit=1')).body.deployments).toHaveLength(1);
    for (const limit of ['0', '51', 'abc', '-1', '2.5', '']) {
      const bad = await get(`/apps/app-0001/deployments?limit=${limit}`);
      expect(bad.status, limit).toBe(400);
      expect(bad.body.code).toBe('INVALID_FORMAT');
      expect(bad.body.fields[0].path).toBe('$.limit');
    }
  });
});

describe('secrets', () => {
  it('lists metadata only, filtered by variant', async () => {
    const all = await get('/apps/app-0001/secrets');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body)).toEqual(['shared', 'variants']);
    expect(Object.keys(all.body.variants)).toEqual(['preview', 'publish']);
    const shared = all.body.shared.secrets;
    expect(shared).toContainEqual({
      name: 'HOSTING_APP_ID',
      systemManaged: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(shared.find((s: { name: string }) => s.name === 'SESSION_SECRET').systemManaged).toBe(
      false,
    );
    const preview = await get('/apps/app-0001/secrets?variant=preview');
    expect(Object.keys(preview.body.variants)).toEqual(['preview']);
    expect(preview.body.shared).toEqual(all.body.shared);
    const publish = await get('/apps/app-0001/secrets?variant=publish');
    expect(Object.keys(publish.body.variants)).toEqual(['publish']);
    const bad = await get('/apps/app-0001/secrets?variant=staging');
    expect(bad.status).toBe(400);
    expect(bad.body.fields[0].path).toBe('$.variant');
  });

  it('adds, updates and deletes; stores values without ever returning them', async () => {
    const appId = await createApp('secret-holder');
    const added = await call('POST', `/apps/${appId}/secrets`, {
      token: 'demo-token',
      body: {
        variant: 'publish',
        operations: { additions: [{ name: 'CANARY_TOKEN', value: CANARY }] },
      },
    });
    expect(added.status).toBe(200);
    expect(Object.keys(added.body.variants)).toEqual(['preview', 'publish']);
    expect(added.body.variants.publish.secrets.map((s: { name: string }) => s.name)).toContain(
      'CANARY_TOKEN',
    );
    const store = sim.simulator.context.state.hosting.apps.get(appId)?.secrets;
    expect(store?.publish.get('CANARY_TOKEN')?.value).toBe(CANARY);

    tick(1000);
    const updated = await call('POST', `/apps/${appId}/secrets`, {
      token: 'demo-token',
      body: {
        variant: 'publish',
        operations: { updates: [{ name: 'CANARY_TOKEN', value: CANARY_2 }] },
      },
    });
    expect(updated.status).toBe(200);
    const meta = updated.body.variants.publish.secrets.find(
      (s: { name: string }) => s.name === 'CANARY_TOKEN',
    );
    expect(Date.parse(meta.updatedAt) - Date.parse(meta.createdAt)).toBe(1000);
    expect(store?.publish.get('CANARY_TOKEN')?.value).toBe(CANARY_2);

    const shared = await call('POST', `/apps/${appId}/secrets`, {
      token: 'demo-token',
      body: { operations: { additions: [{ name: 'SHARED_ONE', value: CANARY }] } },
    });
    expect(shared.body.shared.secrets.map((s: { name: string }) => s.name)).toContain('SHARED_ONE');

    const deleted = await call('POST', `/apps/${appId}/secrets`, {
      token: 'demo-token',
      body: { variant: 'publish', operations: { deletions: ['CANARY_TOKEN'] } },
    });
    expect(deleted.status).toBe(200);
    expect(store?.publish.has('CANARY_TOKEN')).toBe(false);
  });

  it('rejects conflicting operations with 422, all or nothing, without echoing values', async () => {
    const rejected = await call('POST', '/apps/app-0001/secrets', {
      token: 'demo-token',
      body: {
        operations: {
          additions: [
            { name: 'BRAND_NEW', value: CANARY },
            { name: 'SESSION_SECRET', value: CANARY },
          ],
          updates: [{ name: 'MISSING_ONE', value: CANARY }],
          deletions: ['HOSTING_APP_ID'],
        },
      },
    });
    expect(rejected.status).toBe(422);
    expect(rejected.body.code).toBe('INVALID_SECRET_OPERATION');
    expect(
      rejected.body.fields.map((f: { path: string; code: string }) => [f.path, f.code]),
    ).toEqual([
      ['$.operations.additions[1].name', 'ALREADY_EXISTS'],
      ['$.operations.updates[0].name', 'NOT_FOUND'],
      ['$.operations.deletions[0]', 'SYSTEM_MANAGED'],
    ]);
    const state = sim.simulator.context.state.hosting.apps.get('app-0001')?.secrets;
    expect(state?.shared.has('BRAND_NEW')).toBe(false);
    const systemUpdate = await call('POST', '/apps/app-0001/secrets', {
      token: 'demo-token',
      body: { variant: 'preview', operations: { updates: [{ name: 'PORT', value: CANARY }] } },
    });
    expect(systemUpdate.status).toBe(422);
    expect(systemUpdate.body.fields[0]).toMatchObject({
      path: '$.operations.updates[0].name',
      code: 'SYSTEM_MANAGED',
    });
  });

  it('validates the shape of the change with 400s', async () => {
    const cases: [unknown, string, string][] = [
      [{}, '$.operations', 'INVALID_BODY'],
      [{ operations: {} }, '$.operations.additions', 'INVALID_BODY'],
      [{ operations: { additions: [] } }, '$.operations.additions', 'INVALID_BODY'],
      [
        { operations: { additions: [{ name: 'lower', value: CANARY }] } },
        '$.operations.additions[0].name',
        'INVALID_FORMAT',
      ],
      [
        { operations: { additions: [{ name: 'EMPTY', value: '' }] } },
        '$.operations.additions[0].value',
        'INVALID_FORMAT',
      ],
      [
        { operations: { updates: [{ name: 'BIG', value: 'x'.repeat(32 * 1024 + 1) }] } },
        '$.operations.updates[0].value',
        'INVALID_FORMAT',
      ],
      [
        { operations: { additions: [{ name: 'NO_VALUE' }] } },
        '$.operations.additions[0].value',
        'INVALID_BODY',
      ],
      [{ operations: { deletions: [1] } }, '$.operations.deletions[0]', 'INVALID_FORMAT'],
      [{ variant: 'staging', operations: { deletions: ['X'] } }, '$.variant', 'INVALID_FORMAT'],
    ];
    for (const [body, path, code] of cases) {
      const bad = await call('POST', '/apps/app-0001/secrets', { token: 'demo-token', body });
      expect(bad.status, path).toBe(400);
      expect(bad.body.code, path).toBe(code);
      expect(bad.body.fields[0].path, path).toBe(path);
    }
    const exactly32k = await call('POST', '/apps/app-0002/secrets', {
      token: 'demo-token',
      body: { operations: { additions: [{ name: 'BIG_OK', value: 'y'.repeat(32 * 1024) }] } },
    });
    expect(exactly32k.status).toBe(200);
  });
});

describe('logs', () => {
  const base = '/apps/app-0001/logs?target=publish&source=app';

  it('returns the newest lines in chronological order and the total before truncation', async () => {
    const byDefault = await get(`${base}&since=2h`);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.total).toBe(720);
    expect(byDefault.body.logs).toHaveLength(100);
    expect(byDefault.body.logs[0]).toEqual({
      timestamp: expect.any(String),
      source: 'app',
      message: expect.any(String),
      level: expect.stringMatching(/^(debug|info|warn|error)$/),
    });
    const max = await get(`${base}&since=2h&lines=500`);
    expect(max.body.logs).toHaveLength(500);
    expect(max.body.total).toBe(720);
    const stamps = max.body.logs.map((entry: { timestamp: string }) => Date.parse(entry.timestamp));
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
    expect(max.body.logs.at(-1)).toEqual(byDefault.body.logs.at(-1));
    const one = await get(`${base}&since=2h&lines=1`);
    expect(one.body.logs).toEqual([byDefault.body.logs.at(-1)]);
  });

  it('filters by since, relative or RFC 3339', async () => {
    // Seeded publish/app entries are 5 s apart, the newest 5 s before START.
    const sinceIso = new Date(START - 60_000).toISOString();
    const absolute = await get(`${base}&since=${encodeURIComponent(sinceIso)}`);
    expect(absolute.body.total).toBe(12);
    const secondsBack = Math.ceil((clock - START) / 1000) + 60;
    const relative = await get(`${base}&since=${secondsBack}s`);
    expect(relative.body.total).toBe(12);
    const minutes = await get(`${base}&since=${Math.ceil(secondsBack / 60)}m`);
    expect(minutes.body.total).toBeGreaterThanOrEqual(12);
    const offset = await get(`${base}&since=${encodeURIComponent('2000-01-01T00:00:00+02:00')}`);
    expect(offset.body.total).toBe(720);
    const access = await get('/apps/app-0001/logs?target=publish&source=access&since=7d&lines=5');
    expect(access.body.logs.every((entry: { source: string }) => entry.source === 'access')).toBe(
      true,
    );
    const preview = await get('/apps/app-0001/logs?target=preview&source=build&since=7d');
    expect(preview.body.total).toBeGreaterThan(0);
  });

  it('validates target, source, since and lines', async () => {
    const cases: [string, string][] = [
      [`${base}&since=2h&lines=0`, '$.lines'],
      [`${base}&since=2h&lines=501`, '$.lines'],
      [`${base}&since=2h&lines=ten`, '$.lines'],
      ['/apps/app-0001/logs?target=publish&source=kernel&since=2h', '$.source'],
      ['/apps/app-0001/logs?target=publish&since=2h', '$.source'],
      ['/apps/app-0001/logs?target=staging&source=app&since=2h', '$.target'],
      ['/apps/app-0001/logs?source=app&since=2h', '$.target'],
      [`${base}`, '$.since'],
      [`${base}&since=yesterday`, '$.since'],
      [`${base}&since=15x`, '$.since'],
      [`${base}&since=2025-02-30T00:00:00Z`, '$.since'],
      [`${base}&since=2025-01-01`, '$.since'],
    ];
    for (const [path, field] of cases) {
      const bad = await get(path);
      expect(bad.status, path).toBe(400);
      expect(bad.body.code, path).toBe('INVALID_FORMAT');
      expect(
        bad.body.fields.map((f: { path: string }) => f.path),
        path,
      ).toEqual([field]);
    }
  });
});

describe('auth, scopes and account isolation', () => {
  const operations: [HostingOperation, string, unknown?][] = [
    ['GET /apps', '/apps'],
    ['POST /apps', '/apps', { name: 'scoped-app' }],
    ['GET /apps/jobs/{jobId}', '/apps/jobs/job-0001'],
    ['GET /apps/{appId}', '/apps/app-0001'],
    ['PATCH /apps/{appId}', '/apps/app-0001', { rootPath: '.' }],
    ['DELETE /apps/{appId}', '/apps/app-0001'],
    ['POST /apps/{appId}/source', '/apps/app-0001/source'],
    ['GET /apps/{appId}/source/status', '/apps/app-0001/source/status?jobId=upl-0001'],
    ['GET /apps/{appId}/deployments', '/apps/app-0001/deployments'],
    ['POST /apps/{appId}/deployments', '/apps/app-0001/deployments'],
    ['GET /apps/{appId}/status', '/apps/app-0001/status'],
    ['GET /apps/{appId}/secrets', '/apps/app-0001/secrets'],
    ['POST /apps/{appId}/secrets', '/apps/app-0001/secrets', { operations: { deletions: ['X'] } }],
    ['GET /apps/{appId}/logs', '/apps/app-0001/logs?target=publish&source=app&since=1h'],
  ];

  it('has a scope for each of the 14 operations', () => {
    expect(Object.keys(HOSTING_SCOPES).sort()).toEqual(operations.map(([op]) => op).sort());
  });

  it('answers 401 without a token', async () => {
    for (const [operation, path, body] of operations) {
      const reply = await call(operation.split(' ')[0] ?? 'GET', path, { body });
      expect(reply.status, operation).toBe(401);
      expect(reply.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('lets demo-readonly read and answers 403 naming the scope for every write', async () => {
    for (const [operation, path, body] of operations) {
      const method = operation.split(' ')[0] ?? 'GET';
      const reply = await call(method, path, { token: 'demo-readonly', body });
      if (method === 'GET') {
        expect(reply.status, operation).toBe(200);
      } else {
        expect(reply.status, operation).toBe(403);
        expect(reply.body.code).toBe('FORBIDDEN');
        expect(reply.body.requiredScope).toBe(HOSTING_SCOPES[operation]);
      }
    }
    expect(HOSTING_SCOPES['GET /apps/{appId}/logs']).toBe('hosting.paas.logs:read');
  });

  it('answers 404 to demo-other for every operation on an account-A resource', async () => {
    for (const [operation, path, body] of operations) {
      if (operation === 'GET /apps' || operation === 'POST /apps') continue;
      const reply = await call(operation.split(' ')[0] ?? 'GET', path, {
        token: 'demo-other',
        body,
      });
      expect(reply.status, operation).toBe(404);
      expect(reply.body.code).toBe('NOT_FOUND');
    }
    expect((await get('/apps/app-0001')).status).toBe(200);
  });

  it('counts requests under the documented route templates', async () => {
    const stats = await sim.stats();
    expect(stats.byRoute['GET /v1/hosting/nodejs/apps/{appId}/logs']).toBeGreaterThan(0);
    expect(stats.byRoute['POST /v1/hosting/nodejs/apps/{appId}/source']).toBeGreaterThan(0);
  });
});

describe('per-IP limit', () => {
  it('answers 429 with retryAfterSec and Retry-After past the hosting-heavy limit', async () => {
    const limited = await startSimulator({ ipLimits: { 'hosting-heavy': 2 } });
    try {
      const first = await upload('app-0001', zip(), { target: limited });
      const second = await upload('app-0001', zip(), { target: limited });
      const third = await upload('app-0001', zip(), { target: limited });
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(third.status).toBe(429);
      expect(third.body.code).toBe('TOO_MANY_REQUESTS');
      expect(third.body.retryAfterSec).toBeGreaterThan(0);
      expect(third.headers['retry-after']).toBe(String(third.body.retryAfterSec));
      // Reads have their own class.
      const read = await limited.call('GET', `${P}/apps`, { token: 'demo-token' });
      expect(read.status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
