/**
 * What the upstream stack knows about one route, declared by the domain that calls it
 * (`<domain>/<domain>.upstream-routes.ts`) and assembled by `graph/upstream-routes.ts`. The stack reads only
 * this declaration: `upstream/` itself holds no route path and no domain knowledge.
 */
import type { RoutePolicy } from './route-policy.ts';
import type { HttpMethod, UpstreamCall } from './upstream-call.ts';
import type { LedgerEntry } from './upstream-ledger.ts';

/**
 * A limit the upstream applies to a group of routes on top of the per-credential window, mirrored
 * by a second token bucket in front of those routes. A sliding window: never more than `limit`
 * calls in any `windowMs`, whatever the phase of the upstream's own window.
 */
export interface RouteClass {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  /** One bucket per credential (true) or one for the whole gateway (false). */
  readonly perCredential: boolean;
}

/**
 * The Personal Access Token scope the provider requires for a route: one scope, or for a GraphQL
 * route one scope for its queries and one per mutation root field (by the field's name in the
 * subgraph's own schema). Read by the scope table of docs/provider.md and by `npm run doctor`; the
 * stack does not enforce it (the provider does, with a 403).
 */
export type RouteScope =
  string | { readonly query: string; readonly mutation: (rootField: string) => string };

export interface UpstreamRoute {
  readonly method: HttpMethod;
  /** The path template the domain calls, e.g. `/things/{thingId}`. */
  readonly route: string;
  /**
   * What a token needs to call it (docs/provider.md "Scopes"). Every route of the graph declares
   * one (a test holds them); optional so that a test's own route need not.
   */
  readonly scope?: RouteScope;
  /** Cached (kind, TTL, tags), never cached, or a write that invalidates tags. */
  readonly cache: RoutePolicy;
  /** The upstream part the route belongs to: each part has its own circuit. */
  readonly breaker: string;
  /** The extra limit the upstream applies to this route, if any. */
  readonly limitClass?: RouteClass;
  /**
   * Applied to every successful answer the moment it is parsed, before it is cached, logged or
   * seen by any resolver. May change the answer in place (it is the gateway's own parsed copy).
   */
  readonly redact?: (data: unknown) => unknown;
  /**
   * A 401 here is about the resource (the token may not read this one), not the token itself:
   * it does not get the credential refused locally (`refused-credentials.ts`).
   */
  readonly resourceScoped401?: boolean;
}

/** Routes of one upstream part: each gets that part's circuit. */
export const inCircuit = (
  breaker: string,
  routes: readonly Omit<UpstreamRoute, 'breaker'>[],
): UpstreamRoute[] => routes.map((route) => ({ ...route, breaker }));

/** The breaker part of a call to an undeclared route. */
export const UNDECLARED_BREAKER = 'other';

/**
 * A call with its route's declaration (undefined for an undeclared route), looked up once as the
 * call enters the stack (`route-lookup.ts`): every layer below reads `declared` instead of the table.
 */
export interface RoutedCall extends UpstreamCall {
  readonly declared: UpstreamRoute | undefined;
  /** The call's line in its request's ledger, when the request keeps one (`upstream-ledger.ts`). */
  readonly ledgerEntry?: LedgerEntry | undefined;
  /**
   * Aborts once nobody waits for the answer (`call-interest.ts`): the call is dropped with
   * CLIENT_GONE while it is not sent yet; once sent, it finishes. Only reads have one (a write the
   * client asked for is made even if it left).
   */
  readonly unwanted?: AbortSignal | undefined;
}

export interface RouteTable {
  readonly routes: readonly UpstreamRoute[];
  /** The declaration of a call's route; undefined for an undeclared route. */
  of(call: Pick<UpstreamCall, 'method' | 'route'>): UpstreamRoute | undefined;
}

export const routeKey = (call: Pick<UpstreamCall, 'method' | 'route'>): string =>
  `${call.method} ${call.route}`;

/** The table; a route declared twice is a programming error. */
export function createRouteTable(routes: readonly UpstreamRoute[]): RouteTable {
  const byKey = new Map<string, UpstreamRoute>();
  for (const route of routes) {
    const key = routeKey(route);
    if (byKey.has(key)) throw new Error(`upstream route ${key} is declared twice`);
    byKey.set(key, route);
  }
  return { routes, of: (call) => byKey.get(routeKey(call)) };
}
