/**
 * The remote subschemas of the stitched graph, built from the checked-in SDL snapshots under
 * schema/remote/ (start-up never introspects the upstream; `npm run schema:pull` refreshes them).
 *
 * Each subschema: the snapshot, the collision renames, for catalog and tax the added `storeId`
 * argument and store routing, an executor through the upstream client, and `batch: true` so that
 * sibling fields bound for one subgraph (and one store) leave as ONE upstream request.
 */
import type { DocumentNode, GraphQLResolveInfo } from 'graphql';
import { Subschema, delegateToSchema, type SubschemaConfig } from '@graphql-tools/delegate';
import type { GatewayContext } from '../kit/request-context.ts';
import { localNames, planRenames } from './name-collisions.ts';
import { REMOTE_SUBGRAPHS, type RemoteSubgraph } from './remote-subgraphs.ts';
import { snapshotSchema } from './remote-snapshots.ts';
import { createStoreExtension, STORE_TYPE, type StoreExtension } from './store-extension.ts';
import { STORE_ID_ARGUMENT, resolveStoreId, subgraphScope } from './store-routing.ts';
import { createSubgraphExecutor } from './subgraph-executor.ts';
import {
  moneyInputDescriptionsTransform,
  rootFieldsTransform,
  typeRenameTransforms,
  wholeSubgraphAnswerTransform,
} from './subgraph-transforms.ts';

/** What the gateway schema stitches in from the subgraphs. */
export interface RemoteSubschemas {
  readonly subschemas: readonly Subschema[];
  /** `Store` fields for the catalog and tax reads (store-extension.ts). */
  readonly storeExtension: StoreExtension;
}

type ProxyingResolverFactory = NonNullable<SubschemaConfig['createProxyingResolver']>;

/**
 * Root fields of a subgraph: route to the store (catalog, tax) or to the global scope (order), and
 * delegate without the added `storeId` argument.
 */
const proxyingResolver =
  (subgraph: RemoteSubgraph): ProxyingResolverFactory =>
  ({ subschemaConfig, operation }) =>
  (_root: unknown, args: Record<string, unknown>, context: object, info: GraphQLResolveInfo) => {
    // Stitching types the context loosely; the gateway's is always a GatewayContext.
    const gateway = context as GatewayContext;
    if (!subgraph.storeScoped) {
      return delegateToSchema({
        schema: subschemaConfig,
        operation,
        args,
        context: subgraphScope(gateway, null),
        info,
      });
    }
    const { [STORE_ID_ARGUMENT]: storeArgument, ...rest } = args;
    const storeId = resolveStoreId(storeArgument, gateway);
    return delegateToSchema({
      schema: subschemaConfig,
      operation,
      args: rest,
      context: subgraphScope(gateway, storeId),
      info,
    });
  };

/** Builds the three subschemas and the `Store` extension against the local SDL. */
export function createRemoteSubschemas(
  localTypeDefs: readonly (string | DocumentNode)[],
): RemoteSubschemas {
  // Built once per process, shared with the call bounds (remote-snapshots.ts).
  const snapshots = REMOTE_SUBGRAPHS.map((subgraph) => ({
    subgraph,
    schema: snapshotSchema(subgraph),
  }));
  const local = localNames(localTypeDefs);
  const plan = planRenames(local, snapshots);

  const built = snapshots.map(({ subgraph, schema }) => {
    const renames = plan.get(subgraph.name);
    if (!renames) throw new Error(`no renames planned for ${subgraph.name}`);
    const subschema = new Subschema({
      name: subgraph.name,
      schema,
      executor: createSubgraphExecutor(subgraph),
      batch: true,
      createProxyingResolver: proxyingResolver(subgraph),
      transforms: [
        moneyInputDescriptionsTransform(),
        ...typeRenameTransforms(renames),
        rootFieldsTransform(subgraph, renames),
        wholeSubgraphAnswerTransform(),
      ],
    });
    return { subgraph, subschema, renames };
  });

  return {
    subschemas: built.map(({ subschema }) => subschema),
    storeExtension: createStoreExtension(built, local.objectFields.get(STORE_TYPE) ?? new Set()),
  };
}
