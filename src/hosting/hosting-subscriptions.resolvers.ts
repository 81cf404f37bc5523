/**
 * Hosting subscriptions: each subscriber joins the shared poller of its credential and resource
 * (watching/poller-registry.ts; what each watches: hosting-watches.ts). A poll failure arrives as an
 * event and is thrown from `resolve`, so it reaches the client as that event's GraphQL error (typed
 * and formatted like any other) and the stream ends.
 */
import type { Resolvers } from '../generated/resolvers.ts';
import { watchDeployment, watchJob, watchSourceUpload } from './hosting-watches.ts';
import type { WatchEvent } from '../watching/watch-spec.ts';
import { eventState } from '../watching/watch-events.ts';
import type { GatewayContext } from '../kit/request-context.ts';

const stateOf = <T>(
  event: WatchEvent<T>,
  _args: unknown,
  context: GatewayContext,
): T | Promise<T> => eventState(event, context);

export const hostingSubscriptionResolvers: Resolvers = {
  Subscription: {
    appJob: {
      subscribe: (_parent, { jobId }, ctx) => ctx.pollers.watch(watchJob(ctx, jobId)),
      resolve: stateOf,
    },
    appSourceUpload: {
      subscribe: (_parent, { appId, jobId }, ctx) =>
        ctx.pollers.watch(watchSourceUpload(ctx, appId, jobId)),
      resolve: stateOf,
    },
    appDeployment: {
      subscribe: (_parent, { appId, deploymentId }, ctx) =>
        ctx.pollers.watch(watchDeployment(ctx, appId, deploymentId)),
      resolve: stateOf,
    },
  },
};
