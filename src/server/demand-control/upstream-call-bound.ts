/**
 * The upstream-call bound of an operation (docs/budget.md): how many upstream calls executing it can
 * make at most with an empty cache, computed from the document, its variables and the fields'
 * declarations (`kit/call-bounds.ts`) before anything is spent. The walk:
 *
 * - every field selected (fragments expanded, `@skip`/`@include` applied with the variables and
 *   their defaults) is resolved once per parent object: its declaration's calls count once per
 *   parent — or once per batch of parents, or once per request, as the field's loader does them;
 * - a list multiplies the parents below it by its items (the field's declared `items`, or those of
 *   the connection right above it); a list whose items nobody declared, with calls below it, has no
 *   bound (Infinity) — the declarations test keeps that from happening;
 * - on an abstract type, each field counts as the costliest of the types that may answer it, and the
 *   branches of a union's fragments all count (a bound, not a guess);
 * - an unpaged list counts its assumed maximum until its real length is given (`lengths`).
 */
import {
  Kind,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isListType,
  isObjectType,
  isInterfaceType,
  valueFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import {
  countOf,
  type CallBoundDeclarations,
  type FieldArgs,
  type FieldCallBound,
} from '../../kit/call-bounds.ts';
import { coercedVariableValues } from '../variable-values.ts';

export interface UpstreamCallBound {
  /** Upstream calls the operation can make at most (Infinity: unbounded). */
  readonly calls: number;
  /** The same, by field (`Type.field`), for the error and the ledger: the largest first. */
  readonly byField: readonly { readonly field: string; readonly calls: number }[];
  /**
   * The unpaged lists (`Type.field`) whose assumed length multiplies calls below them: their
   * real lengths, once arrived, give a tighter bound (`lengths` of {@link upstreamCallBound}).
   */
  readonly unpaged: readonly string[];
}

/** Lengths of unpaged lists by `Type.field`: known ones replace the assumed maximum. */
export type ListLengths = ReadonlyMap<string, number>;

interface Walk {
  readonly schema: GraphQLSchema;
  readonly declarations: CallBoundDeclarations;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly variables: Readonly<Record<string, unknown>>;
  /** Calls by field. */
  readonly byField: Map<string, number>;
  /** Fields answered once per request, already counted (by field and arguments). */
  readonly once: Set<string>;
  readonly lengths: ListLengths;
  /** Unpaged lists whose assumed length multiplied calls below them. */
  readonly unpaged: Set<string>;
}

function included(node: SelectionNode, variables: Readonly<Record<string, unknown>>): boolean {
  const skip = getDirectiveValues(GraphQLSkipDirective, node, variables);
  if (skip?.['if'] === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, variables);
  return include?.['if'] !== false;
}

/** The object types that may answer a field selected on `parent`. */
function answeringTypes(
  schema: GraphQLSchema,
  parent: GraphQLNamedType,
): readonly GraphQLObjectType[] {
  if (isObjectType(parent)) return [parent];
  if (isAbstractType(parent)) return schema.getPossibleTypes(parent);
  return [];
}

/** The declaration that makes the most calls among the types that may answer the field. */
function costliest(
  walk: Walk,
  parent: GraphQLNamedType,
  name: string,
  args: FieldArgs,
): { key: string; bound: FieldCallBound } | undefined {
  let found: { key: string; bound: FieldCallBound; calls: number } | undefined;
  for (const type of answeringTypes(walk.schema, parent)) {
    const key = `${type.name}.${name}`;
    const bound = walk.declarations[key];
    if (!bound) continue;
    const calls = countOf(bound.calls, args);
    if (
      !found ||
      calls > found.calls ||
      (calls === found.calls && bound.items && !found.bound.items)
    )
      found = { key, bound, calls };
  }
  return found;
}

function fieldOf(
  parent: GraphQLNamedType,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}

/** Calls of one field for `parents` parent objects. */
function callsFor(
  walk: Walk,
  key: string,
  bound: FieldCallBound,
  args: FieldArgs,
  parents: number,
) {
  const calls = countOf(bound.calls, args);
  if (calls === 0 || parents === 0 || Number.isNaN(parents)) return 0;
  if (bound.oncePerRequest) {
    const once = `${key}(${JSON.stringify(args)})`;
    if (walk.once.has(once)) return 0;
    walk.once.add(once);
    return calls;
  }
  if (bound.batchSize !== undefined) return Math.ceil(parents / bound.batchSize) * calls;
  return parents * calls;
}

/**
 * Calls below a selection set resolved for `parents` objects of `parent`. `connectionItems`: the
 * items a connection right above declared, for the first list below it.
 */
function walkSelections(
  walk: Walk,
  set: SelectionSetNode,
  parent: GraphQLNamedType,
  parents: number,
  connectionItems: number | undefined,
  /** The groups these parents already hold or have counted (fragments share them). */
  loaded: Set<string>,
): number {
  let total = 0;
  for (const selection of set.selections) {
    if (!included(selection, walk.variables)) continue;
    if (selection.kind === Kind.FIELD) {
      total += walkField(walk, selection, parent, parents, connectionItems, loaded);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition
        ? (walk.schema.getType(selection.typeCondition.name.value) ?? parent)
        : parent;
      total += walkSelections(walk, selection.selectionSet, on, parents, connectionItems, loaded);
    } else {
      const fragment = walk.fragments.get(selection.name.value);
      if (!fragment) continue;
      const on = walk.schema.getType(fragment.typeCondition.name.value) ?? parent;
      total += walkSelections(walk, fragment.selectionSet, on, parents, connectionItems, loaded);
    }
  }
  return total;
}

function walkField(
  walk: Walk,
  node: FieldNode,
  parent: GraphQLNamedType,
  parents: number,
  connectionItems: number | undefined,
  loaded: Set<string>,
): number {
  const name = node.name.value;
  const definition = fieldOf(parent, name);
  if (!definition) return 0; // __typename, or a field the validation already refused
  const args = argumentsOf(definition, node, walk.variables);
  const declared = costliest(walk, parent, name, args);
  let total = 0;
  const group = declared?.bound.group;
  // A group these parents hold, or that a field beside this one already counted, costs nothing.
  const shared = group !== undefined && loaded.has(group);
  if (group !== undefined) loaded.add(group);
  if (declared && !shared) {
    const calls = callsFor(walk, declared.key, declared.bound, args, parents);
    if (calls > 0) {
      walk.byField.set(declared.key, (walk.byField.get(declared.key) ?? 0) + calls);
      total += calls;
    }
  }
  if (!node.selectionSet) return total;
  const known = declared?.bound.unpaged ? walk.lengths.get(declared.key) : undefined;
  const items =
    known ??
    (declared?.bound.items === undefined ? undefined : countOf(declared.bound.items, args));
  const type = getNullableType(definition.type);
  let below = parents;
  let pending: number | undefined = connectionItems;
  if (isListType(type)) {
    // The list's own items, or the connection's above it: each item is a parent below.
    const size = items ?? connectionItems;
    below = size === undefined ? Infinity : parents * size;
    pending = undefined;
  } else if (items !== undefined) {
    // A connection: its items size the first list below it (edges, nodes).
    pending = items;
  }
  const named = getNamedType(definition.type);
  // A list of unknown size with nothing that calls below it is free: its walk adds 0, not 0 × ∞.
  const provides = declared?.bound.provides;
  const held = new Set<string>(provides === undefined ? [] : [provides]);
  const calls = walkSelections(walk, node.selectionSet, named, below, pending, held);
  if (declared?.bound.unpaged && known === undefined && calls > 0) walk.unpaged.add(declared.key);
  return total + calls;
}

/**
 * A field's arguments as execution will see them. Without the variables (a build-time check of a
 * document, `npm run cost`), an argument given by a missing variable is left out: its declaration
 * then assumes the documented maximum.
 */
function argumentsOf(
  definition: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Readonly<Record<string, unknown>>,
): FieldArgs {
  try {
    return getArgumentValues(definition, node, variables) as FieldArgs;
  } catch {
    const args: Record<string, unknown> = {};
    for (const argument of node.arguments ?? []) {
      const declared = definition.args.find((arg) => arg.name === argument.name.value);
      if (!declared) continue;
      const value = valueFromAST(argument.value, declared.type, variables);
      if (value !== undefined) args[declared.name] = value;
    }
    return args;
  }
}

/**
 * The bound of one operation of `document` with these variables (the request's own: defaults are
 * applied here, as execution applies them).
 */
export function upstreamCallBound(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  declarations: CallBoundDeclarations,
  lengths: ListLengths = new Map(),
): UpstreamCallBound {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  const root =
    operation.operation === 'query'
      ? schema.getQueryType()
      : operation.operation === 'mutation'
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  if (!root) return { calls: 0, byField: [], unpaged: [] };
  const walk: Walk = {
    schema,
    declarations,
    fragments,
    variables: coercedVariableValues(schema, operation, variables),
    byField: new Map(),
    once: new Set(),
    lengths,
    unpaged: new Set(),
  };
  const calls = walkSelections(walk, operation.selectionSet, root, 1, undefined, new Set());
  const byField = [...walk.byField]
    .map(([field, count]) => ({ field, calls: count }))
    .sort((a, b) => b.calls - a.calls);
  return { calls, byField, unpaged: [...walk.unpaged] };
}
