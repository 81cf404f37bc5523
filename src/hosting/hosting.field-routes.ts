/**
 * The upstream routes each hosting field may call (`kit/field-routes.ts`), read against
 * hosting.resolvers.ts, hosting-mutations.resolvers.ts, hosting-subscriptions.resolvers.ts and
 * hosting.api.ts (each api function is one route; a subscription polls its route until the end).
 */
import { DELETE, GET, PATCH, POST, type FieldRouteDeclarations } from '../kit/field-routes.ts';
import { HOSTING_ROUTES as R } from './hosting.upstream-routes.ts';

export const HOSTING_FIELD_ROUTES: FieldRouteDeclarations = {
  'Query.apps': [GET(R.apps)],
  'Query.app': [GET(R.app)],
  'Query.appJob': [GET(R.job)],
  'Mutation.createApp': [POST(R.apps)],
  'Mutation.updateApp': [PATCH(R.app)],
  'Mutation.deleteApp': [DELETE(R.app)],
  'Mutation.uploadAppSource': [POST(R.source)],
  'Mutation.deployApp': [POST(R.deployments)],
  'Mutation.changeAppSecrets': [POST(R.secrets)],
  'Subscription.appJob': [GET(R.job)],
  'Subscription.appSourceUpload': [GET(R.sourceStatus)],
  'Subscription.appDeployment': [GET(R.deployments)],
  'App.variantsWithLifecycle': [GET(R.app)],
  'App.runtimeStatus': [GET(R.status)],
  'App.deployments': [GET(R.deployments)],
  'App.secrets': [GET(R.secrets)],
  'App.logs': [GET(R.logs)],
  'App.sourceUpload': [GET(R.sourceStatus)],
};
