/**
 * Every field's upstream routes, from the domains' own declarations (`kit/field-routes.ts`), with
 * the scope each route requires (`<domain>.upstream-routes.ts`): what docs/provider.md's scope table
 * is generated from (src/scope-reference.ts) and what `npm run doctor` reports against.
 */
import { CERTIFICATE_ROUTES } from '../certificates/certificates.upstream-routes.ts';
import { CERTIFICATES_FIELD_ROUTES } from '../certificates/certificates.field-routes.ts';
import { COMMERCE_FIELD_ROUTES } from '../commerce/commerce.field-routes.ts';
import { COMMERCE_ROUTES } from '../commerce/commerce.upstream-routes.ts';
import { HOSTING_FIELD_ROUTES } from '../hosting/hosting.field-routes.ts';
import { HOSTING_ROUTES } from '../hosting/hosting.upstream-routes.ts';
import { GET, type FieldRoute, type FieldRouteDeclarations } from '../kit/field-routes.ts';
import { SUBGRAPH_FIELD_ROUTES } from '../stitching/subgraph.field-routes.ts';
import type { RouteTable } from '../upstream/upstream-routes.ts';
import { upstreamRoutes } from './upstream-routes.ts';

/**
 * `node(id:)` reads the object again from its id (node.resolvers.ts NODE_LOADERS): a certificate's
 * detail (or its entitlement's list), a store, a channel (and the walk on a 401), a customer, a
 * transaction through the list's filter, an app.
 */
const GRAPH_FIELD_ROUTES: FieldRouteDeclarations = {
  'Query.node': [
    GET(CERTIFICATE_ROUTES.customerCertificate),
    GET(CERTIFICATE_ROUTES.entitlement),
    GET(COMMERCE_ROUTES.store),
    GET(COMMERCE_ROUTES.channel),
    GET(COMMERCE_ROUTES.channels),
    GET(COMMERCE_ROUTES.customer),
    GET(COMMERCE_ROUTES.transactions),
    GET(HOSTING_ROUTES.app),
  ],
};

export function fieldRoutes(): FieldRouteDeclarations {
  const all: Record<string, readonly FieldRoute[]> = {};
  for (const table of [
    GRAPH_FIELD_ROUTES,
    CERTIFICATES_FIELD_ROUTES,
    HOSTING_FIELD_ROUTES,
    COMMERCE_FIELD_ROUTES,
    SUBGRAPH_FIELD_ROUTES,
  ]) {
    for (const [field, routes] of Object.entries(table)) {
      if (all[field]) throw new Error(`the routes of ${field} are declared twice`);
      all[field] = routes;
    }
  }
  return all;
}

/** The scope a field's call to this route needs; throws for a route the table lacks. */
export function scopeOf(table: RouteTable, call: FieldRoute): string {
  const declared = table.of(call);
  if (!declared) throw new Error(`${call.method} ${call.route} is not a declared upstream route`);
  const { scope } = declared;
  if (scope === undefined) throw new Error(`${call.method} ${call.route} declares no scope`);
  if (typeof scope === 'string') return scope;
  if (!call.operation) throw new Error(`${call.method} ${call.route} needs the field's operation`);
  return call.operation.type === 'mutation'
    ? scope.mutation(call.operation.rootField)
    : scope.query;
}

export interface FieldScope {
  readonly field: string;
  readonly method: string;
  readonly route: string;
  readonly scope: string;
}

/** Every (field, route, scope) of the graph, in declaration order. */
export function fieldScopes(table: RouteTable = upstreamRoutes()): FieldScope[] {
  return Object.entries(fieldRoutes()).flatMap(([field, routes]) =>
    routes.map((call) => ({
      field,
      method: call.method,
      route: call.route,
      scope: scopeOf(table, call),
    })),
  );
}
