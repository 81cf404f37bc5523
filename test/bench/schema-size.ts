/**
 * The cost of the public schema's size: how long the gateway takes to build its stitched schema (the
 * same `buildGatewaySchema()` start-up runs), how large a full introspection answer is, and how many
 * root fields it serves, with the share of each subgraph snapshot.
 *
 *   node test/bench/schema-size.ts [runs]     (default 15 runs; the first, cold, is reported alone)
 *
 * Everything runs in this process; no server, no simulator. Sizes are bytes of
 * `JSON.stringify(result)` of graphql-js's `getIntrospectionQuery({ descriptions: true })`.
 */
import { readFile } from 'node:fs/promises';
import {
  buildSchema,
  execute,
  getIntrospectionQuery,
  parse,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { buildGatewaySchema } from '../../src/graph/build-schema.ts';
import { REMOTE_SUBGRAPHS, snapshotUrl } from '../../src/stitching/remote-subgraphs.ts';

const runs = Number(process.argv[2] ?? 15);
if (!Number.isInteger(runs) || runs < 1) throw new Error('runs must be a positive integer');

const introspection = parse(getIntrospectionQuery({ descriptions: true }));

/** The introspection answer of a schema and its JSON size in bytes. */
async function introspect(schema: GraphQLSchema): Promise<{ bytes: number; types: number }> {
  const result = await execute({ schema, document: introspection });
  if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
  const data = result.data as unknown as IntrospectionQuery;
  return {
    bytes: Buffer.byteLength(JSON.stringify(result)),
    types: data.__schema.types.filter((type) => !type.name.startsWith('__')).length,
  };
}

const rootCounts = (schema: GraphQLSchema) => ({
  query: Object.keys(schema.getQueryType()?.getFields() ?? {}).length,
  mutation: Object.keys(schema.getMutationType()?.getFields() ?? {}).length,
  subscription: Object.keys(schema.getSubscriptionType()?.getFields() ?? {}).length,
});

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB (${bytes} B)`;

async function main(): Promise<void> {
  const timings: number[] = [];
  let schema: GraphQLSchema | undefined;
  for (let i = 0; i < runs + 1; i += 1) {
    const started = process.hrtime.bigint();
    schema = await buildGatewaySchema();
    timings.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  if (!schema) throw new Error('no schema built');
  const [cold = 0, ...warm] = timings;

  const publicSize = await introspect(schema);
  const roots = rootCounts(schema);

  console.log('public (stitched) schema');
  console.log(`  build, cold (first in process)  ${ms(cold)}`);
  console.log(
    `  build, median of ${warm.length}           ${ms(median(warm))}  (min ${ms(Math.min(...warm))}, max ${ms(Math.max(...warm))})`,
  );
  console.log(`  introspection JSON              ${kib(publicSize.bytes)}`);
  console.log(`  named types                     ${publicSize.types}`);
  console.log(
    `  root fields                     Query ${roots.query}, Mutation ${roots.mutation}, Subscription ${roots.subscription}`,
  );

  console.log('subgraph snapshots (schema/remote/)');
  for (const subgraph of REMOTE_SUBGRAPHS) {
    const sdl = await readFile(snapshotUrl(subgraph), 'utf8');
    const own = buildSchema(sdl);
    const size = await introspect(own);
    const counts = rootCounts(own);
    console.log(
      `  ${subgraph.name.padEnd(8)} Query ${String(counts.query).padStart(3)}, Mutation ${String(counts.mutation).padStart(3)}, types ${String(size.types).padStart(3)}, SDL ${kib(Buffer.byteLength(sdl))}, introspection ${kib(size.bytes)}`,
    );
  }
}

await main();
