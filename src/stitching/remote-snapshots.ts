/**
 * The subgraph snapshots (schema/remote/) as schemas, read and built once per process: the call
 * bounds (subgraph.call-bounds.ts, when its module loads) and the subschemas (remote-subschemas.ts)
 * both need them, and building them twice was a tenth of start-up.
 *
 * Built without SDL validation (`assumeValidSDL`): the snapshots are written by
 * `npm run schema:pull` from the subgraphs' introspection, and the unit test of the snapshots
 * (test/unit/stitching/remote-snapshots.test.ts) builds every one of them with full validation, so
 * an invalid snapshot fails there instead of costing every start-up ~40 ms to prove it valid. A
 * missing or unreadable one still fails start-up, naming its path. Built without locations
 * (`noLocation`): the schemas are read, never reported against, and every AST node's location and
 * tokens stayed on the heap for the life of the process (docs/deploy.md "Memory").
 */
import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLSchema } from 'graphql';
import { snapshotUrl, type RemoteSubgraph } from './remote-subgraphs.ts';

const built = new WeakMap<RemoteSubgraph, GraphQLSchema>();

/** The snapshot's SDL; a missing one fails with its path. */
export function readSnapshot(subgraph: RemoteSubgraph): string {
  const url = snapshotUrl(subgraph);
  try {
    return readFileSync(url, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the ${subgraph.name} schema snapshot ${url.pathname}`, {
      cause: error,
    });
  }
}

/** The subgraph's snapshot as a schema, the same object on every call for one subgraph. */
export function snapshotSchema(subgraph: RemoteSubgraph): GraphQLSchema {
  let schema = built.get(subgraph);
  if (schema === undefined) {
    schema = buildSchema(readSnapshot(subgraph), { assumeValidSDL: true, noLocation: true });
    built.set(subgraph, schema);
  }
  return schema;
}
