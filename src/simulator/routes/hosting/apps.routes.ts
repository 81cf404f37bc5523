/** Apps and create jobs: GET/POST /apps, GET /apps/jobs/{jobId}, GET/PATCH/DELETE /apps/{appId}. */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../../sim-context.ts';
import { SimError } from '../../sim-errors.ts';
import { nextId } from '../../fixtures/hosting.fixtures.ts';
import { findApp, findJob, listApps, nameTaken } from './hosting-access.lookup.ts';
import { advanceJob } from './hosting-lifecycle.machine.ts';
import { routeOf } from './hosting-operations.config.ts';
import { bodyObject, FieldErrors } from './hosting-fields.validation.ts';
import { appView } from './hosting-views.serializer.ts';

const APP_NAME = /^[a-z0-9][a-z0-9-]*$/;
const APP_NAME_MAX = 63;
const ROOT_PATH_MAX = 255;

/** Checks an app name (`$.name`); returns it when valid. */
function checkName(value: unknown, errors: FieldErrors): string | undefined {
  const path = '$.name';
  if (value === undefined || value === null) {
    errors.add(path, 'REQUIRED', 'name is required');
  } else if (typeof value !== 'string') {
    errors.add(path, 'INVALID_TYPE', 'name must be a string');
  } else if (value.length < 1) {
    errors.add(path, 'TOO_SHORT', 'name must have 1 to 63 characters');
  } else if (value.length > APP_NAME_MAX) {
    errors.add(path, 'TOO_LONG', 'name must have 1 to 63 characters');
  } else if (!APP_NAME.test(value)) {
    errors.add(
      path,
      'INVALID_FORMAT',
      'name must start with a lowercase letter or digit and contain only a-z, 0-9 and -',
    );
  } else {
    return value;
  }
  return undefined;
}

/** rootPath: a relative POSIX path, 1..255 characters, no leading `/`, no `..` segment. */
function checkRootPath(value: unknown, errors: FieldErrors): string | undefined {
  const path = '$.rootPath';
  const format = 'rootPath must be a relative POSIX path without ".." segments';
  if (typeof value !== 'string') {
    errors.add(path, 'INVALID_TYPE', 'rootPath must be a string');
  } else if (value.length < 1) {
    errors.add(path, 'TOO_SHORT', 'rootPath must have 1 to 255 characters');
  } else if (value.length > ROOT_PATH_MAX) {
    errors.add(path, 'TOO_LONG', 'rootPath must have 1 to 255 characters');
  } else if (
    value.startsWith('/') ||
    value.includes('\\') ||
    value.includes('\0') ||
    value.split('/').includes('..')
  ) {
    errors.add(path, 'INVALID_FORMAT', format);
  } else {
    return value;
  }
  return undefined;
}

const nameTakenError = (): SimError =>
  new SimError(409, 'APP_NAME_TAKEN', 'an app with this name already exists in the account', [
    { path: '$.name', code: 'APP_NAME_TAKEN', message: 'name is already used by another app' },
  ]);

export function registerAppRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.route({
    ...routeOf('GET /apps'),
    handler: async (request) => ({
      apps: listApps(ctx, request).map((record) => appView(record, false)),
    }),
  });

  app.route({
    ...routeOf('POST /apps'),
    handler: async (request, reply) => {
      const errors = new FieldErrors('body');
      const name = checkName(bodyObject(request.body).name, errors);
      errors.throwIfAny();
      const { accountId } = request.principal;
      if (name === undefined) throw new SimError(400, 'INVALID_BODY', 'name is required');
      if (nameTaken(ctx, accountId, name)) throw nameTakenError();
      const state = ctx.state.hosting;
      const job = {
        id: nextId(state, 'job'),
        accountId,
        appId: nextId(state, 'app'),
        name,
        status: 'pending' as const,
        createdAt: ctx.now(),
        reads: 0,
        step: 0,
      };
      state.jobs.set(job.id, job);
      return reply.status(202).send({ job: { id: job.id, status: job.status } });
    },
  });

  app.route({
    ...routeOf('GET /apps/jobs/{jobId}'),
    handler: async (request) => {
      const job = findJob(ctx, request);
      if (job.status === 'pending') job.reads += 1;
      advanceJob(ctx, job);
      const record = job.status === 'active' ? ctx.state.hosting.apps.get(job.appId) : undefined;
      return {
        job: { id: job.id, status: job.status },
        app: record ? appView(record, true) : null,
      };
    },
  });

  app.route({
    ...routeOf('GET /apps/{appId}'),
    handler: async (request) => ({ app: appView(findApp(ctx, request), true) }),
  });

  app.route({
    ...routeOf('PATCH /apps/{appId}'),
    handler: async (request) => {
      const record = findApp(ctx, request);
      const body = bodyObject(request.body);
      const errors = new FieldErrors('body');
      if (body.name === undefined && body.rootPath === undefined) {
        const message = 'at least one of name and rootPath is required';
        errors.add('$.name', 'REQUIRED', message);
        errors.add('$.rootPath', 'REQUIRED', message);
      }
      const name = body.name === undefined ? undefined : checkName(body.name, errors);
      const rootPath =
        body.rootPath === undefined ? undefined : checkRootPath(body.rootPath, errors);
      errors.throwIfAny();
      if (name !== undefined && nameTaken(ctx, record.accountId, name, record.id)) {
        throw nameTakenError();
      }
      if (name !== undefined) record.name = name;
      if (rootPath !== undefined) record.rootPath = rootPath;
      record.updatedAt = ctx.now();
      return { app: appView(record, true) };
    },
  });

  app.route({
    ...routeOf('DELETE /apps/{appId}'),
    handler: async (request, reply) => {
      const record = findApp(ctx, request);
      ctx.state.hosting.apps.delete(record.id);
      return reply.status(204).send();
    },
  });
}
