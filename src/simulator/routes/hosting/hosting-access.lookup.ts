/**
 * Account-scoped lookups: a record of another account is answered exactly like an unknown id (404),
 * so ids cannot be probed across accounts.
 */
import type { FastifyRequest } from 'fastify';
import type { SimContext } from '../../sim-context.ts';
import { notFound } from '../../sim-errors.ts';
import type { HostingApp, HostingJob } from '../../fixtures/hosting.fixtures.ts';
import { settleApp, settleJobs } from './hosting-lifecycle.machine.ts';

const param = (request: FastifyRequest, name: string): string =>
  String((request.params as Record<string, unknown>)[name] ?? '');

/** The app named by the `appId` path parameter, settled by time; 404 when not the caller's. */
export function findApp(ctx: SimContext, request: FastifyRequest): HostingApp {
  const app = ctx.state.hosting.apps.get(param(request, 'appId'));
  if (!app || app.accountId !== request.principal.accountId) throw notFound('app');
  settleApp(ctx, app);
  return app;
}

/** The create job named by the `jobId` path parameter; 404 when not the caller's. */
export function findJob(ctx: SimContext, request: FastifyRequest): HostingJob {
  const job = ctx.state.hosting.jobs.get(param(request, 'jobId'));
  if (!job || job.accountId !== request.principal.accountId) throw notFound('job');
  return job;
}

/** The caller's apps in creation order, settled by time (pending creates included). */
export function listApps(ctx: SimContext, request: FastifyRequest): HostingApp[] {
  const { accountId } = request.principal;
  settleJobs(ctx, accountId);
  const apps = [...ctx.state.hosting.apps.values()].filter((app) => app.accountId === accountId);
  for (const app of apps) settleApp(ctx, app);
  return apps;
}

/** An app name is taken by another app of the account or by a pending create job. */
export function nameTaken(
  ctx: SimContext,
  accountId: string,
  name: string,
  exceptAppId?: string,
): boolean {
  settleJobs(ctx, accountId);
  for (const app of ctx.state.hosting.apps.values()) {
    if (app.accountId === accountId && app.name === name && app.id !== exceptAppId) return true;
  }
  for (const job of ctx.state.hosting.jobs.values()) {
    if (job.accountId === accountId && job.status === 'pending' && job.name === name) return true;
  }
  return false;
}
