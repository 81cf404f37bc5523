/**
 * The declarations docs/provider.md's scope table and `npm run doctor` are made of: every field that
 * may call the upstream (its call bound says so) declares the routes it calls and nothing else does;
 * every route it names is a declared route with a scope; and the scope each route declares is the
 * one the simulator enforces (hosting and commerce: the simulator's 403 names it; the subgraphs'
 * mutations: the simulator's own scope policies, over every mutation of the snapshots).
 */
import { OperationTypeNode, buildSchema, type GraphQLSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';
import { callBounds } from '../../../src/graph/call-bounds.ts';
import { fieldRoutes, fieldScopes, scopeOf } from '../../../src/graph/field-routes.ts';
import { upstreamRoutes } from '../../../src/graph/upstream-routes.ts';
import { REMOTE_SUBGRAPHS, snapshotUrl } from '../../../src/stitching/remote-subgraphs.ts';
import { createSimulator, type Simulator } from '../../../src/simulator/simulator.ts';
import {
  catalogScopes,
  orderScopes,
  taxScopes,
} from '../../../src/simulator/subgraphs/subgraph.routes.ts';

const table = upstreamRoutes();
const routes = fieldRoutes();

describe('field routes', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildGatewaySchema();
  });

  it('are declared for exactly the fields whose call bound may call', () => {
    const calling = Object.entries(callBounds())
      .filter(([, bound]) => bound.calls !== 0)
      .map(([field]) => field);
    const subscriptions = Object.keys(schema.getSubscriptionType()?.getFields() ?? {}).map(
      (name) => `Subscription.${name}`,
    );
    expect(Object.keys(routes).sort()).toEqual([...calling, ...subscriptions].sort());
  });

  it('name fields of the schema and routes of the table, each with a scope', () => {
    for (const [field, calls] of Object.entries(routes)) {
      const [type, name] = field.split('.') as [string, string];
      const owner = schema.getType(type) as { getFields?: () => Record<string, unknown> };
      expect(owner?.getFields?.()[name], field).toBeDefined();
      expect(calls.length, field).toBeGreaterThan(0);
      for (const call of calls) expect(() => scopeOf(table, call), field).not.toThrow();
    }
    for (const route of table.routes) expect(route.scope, route.route).toBeDefined();
  });

  it('use every route the graph declares, except the unused single-transaction read', () => {
    const used = new Set(fieldScopes().map((row) => `${row.method} ${row.route}`));
    const unused = table.routes
      .map((route) => `${route.method} ${route.route}`)
      .filter((key) => !used.has(key));
    expect(unused).toEqual(['GET /v2/commerce/stores/{storeId}/transactions/{transactionId}']);
  });
});

describe('route scopes, against the simulator', () => {
  let simulator: Simulator;
  beforeAll(async () => {
    simulator = await createSimulator({ ipLimits: false });
  });
  afterAll(async () => {
    await simulator.close();
  });

  /** What the simulator's 403 names for a token that has none of the route's scopes. */
  async function requiredScope(method: string, route: string, token: string): Promise<unknown> {
    const url = route.replace(/\{(\w+)\}/g, 'x');
    const response = await simulator.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { payload: '{}' }),
    });
    expect(response.statusCode, `${method} ${route}`).toBe(403);
    return (response.json() as { requiredScope?: unknown }).requiredScope;
  }

  it('are the ones it refuses hosting and commerce REST calls without', async () => {
    const rest = table.routes.filter(
      (route) => route.breaker === 'hosting' || route.breaker === 'commerce',
    );
    expect(rest.length).toBeGreaterThan(20);
    for (const route of rest) {
      // demo-certificates has only the ssl.certificates scopes.
      expect(await requiredScope(route.method, route.route, 'demo-certificates')).toBe(route.scope);
    }
  });

  it('are the ones it refuses certificate writes without', async () => {
    const writes = table.routes.filter(
      (route) => route.breaker === 'certificates' && route.method !== 'GET',
    );
    expect(writes.length).toBe(2);
    for (const route of writes) {
      // demo-readonly has only the :read scopes.
      expect(await requiredScope(route.method, route.route, 'demo-readonly')).toBe(route.scope);
    }
  });

  it("are the subgraphs' scope policies, for every query and every mutation", () => {
    const policies = { catalog: catalogScopes, tax: taxScopes, order: orderScopes };
    for (const subgraph of REMOTE_SUBGRAPHS) {
      const snapshot = buildSchema(readFileSync(snapshotUrl(subgraph), 'utf8'));
      const declared = table.of({ method: 'POST', route: subgraph.route })?.scope;
      if (declared === undefined || typeof declared === 'string') throw new Error('no scope');
      expect(policies[subgraph.name](OperationTypeNode.QUERY, ['x'])).toEqual([declared.query]);
      const mutations = Object.keys(snapshot.getMutationType()?.getFields() ?? {});
      expect(mutations.length).toBeGreaterThan(0);
      for (const field of mutations) {
        expect(policies[subgraph.name](OperationTypeNode.MUTATION, [field]), field).toEqual([
          declared.mutation(field),
        ]);
      }
    }
  });
});
