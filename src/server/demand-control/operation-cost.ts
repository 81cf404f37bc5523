/**
 * Cost analysis: an estimate of how many objects an operation makes the gateway resolve, which is
 * what turns into upstream calls (docs/security.md). The model:
 *
 * - a field whose type is an object, interface or union costs 1; a scalar or enum field costs 0;
 * - a list field multiplies its cost (its own and its selections') by its size: the `first`, `last`,
 *   `limit`, `pageSize` or `lines` argument (literal, variable, or schema default), else the
 *   configured default list size;
 * - a size argument on a field that is not itself a list (a connection such as
 *   `certificates(first: 50) { edges { … } }`, or `deployments(limit:)`, `logs(lines:)`) sizes the
 *   lists directly below it instead;
 * - introspection lists (`types`, `fields`, … on the `__*` types) count one entry: they are answered
 *   from memory, and graphql-js's MaxIntrospectionDepthRule plus the depth limit bound their nesting.
 *   Instead `__schema` itself costs one per type in the schema (answering it walks all of them), and
 *   every introspection object still costs 1: the standard introspection query passes, while asking
 *   for the whole schema many times over in one document does not.
 *
 * Fragments are expanded as execution would; each (fragment, inherited size) pair is computed once.
 */
import {
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { numberGiven } from './int-argument.ts';

/** Arguments that say how many entries a list (or the lists of a connection) holds. */
export const SIZE_ARGUMENTS: readonly string[] = ['first', 'last', 'limit', 'pageSize', 'lines'];

/** Options of {@link operationCost}. */
export interface CostOptions {
  readonly defaultListSize: number;
}

type FieldDefinition = GraphQLField<unknown, unknown>;

function fieldDefinition(
  schema: GraphQLSchema,
  parent: GraphQLNamedType,
  name: string,
): FieldDefinition | undefined {
  if (name === '__schema' && parent === schema.getQueryType()) return SchemaMetaFieldDef;
  if (name === '__type' && parent === schema.getQueryType()) return TypeMetaFieldDef;
  if (isObjectType(parent) || isInterfaceType(parent)) return parent.getFields()[name];
  return undefined;
}

/**
 * Types per schema, counted once: listing the stitched schema's type map on every operation showed
 * in miss profiles.
 */
const typeCounts = new WeakMap<GraphQLSchema, number>();
function typeCountOf(schema: GraphQLSchema): number {
  let count = typeCounts.get(schema);
  if (count === undefined) {
    count = Object.keys(schema.getTypeMap()).length;
    typeCounts.set(schema, count);
  }
  return count;
}

/** The largest size argument a field was given (or defaults to in the schema), if any. */
function sizeOfField(
  node: FieldNode,
  definition: FieldDefinition,
  variables: Readonly<Record<string, unknown>>,
  operation: OperationDefinitionNode,
): number | undefined {
  let size: number | undefined;
  for (const argument of definition.args) {
    if (!SIZE_ARGUMENTS.includes(argument.name)) continue;
    const given = node.arguments?.find((a) => a.name.value === argument.name);
    const value = given
      ? numberGiven(given.value, variables, operation)
      : typeof argument.defaultValue === 'number'
        ? argument.defaultValue
        : undefined;
    if (value !== undefined && Number.isFinite(value)) {
      size = Math.max(size ?? 0, Math.max(0, Math.ceil(value)));
    }
  }
  return size;
}

/**
 * The estimated cost of one operation of a validated document. `variables` are the request's raw
 * variables (a size given as a variable counts with its value).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
  options: CostOptions,
): number {
  const vars = variables ?? {};
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  const typeCount = typeCountOf(schema);
  const memo = new Map<string, number>();
  const inProgress = new Set<string>();

  function fieldCost(node: FieldNode, parent: GraphQLNamedType, inheritedSize?: number): number {
    const definition = fieldDefinition(schema, parent, node.name.value);
    if (!definition) return 0; // __typename, or a field validation already refused
    const named = getNamedType(definition.type);
    const isList = isListType(getNullableType(definition.type));
    const size = sizeOfField(node, definition, vars, operation);
    const introspectionList = isList && parent.name.startsWith('__');
    const multiplier = !isList
      ? 1
      : introspectionList
        ? 1
        : (size ?? inheritedSize ?? options.defaultListSize);
    const own = definition === SchemaMetaFieldDef ? typeCount : isCompositeType(named) ? 1 : 0;
    const below = node.selectionSet
      ? selectionCost(node.selectionSet, named, isList ? undefined : size)
      : 0;
    return multiplier * (own + below);
  }

  function fragmentCost(name: string, inheritedSize?: number): number {
    const key = `${name}\u0000${inheritedSize ?? ''}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (!fragment || inProgress.has(key)) return 0;
    const type = schema.getType(fragment.typeCondition.name.value);
    if (!type) return 0;
    inProgress.add(key);
    const cost = selectionCost(fragment.selectionSet, type, inheritedSize);
    inProgress.delete(key);
    memo.set(key, cost);
    return cost;
  }

  function selectionCost(
    selectionSet: SelectionSetNode,
    parent: GraphQLNamedType,
    inheritedSize?: number,
  ): number {
    let total = 0;
    for (const selection of selectionSet.selections) {
      switch (selection.kind) {
        case Kind.FIELD:
          total += fieldCost(selection, parent, inheritedSize);
          break;
        case Kind.INLINE_FRAGMENT: {
          const condition = selection.typeCondition
            ? schema.getType(selection.typeCondition.name.value)
            : parent;
          if (condition) total += selectionCost(selection.selectionSet, condition, inheritedSize);
          break;
        }
        case Kind.FRAGMENT_SPREAD:
          total += fragmentCost(selection.name.value, inheritedSize);
          break;
      }
    }
    return total;
  }

  const root = schema.getRootType(operation.operation);
  return root ? selectionCost(operation.selectionSet, root) : 0;
}
