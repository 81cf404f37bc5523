/**
 * Source upload (multipart, file field `zipFile`) and its status. `@fastify/multipart` is registered
 * in this plugin's own scope, so no other route accepts multipart bodies. The archive is consumed as
 * a stream (see archive-digest.stream.ts) and never held whole in memory.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SimContext } from '../../sim-context.ts';
import { notFound, SimError } from '../../sim-errors.ts';
import { nextId, type HostingUpload } from '../../fixtures/hosting.fixtures.ts';
import { digestArchive, isZip, type ArchiveDigest } from './archive-digest.stream.ts';
import { findApp } from './hosting-access.lookup.ts';
import { FieldErrors, requiredQueryParam } from './hosting-fields.validation.ts';
import { advanceUpload } from './hosting-lifecycle.machine.ts';
import { routeOf } from './hosting-operations.config.ts';
import { uploadStatusView } from './hosting-views.serializer.ts';

/** Largest accepted archive (decision; the document does not show one): 200 MiB. */
export const MAX_ARCHIVE_BYTES = 200 * 1024 * 1024;
export const FAIL_BUILD_MARKER = 'WEFT_FAIL_BUILD';
export const FAIL_DEPLOY_MARKER = 'WEFT_FAIL_DEPLOY';

const missingZipFile = (): SimError =>
  new SimError(400, 'INVALID_BODY', 'zipFile is required', [
    {
      path: '$.zipFile',
      code: 'REQUIRED',
      message: 'a multipart/form-data file part named zipFile is required',
    },
  ]);

const archiveTooLarge = (): SimError =>
  new SimError(413, 'PAYLOAD_TOO_LARGE', 'zipFile exceeds 200 MiB', [
    { path: '$.zipFile', code: 'TOO_LARGE', message: 'zipFile must not exceed 200 MiB' },
  ]);

const malformedMultipart = (): SimError =>
  new SimError(400, 'INVALID_BODY', 'the multipart/form-data body is malformed', [
    { path: '$.zipFile', code: 'INVALID_FORMAT', message: 'the multipart body could not be read' },
  ]);

/** Walks every part; digests the first `zipFile` file and drains anything else. */
async function readZipFile(request: FastifyRequest): Promise<ArchiveDigest | undefined> {
  if (!request.isMultipart()) return undefined;
  let digest: ArchiveDigest | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (part.fieldname === 'zipFile' && digest === undefined) {
        digest = await digestArchive(part.file, [FAIL_BUILD_MARKER, FAIL_DEPLOY_MARKER]);
        if (part.file.truncated) throw archiveTooLarge();
      } else {
        for await (const _chunk of part.file) {
          // drained: only zipFile matters
        }
      }
    }
  } catch (error) {
    if (error instanceof SimError) throw error;
    // busboy and @fastify/multipart errors: a size limit, or a body that is not valid multipart.
    if ((error as { statusCode?: number }).statusCode === 413) throw archiveTooLarge();
    throw malformedMultipart();
  }
  return digest;
}

export async function registerSourceRoutes(app: FastifyInstance, ctx: SimContext): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_ARCHIVE_BYTES } });
    scope.route({
      ...routeOf('POST /apps/{appId}/source'),
      handler: async (request) => {
        // The body is read before any answer: answered while the archive still arrives, the rest
        // of it would be read on the connection as a request of its own (and counted as one).
        const digest = await readZipFile(request);
        const record = findApp(ctx, request);
        if (digest === undefined) throw missingZipFile();
        const upload: HostingUpload = {
          id: nextId(ctx.state.hosting, 'upload'),
          bytes: digest.bytes,
          sha256: digest.sha256,
          isZip: isZip(digest),
          failBuild: digest.markers.has(FAIL_BUILD_MARKER),
          failDeploy: digest.markers.has(FAIL_DEPLOY_MARKER),
          createdAt: ctx.now(),
          reads: 0,
          step: 0,
          status: 'processing',
          errorStage: null,
          errorMessage: null,
        };
        record.uploads.push(upload);
        record.variants.preview.lifecycleState = 'building';
        return { jobId: upload.id };
      },
    });
  });

  app.route({
    ...routeOf('GET /apps/{appId}/source/status'),
    handler: async (request) => {
      const record = findApp(ctx, request);
      const errors = new FieldErrors('query');
      const jobId = requiredQueryParam(request.query, 'jobId', errors);
      errors.throwIfAny();
      const upload = record.uploads.find((candidate) => candidate.id === jobId);
      if (!upload) throw notFound('upload job');
      if (upload.status === 'processing') upload.reads += 1;
      advanceUpload(ctx, record, upload);
      return uploadStatusView(upload);
    },
  });
}
