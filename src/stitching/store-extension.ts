/**
 * The catalog and tax reads as fields of `Store`: every `Query` root field of a store-scoped
 * subgraph is also a field of `Store`, without the `storeId` argument (the store is the parent), so
 * `store(storeId: …) { sku(id: …) classification(id: …) transactions { … } }` is one query.
 *
 * Built from the snapshot's own fields with the collision renames of its types and root fields
 * (name-collisions.ts) — what the subschema's transforms show of them — rather than from the
 * transformed subschema: transforming a whole subgraph schema once more only to read its root
 * fields was a tenth of start-up; stitching transforms each subgraph once, and these fields delegate
 * to that subschema (the public-schema test holds the result to the graph served before).
 */
import {
  Kind,
  OperationTypeNode,
  visit,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLResolveInfo,
} from 'graphql';
import { delegateToSchema, type StitchingInfo, type Subschema } from '@graphql-tools/delegate';
import { astFromField } from '@graphql-tools/utils';
import type { GatewayContext } from '../kit/request-context.ts';
import type { SubgraphRenames } from './name-collisions.ts';
import type { RemoteSubgraph } from './remote-subgraphs.ts';
import { subgraphScope } from './store-routing.ts';

/** The name of the local type the fields are added to. */
export const STORE_TYPE = 'Store';

type StoreFieldResolver = (
  store: { storeId: string },
  args: Record<string, unknown>,
  context: GatewayContext,
  info: GraphQLResolveInfo,
) => unknown;

/** SDL and resolvers of the `Store` fields that read the catalog and tax subgraphs. */
export interface StoreExtension {
  readonly typeDefs: DocumentNode;
  readonly resolvers: { Store: Record<string, StoreFieldResolver> };
}

/** The subschema as stitching holds it (transformed at start-up), as its root fields delegate. */
function stitchedSubschema(info: GraphQLResolveInfo, subschema: Subschema): Subschema {
  const stitching = info.schema.extensions['stitchingInfo'] as StitchingInfo | undefined;
  return stitching?.subschemaMap.get(subschema) ?? subschema;
}

/**
 * `extend type Store { … }` plus its resolvers. A field name already on the local `Store` fails
 * start-up (the collision rule never picks silently).
 */
export function createStoreExtension(
  subschemas: readonly {
    subgraph: RemoteSubgraph;
    subschema: Subschema;
    renames: SubgraphRenames;
  }[],
  localStoreFields: ReadonlySet<string>,
): StoreExtension {
  const fields: FieldDefinitionNode[] = [];
  const resolvers: Record<string, StoreFieldResolver> = {};
  for (const { subgraph, subschema, renames } of subschemas) {
    if (!subgraph.storeScoped) continue;
    // The snapshot itself: its root fields carry neither the added `storeId` nor the origin sentence.
    const snapshot = subschema.schema;
    const renamedFields = renames.rootFields.get('Query');
    const queryFields = snapshot.getQueryType()?.getFields() ?? {};
    for (const [ownName, field] of Object.entries(queryFields)) {
      const name = renamedFields?.get(ownName) ?? ownName;
      if (localStoreFields.has(name) || resolvers[name] !== undefined) {
        throw new Error(`Name collision rule: Store.${name} is declared twice (${subgraph.name})`);
      }
      const node = visit(astFromField(field, snapshot), {
        NamedType: (type) => {
          const renamed = renames.types.get(type.name.value);
          return renamed === undefined
            ? undefined
            : { ...type, name: { ...type.name, value: renamed } };
        },
      });
      // The root field's own description; here the store is known.
      const own = (field.description ?? '').trim();
      const from = `From the ${subgraph.name} subgraph, for this store.`;
      fields.push({
        ...node,
        name: { ...node.name, value: name },
        description: { kind: Kind.STRING, value: own ? `${own}\n\n${from}` : from },
      });
      resolvers[name] = (store, args, context, info) =>
        delegateToSchema({
          schema: stitchedSubschema(info, subschema),
          operation: OperationTypeNode.QUERY,
          fieldName: name,
          args,
          context: subgraphScope(context, store.storeId),
          info,
        });
    }
  }
  return {
    typeDefs: {
      kind: Kind.DOCUMENT,
      definitions:
        fields.length === 0
          ? []
          : [
              {
                kind: Kind.OBJECT_TYPE_EXTENSION,
                name: { kind: Kind.NAME, value: STORE_TYPE },
                fields,
              },
            ],
    },
    resolvers: { Store: resolvers },
  };
}
