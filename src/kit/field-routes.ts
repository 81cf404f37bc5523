/**
 * Which upstream routes a field of the graph may call: declared by each domain next to its call
 * bounds (`<domain>/<domain>.field-routes.ts`), assembled by `graph/field-routes.ts`. With the
 * routes' scopes (`<domain>.upstream-routes.ts`) they make the scope table of docs/provider.md
 * (`npm run docs:scopes`) and tell `npm run doctor` which part of the graph a missing scope stops.
 * A test holds them to the call bounds: every field that may call has its routes.
 */
import type { HttpMethod } from '../upstream/upstream-call.ts';

export interface FieldRoute {
  readonly method: HttpMethod;
  /** The route template, as the domain's upstream-routes file declares it. */
  readonly route: string;
  /**
   * For a GraphQL route: the operation the field sends and its root field in the subgraph's own
   * schema (a mutation's scope depends on it).
   */
  readonly operation?: { readonly type: 'query' | 'mutation'; readonly rootField: string };
}

/** `Type.field` (the gateway's schema names) → the routes its resolver may call. */
export type FieldRouteDeclarations = Readonly<Record<string, readonly FieldRoute[]>>;

export const GET = (route: string): FieldRoute => ({ method: 'GET', route });
export const POST = (route: string): FieldRoute => ({ method: 'POST', route });
export const PATCH = (route: string): FieldRoute => ({ method: 'PATCH', route });
export const DELETE = (route: string): FieldRoute => ({ method: 'DELETE', route });
