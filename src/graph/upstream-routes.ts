/**
 * Every upstream route the graph calls, from the domains' own declarations: the upstream stack is
 * built from this table (cache policy, route-class limits, circuits, redaction).
 */
import { CERTIFICATE_UPSTREAM_ROUTES } from '../certificates/certificates.upstream-routes.ts';
import { COMMERCE_UPSTREAM_ROUTES } from '../commerce/commerce.upstream-routes.ts';
import { HOSTING_UPSTREAM_ROUTES } from '../hosting/hosting.upstream-routes.ts';
import { SUBGRAPH_UPSTREAM_ROUTES } from '../stitching/subgraph.upstream-routes.ts';
import { createRouteTable, type RouteTable } from '../upstream/upstream-routes.ts';

export const upstreamRoutes = (): RouteTable =>
  createRouteTable([
    ...CERTIFICATE_UPSTREAM_ROUTES,
    ...HOSTING_UPSTREAM_ROUTES,
    ...COMMERCE_UPSTREAM_ROUTES,
    ...SUBGRAPH_UPSTREAM_ROUTES,
  ]);
