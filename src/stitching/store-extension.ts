/**
 * The catalog and tax reads as fields of `Store`: every `Query` root field of a store-scoped
 * subgraph is also a field of `Store`, without the `storeId` argument (the store is the parent), so
 * `store(storeId: …) { sku(id: …) classification(id: …) transactions { … } }` is one query. Built
 * from the transformed subschemas, so the fields follow the snapshots and the collision renames.
 */
import {
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLResolveInfo,
} from 'graphql';
import { delegateToSchema, type Subschema } from '@graphql-tools/delegate';
import { astFromField } from '@graphql-tools/utils';
import type { GatewayContext } from '../kit/request-context.ts';
import type { RemoteSubgraph } from './remote-subgraphs.ts';
import { STORE_ID_ARGUMENT, subgraphScope } from './store-routing.ts';
import { rootFieldOrigin } from './subgraph-transforms.ts';

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

/**
 * `extend type Store { … }` plus its resolvers. A field name already on the local `Store` fails
 * start-up (the collision rule never picks silently).
 */
export function createStoreExtension(
  subschemas: readonly { subgraph: RemoteSubgraph; subschema: Subschema }[],
  localStoreFields: ReadonlySet<string>,
): StoreExtension {
  const fields: FieldDefinitionNode[] = [];
  const resolvers: Record<string, StoreFieldResolver> = {};
  for (const { subgraph, subschema } of subschemas) {
    if (!subgraph.storeScoped) continue;
    const schema = subschema.transformedSchema;
    const queryFields = schema.getQueryType()?.getFields() ?? {};
    for (const [name, field] of Object.entries(queryFields)) {
      if (localStoreFields.has(name) || resolvers[name] !== undefined) {
        throw new Error(`Name collision rule: Store.${name} is declared twice (${subgraph.name})`);
      }
      const node = astFromField(field, schema);
      // The root field's own description, its origin sentence replaced: here the store is known.
      const own = (field.description ?? '').replace(rootFieldOrigin(subgraph), '').trim();
      const from = `From the ${subgraph.name} subgraph, for this store.`;
      fields.push({
        ...node,
        description: { kind: Kind.STRING, value: own ? `${own}\n\n${from}` : from },
        arguments: node.arguments?.filter((arg) => arg.name.value !== STORE_ID_ARGUMENT),
      });
      resolvers[name] = (store, args, context, info) =>
        delegateToSchema({
          schema: subschema,
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
