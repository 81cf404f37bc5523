/**
 * The public schema, as clients see it through introspection (local SDL plus the stitched
 * subgraphs, renamed by the collision rule), against a checked-in snapshot: a change to the graph's
 * contract shows up in review as a diff of `__snapshots__/public-schema.graphql`, and under CI a
 * missing or different snapshot fails (update one deliberately with `npx vitest run -u`).
 */
import { lexicographicSortSchema, printSchema } from 'graphql';
import { expect, it } from 'vitest';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';

it('is unchanged', async () => {
  const schema = await buildGatewaySchema();
  await expect(printSchema(lexicographicSortSchema(schema))).toMatchFileSnapshot(
    './__snapshots__/public-schema.graphql',
  );
});
