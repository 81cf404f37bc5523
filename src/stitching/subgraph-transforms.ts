/**
 * The transforms between a subgraph's own schema and what the graph shows of it: the collision
 * renames, the added `storeId` argument of the store-scoped subgraphs, the origin of each root
 * field in its description, and money-input descriptions.
 */
import {
  BREAK,
  GraphQLID,
  GraphQLInputObjectType,
  visit,
  type ASTNode,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { Transform } from '@graphql-tools/delegate';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { RenameTypes, TransformRootFields } from '@graphql-tools/wrap';
import type { SubgraphRenames } from './name-collisions.ts';
import type { RemoteSubgraph } from './remote-subgraphs.ts';
import { STORE_ID_ARGUMENT } from './store-routing.ts';

/**
 * The type renames of name-collisions.ts as a stitching transform (none when the subgraph has none:
 * each transform rebuilds the whole schema at start-up). Root fields are renamed by
 * {@link rootFieldsTransform}, in the same pass as their other changes.
 */
export function typeRenameTransforms(renames: SubgraphRenames): Transform[] {
  return renames.types.size === 0
    ? []
    : [new RenameTypes((name) => renames.types.get(name) ?? name)];
}

/** The sentence that ends a stitched root field's description: where its answer comes from. */
export function rootFieldOrigin(subgraph: Pick<RemoteSubgraph, 'name' | 'storeScoped'>): string {
  return subgraph.storeScoped
    ? `From the ${subgraph.name} subgraph of the store given by \`storeId\` (or the X-Store-Id header).`
    : `From the ${subgraph.name} subgraph.`;
}

const STORE_ID_DESCRIPTION =
  'The store (a uuid). Defaults to the `X-Store-Id` request header; without either, the field ' +
  'fails with BAD_USER_INPUT before any upstream call.';

/**
 * One pass over the root fields (each pass rebuilds the schema, and start-up pays for every one):
 * the collision renames of name-collisions.ts (`node` → `catalogNode`); every description ends with
 * the field's origin ({@link rootFieldOrigin}), after the subgraph's own description when it has one,
 * so a client reading the explorer knows which service answers and that a store is needed; a
 * store-scoped subgraph's fields get `storeId: ID`, which never reaches the subgraph (the proxying
 * resolver takes it out of the arguments and routes the call with it).
 */
export function rootFieldsTransform(subgraph: RemoteSubgraph, renames: SubgraphRenames): Transform {
  const origin = rootFieldOrigin(subgraph);
  return new TransformRootFields((operation, fieldName, fieldConfig) => {
    if (subgraph.storeScoped && fieldConfig.args?.[STORE_ID_ARGUMENT]) {
      throw new Error(
        `${subgraph.name} ${operation}.${fieldName} already has a \`${STORE_ID_ARGUMENT}\` argument`,
      );
    }
    const config = {
      ...fieldConfig,
      description: fieldConfig.description ? `${fieldConfig.description}\n\n${origin}` : origin,
      ...(subgraph.storeScoped
        ? {
            args: {
              ...fieldConfig.args,
              [STORE_ID_ARGUMENT]: { type: GraphQLID, description: STORE_ID_DESCRIPTION },
            },
          }
        : {}),
    };
    const renamed = renames.rootFields.get(operation)?.get(fieldName);
    return renamed === undefined ? config : [renamed, config];
  });
}

/** Money inputs of the subgraphs by original type name → the integer field in minor units. */
const MONEY_INPUTS: Readonly<Record<string, string>> = {
  SimpleMoneyInput: 'value',
  CalculateTaxLineInput: 'amount',
};

const MINOR_UNITS =
  'Integer amount in minor currency units: 1999 is 19.99 in a two-decimal currency ' +
  '(1999 JPY is ¥1999; KWD has three decimals).';

/**
 * States on every money input that amounts are in minor units (the document: "1999 stands for 19.99
 * in a two-decimal currency"), whatever the snapshot's own descriptions say. Schema-only: the
 * request and the result pass unchanged.
 */
export function moneyInputDescriptionsTransform(): Transform {
  return {
    transformSchema: (schema: GraphQLSchema) =>
      mapSchema(schema, {
        [MapperKind.INPUT_OBJECT_TYPE]: (type) => {
          const field = MONEY_INPUTS[type.name];
          if (field === undefined) return type;
          const config = type.toConfig();
          const target = config.fields[field];
          if (target === undefined) return type;
          const description =
            type.name === 'SimpleMoneyInput' && !/minor/i.test(config.description ?? '')
              ? 'An amount in minor currency units (1999 = 19.99 in a two-decimal currency).'
              : config.description;
          return new GraphQLInputObjectType({
            ...config,
            description,
            fields: { ...config.fields, [field]: { ...target, description: MINOR_UNITS } },
          });
        },
      }),
  };
}

/** The directives a subgraph never sees (it answers in one piece). */
const INCREMENTAL = new Set(['defer', 'stream']);

/**
 * Whether the client's operation (or a fragment it sends) uses `@defer` or `@stream`, per parsed
 * operation.
 */
const incrementalByOperation = new WeakMap<GraphQLResolveInfo['operation'], boolean>();
function clientAsksForParts(info: GraphQLResolveInfo | undefined): boolean {
  if (!info) return false;
  let known = incrementalByOperation.get(info.operation);
  if (known === undefined) {
    known = false;
    const nodes: ASTNode[] = [info.operation, ...Object.values(info.fragments)];
    for (const node of nodes) {
      visit(node, {
        Directive(directive) {
          if (!INCREMENTAL.has(directive.name.value)) return undefined;
          known = true;
          return BREAK;
        },
      });
      if (known) break;
    }
    incrementalByOperation.set(info.operation, known);
  }
  return known;
}

/**
 * A subgraph answers in one piece: a `@defer` or a `@stream` inside a stitched field's selection is
 * taken out of the subgraph's request, so its fields and all the list's items are asked for with the
 * rest, and the gateway delivers that fragment, or the list's later items, in later parts from the
 * one answer (docs/clients.md "Incremental delivery"). Left in, a `@defer` would make the delegation
 * drop the deferred fields from the request, expecting to fetch them in a later call that a subgraph
 * without merged types never gets — and answer them null; a `@stream` on a subgraph's root list would
 * reach a subgraph that does not know it. Costs a lookup per delegation (the client's operation
 * walked once) and a walk of the subgraph request only when the client asks for parts.
 */
export function wholeSubgraphAnswerTransform(): Transform {
  return {
    transformRequest(request, delegationContext) {
      if (!clientAsksForParts(delegationContext.info)) return request;
      const document = visit(request.document, {
        Directive: (directive) => (INCREMENTAL.has(directive.name.value) ? null : undefined),
      });
      return { ...request, document };
    },
  };
}
