/** Deployments (publish the latest processed source, list past deployments) and runtime status. */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../../sim-context.ts';
import { SimError } from '../../sim-errors.ts';
import { nextId, type HostingDeployment } from '../../fixtures/hosting.fixtures.ts';
import { findApp } from './hosting-access.lookup.ts';
import { boundedInteger, FieldErrors } from './hosting-fields.validation.ts';
import { readDeployments } from './hosting-lifecycle.machine.ts';
import { routeOf } from './hosting-operations.config.ts';
import { deploymentView, variantsWithLifecycle } from './hosting-views.serializer.ts';

/** The list's size parameter (decision: the document shows neither name nor default). */
export const DEPLOYMENT_LIMIT = { min: 1, max: 50, fallback: 10 } as const;

export function registerDeploymentRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.route({
    ...routeOf('GET /apps/{appId}/deployments'),
    handler: async (request) => {
      const record = findApp(ctx, request);
      const errors = new FieldErrors('query');
      const limit = boundedInteger(request.query, 'limit', DEPLOYMENT_LIMIT, errors);
      errors.throwIfAny();
      readDeployments(ctx, record);
      const newestFirst = [...record.deployments].reverse();
      return {
        deployments: newestFirst.slice(0, limit).map(deploymentView),
        totalCount: newestFirst.length,
        hasMore: newestFirst.length > limit,
      };
    },
  });

  app.route({
    ...routeOf('POST /apps/{appId}/deployments'),
    handler: async (request) => {
      const record = findApp(ctx, request);
      const source = record.uploads.findLast((upload) => upload.status === 'done');
      if (!source) {
        throw new SimError(
          409,
          'NO_SOURCE_UPLOADED',
          'the app has no successfully processed source upload to publish',
        );
      }
      const now = ctx.now();
      const deployment: HostingDeployment = {
        id: nextId(ctx.state.hosting, 'deployment'),
        uploadId: source.id,
        gitHash: source.sha256.slice(0, 40),
        failDeploy: source.failDeploy,
        createdAt: now,
        updatedAt: now,
        reads: 0,
        step: 0,
        status: 'pending',
        errorMessage: null,
      };
      record.deployments.push(deployment);
      return {
        deploymentId: deployment.id,
        status: deployment.status,
        commitHash: deployment.gitHash,
      };
    },
  });

  app.route({
    ...routeOf('GET /apps/{appId}/status'),
    handler: async (request) => {
      const record = findApp(ctx, request);
      readDeployments(ctx, record);
      return { appStatus: record.status, variants: variantsWithLifecycle(record) };
    },
  });
}
