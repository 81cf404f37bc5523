/**
 * `uploadAppSource` over the GraphQL multipart request spec: the archive reaches the upstream intact
 * as field `zipFile`; a bad archive, an oversize one and a request without the CSRF preflight header
 * are refused before any upstream call.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postMultipart, smallZip } from '../../support/graphql-multipart.ts';

const UPLOAD = `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) {
  jobId bytes userErrors { code message path } } }`;
const STATUS = `query($appId: ID!, $jobId: ID!) { app(appId: $appId) {
  sourceUpload(jobId: $jobId) { status statusRaw errorMessage errorStage errorStageRaw } } }`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const send = (
  target: Stack,
  file: Buffer,
  options: { appId?: string; headers?: Record<string, string>; token?: string | null } = {},
) =>
  postMultipart({
    url: target.url,
    query: UPLOAD,
    variables: { input: { appId: options.appId ?? 'app-0003', zipFile: null } },
    filePath: 'input.zipFile',
    file,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.token === undefined ? {} : { token: options.token }),
  });

const uploadsOf = (target: Stack, appId: string) =>
  target.sim.simulator.context.state.hosting.apps.get(appId)!.uploads;

describe('uploadAppSource', () => {
  it('streams the archive to the upstream as zipFile, byte for byte', async () => {
    const archive = smallZip('hello');
    const { status, body } = await send(stack, archive);
    expect(status).toBe(200);
    expect(body.data.uploadAppSource).toEqual({
      jobId: expect.stringMatching(/^upl-/),
      bytes: archive.length,
      userErrors: [],
    });
    const stored = uploadsOf(stack, 'app-0003').at(-1)!;
    expect(stored.id).toBe(body.data.uploadAppSource.jobId);
    expect(stored.bytes).toBe(archive.length);
    expect(stored.sha256).toBe(createHash('sha256').update(archive).digest('hex'));
    expect(await stack.upstreamCalls('POST /v1/hosting/nodejs/apps/{appId}/source')).toBe(1);
  });

  it('shows a build failure through the upload status', async () => {
    const { body } = await send(stack, smallZip('WEFT_FAIL_BUILD'));
    const jobId = body.data.uploadAppSource.jobId;
    let upload: any;
    for (let i = 0; i < 10 && upload?.status !== 'FAILED'; i += 1) {
      upload = (await stack.gql(STATUS, { appId: 'app-0003', jobId })).body.data.app.sourceUpload;
    }
    expect(upload).toEqual({
      status: 'FAILED',
      statusRaw: 'failed',
      errorMessage: expect.stringContaining('build failed'),
      errorStage: 'BUILD',
      errorStageRaw: 'build',
    });
  });

  it('refuses a file that is not a zip archive before any upstream call', async () => {
    const { body } = await send(stack, Buffer.from('#!/bin/sh\necho this is not a zip\n'));
    expect(body.data.uploadAppSource).toEqual({
      jobId: null,
      bytes: null,
      userErrors: [
        {
          code: 'INVALID_INPUT',
          message: expect.stringContaining('not a zip archive'),
          path: ['input', 'zipFile'],
        },
      ],
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses an empty file before any upstream call', async () => {
    const { body } = await send(stack, Buffer.alloc(0));
    expect(body.data.uploadAppSource.userErrors[0]).toMatchObject({
      code: 'INVALID_INPUT',
      message: '`zipFile` is empty',
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses a form-shaped multipart request (no token, no preflight header) with its body unread', async () => {
    const { status, body } = await send(stack, smallZip(), { headers: {}, token: null });
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    expect(body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(await stack.upstreamCalls()).toBe(0);
    // A token is proof enough (it cannot be sent cross-site without a preflight), as is Apollo's header.
    const withToken = await send(stack, smallZip(), { headers: {} });
    expect(withToken.body.data.uploadAppSource.userErrors).toEqual([]);
    const accepted = await send(stack, smallZip(), {
      headers: { 'x-apollo-operation-name': 'Upload' },
    });
    expect(accepted.body.data.uploadAppSource.userErrors).toEqual([]);
  });

  it('refuses a multipart request without a bearer token before reading its body', async () => {
    // 1 KiB of a body announced as 60 MiB, then nothing: only an answer that does not wait for the
    // rest can arrive.
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL('/graphql', stack.url);
      const req = httpRequest(url, {
        method: 'POST',
        headers: {
          'content-type': 'multipart/form-data; boundary=----weft',
          'content-length': String(60 * 1024 * 1024),
          'apollo-require-preflight': 'true',
        },
      });
      const timer = setTimeout(() => reject(new Error('no answer before the body')), 5_000);
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on('error', () => undefined);
      req.write(Buffer.alloc(1024, 'a'));
    });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses a JSON request that passes text for the Upload', async () => {
    const { body } = await stack.gql(UPLOAD, { input: { appId: 'app-0003', zipFile: 'PK..' } });
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('is NOT_FOUND for an unknown app: one upstream call, answered 404, and no upload stored', async () => {
    const uploadsBefore = [...stack.sim.simulator.context.state.hosting.apps.values()].map(
      (app) => app.uploads.length,
    );
    const { body } = await send(stack, smallZip(), { appId: 'app-9999' });
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
    const stats = await stack.sim.stats();
    expect(stats.byRoute['POST /v1/hosting/nodejs/apps/{appId}/source']).toBe(1);
    expect(stats.byStatus['404']).toBe(1);
    expect(stack.sim.simulator.context.state.hosting.apps.has('app-9999')).toBe(false);
    expect(
      [...stack.sim.simulator.context.state.hosting.apps.values()].map((app) => app.uploads.length),
    ).toEqual(uploadsBefore);
  });
});

describe('the upload size cap (UPLOAD_MAX_BYTES)', () => {
  let capped: Stack;
  beforeAll(async () => {
    capped = await startStack({ env: { UPLOAD_MAX_BYTES: '4096' } });
  });
  afterAll(() => capped.close());
  beforeEach(() => capped.resetCounts());

  const zipOf = (size: number) =>
    Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(size - 4, 0x61)]);

  it.each([4097, 64 * 1024])(
    'refuses an archive of %i bytes before any upstream call',
    async (size) => {
      const { status, body } = await send(capped, zipOf(size));
      expect(status).toBe(200);
      expect(body.data.uploadAppSource.userErrors).toEqual([
        {
          code: 'INVALID_INPUT',
          message: '`zipFile` is larger than this gateway accepts (its UPLOAD_MAX_BYTES setting)',
          path: ['input', 'zipFile'],
        },
      ]);
      expect(await capped.upstreamCalls()).toBe(0);
    },
  );

  it('accepts an archive of exactly the cap', async () => {
    const { body } = await send(capped, zipOf(4096));
    expect(body.data.uploadAppSource).toMatchObject({ bytes: 4096, userErrors: [] });
    expect(await capped.upstreamCalls()).toBe(1);
  });
});
