/**
 * The upstream route each stitched field calls (`kit/field-routes.ts`), derived from the snapshots
 * in schema/remote/ with the gateway's collision renames, as subgraph.call-bounds.ts derives their
 * bounds: every `Query` and `Mutation` root field of catalog, tax and order is one POST to its
 * subgraph, and every `Store` field of a store-scoped subgraph the same query for the parent store.
 * Each route names the operation and the subgraph's own root field, which its scope depends on
 * (subgraph-scopes.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { buildSchema } from 'graphql';
import type { FieldRoute, FieldRouteDeclarations } from '../kit/field-routes.ts';
import { localNames, planRenames } from './name-collisions.ts';
import { REMOTE_SCHEMA_DIR, REMOTE_SUBGRAPHS, snapshotUrl } from './remote-subgraphs.ts';
import { STORE_TYPE } from './store-extension.ts';

/** The local SDL files, as graph/build-schema.ts reads them (schema/*.graphql). */
function localTypeDefs(): string[] {
  const dir = new URL('../', REMOTE_SCHEMA_DIR);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => readFileSync(new URL(file, dir), 'utf8'));
}

export function subgraphFieldRoutes(): FieldRouteDeclarations {
  const snapshots = REMOTE_SUBGRAPHS.map((subgraph) => ({
    subgraph,
    schema: buildSchema(readFileSync(snapshotUrl(subgraph), 'utf8')),
  }));
  const plan = planRenames(localNames(localTypeDefs()), snapshots);
  const declarations: Record<string, readonly FieldRoute[]> = {};
  for (const { subgraph, schema } of snapshots) {
    const renamed = plan.get(subgraph.name)?.rootFields;
    const roots = [
      ['Query', 'query', schema.getQueryType()],
      ['Mutation', 'mutation', schema.getMutationType()],
    ] as const;
    for (const [rootType, type, root] of roots) {
      for (const rootField of Object.keys(root?.getFields() ?? {})) {
        const name = renamed?.get(rootType)?.get(rootField) ?? rootField;
        const routes = [{ method: 'POST', route: subgraph.route, operation: { type, rootField } }];
        declarations[`${rootType}.${name}`] = routes as readonly FieldRoute[];
        if (type === 'query' && subgraph.storeScoped) {
          declarations[`${STORE_TYPE}.${name}`] = routes as readonly FieldRoute[];
        }
      }
    }
  }
  return declarations;
}

export const SUBGRAPH_FIELD_ROUTES: FieldRouteDeclarations = subgraphFieldRoutes();
