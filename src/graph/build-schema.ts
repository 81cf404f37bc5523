/**
 * The gateway's executable schema, stitched with `@graphql-tools/stitch`:
 *
 * - the local part: every SDL file directly under schema/ (the same files codegen reads) with the
 *   resolvers of each domain. It is stitched in as the gateway's own types (typeDefs + resolvers),
 *   not as a delegated subschema, so local resolvers run once, directly, exactly as before;
 * - the remote catalog, tax and order subschemas from the snapshots in schema/remote/
 *   (src/stitching/): renamed by the collision rule, routed per store, batched per subgraph;
 * - `Store` fields for the catalog and tax reads;
 * - then the local fields unwrapped from stitching's merged-type completion, which no type of this
 *   graph needs (`local-field-resolvers.ts`);
 * - the unpaged lists made to tell their length when they arrive (`unpaged-list-arrivals.ts`);
 * - and every resolver made to name its field's path to the upstream ledger (`ledger-paths.ts`).
 *
 * Everything is read from disk and parsed once per process (kit/local-sdl.ts,
 * stitching/remote-snapshots.ts); nothing is introspected.
 */
import { stitchSchemas } from '@graphql-tools/stitch';
import { JSONResolver } from './graphql-scalars.ts';
import type { GraphQLSchema } from 'graphql';
import type { Resolvers } from '../generated/resolvers.ts';
import { certificateResolvers } from '../certificates/certificates.resolvers.ts';
import { commerceResolvers } from '../commerce/commerce.resolvers.ts';
import { hostingResolvers } from '../hosting/hosting.resolvers.ts';
import { createRemoteSubschemas } from '../stitching/remote-subschemas.ts';
import { callBounds } from './call-bounds.ts';
import { DateTimeScalar } from './date-time.scalar.ts';
import { withFieldPaths } from './ledger-paths.ts';
import { unwrapLocalFields } from './local-field-resolvers.ts';
import { withUnpagedListArrivals } from './unpaged-list-arrivals.ts';
import { localSdlDocuments } from '../kit/local-sdl.ts';
import { nodeResolvers } from './node.resolvers.ts';
import { viewerResolvers } from './viewer.resolvers.ts';

const scalarResolvers: Resolvers = { DateTime: DateTimeScalar, JSON: JSONResolver };

/** The stitched schema the gateway serves (local SDL + catalog, tax and order subschemas). */
export async function buildGatewaySchema(): Promise<GraphQLSchema> {
  const typeDefs = localSdlDocuments();
  const remote = createRemoteSubschemas(typeDefs);
  const localResolvers = [
    scalarResolvers,
    nodeResolvers,
    viewerResolvers,
    certificateResolvers,
    commerceResolvers,
    hostingResolvers,
  ];
  const stitched = stitchSchemas({
    subschemas: [...remote.subschemas],
    typeDefs: [...typeDefs, remote.storeExtension.typeDefs],
    resolvers: [...localResolvers, remote.storeExtension.resolvers] as never,
  });
  const local = unwrapLocalFields(stitched, typeDefs, localResolvers);
  return withFieldPaths(withUnpagedListArrivals(local, callBounds()));
}
