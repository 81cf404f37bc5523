/**
 * An MCP tool's output schema from its operation's selections (docs/agents.md "Results"): the shape
 * of the GraphQL `data` it answers, as JSON Schema — one property per response key (aliases
 * included), each field's type and SDL description, `null` allowed where the graph allows it — so
 * an agent (and the SDK's client, which validates every result against it) knows what comes back
 * before it calls.
 *
 * A field is required where the answer always holds it: selected on its parent's own type, without
 * `@skip`/`@include`; a fragment on a narrower type adds its fields as optional. The schema's root
 * also names what a tool error holds instead of data (`errors`, `budget`: `tool-results.ts`), so
 * its root fields are not required: an error result has none of them.
 */
import {
  Kind,
  getNamedType,
  getNullableType,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  isScalarType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { SCALARS, type JsonSchema } from './tool-input-schema.ts';

/** The output schema of a tool: the data's object, beside what an error result holds. */
export interface ToolOutputSchema {
  readonly type: 'object';
  readonly properties: Record<string, JsonSchema>;
  readonly [keyword: string]: unknown;
}

/** What a tool error holds (`tool-results.ts`): the GraphQL errors, and the budget beside them. */
const ERROR_PROPERTIES: Readonly<Record<string, JsonSchema>> = {
  errors: {
    type: 'array',
    description:
      "A tool error's GraphQL errors: `message`, `extensions.code` (docs/errors.md) and its details.",
    items: { type: 'object' },
  },
  budget: {
    type: 'object',
    description: "The credential's window beside a RATE_LIMITED error.",
    properties: {
      limit: { type: 'integer' },
      remaining: { type: 'integer' },
      resetSec: { type: 'integer' },
      writeReserve: { type: 'integer' },
    },
  },
};

/** `schema` or null. */
function orNull(schema: JsonSchema): JsonSchema {
  const { type } = schema as { type?: unknown };
  // No type: any value, null included.
  if (type === undefined && !('enum' in schema)) return schema;
  if (typeof type === 'string' && !('enum' in schema)) return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

interface Walk {
  readonly schema: GraphQLSchema;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

/** The object schema of a selection set on `parent`. */
function objectOf(walk: Walk, set: SelectionSetNode, parent: GraphQLNamedType): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  collect(walk, set, parent, parent, true, properties, required);
  return {
    type: 'object',
    properties,
    ...(required.size > 0 ? { required: [...required] } : {}),
  };
}

/** Adds the fields of `set`, selected on `on` inside an object of `parent`, to the object's schema. */
function collect(
  walk: Walk,
  set: SelectionSetNode,
  parent: GraphQLNamedType,
  on: GraphQLNamedType,
  always: boolean,
  properties: Record<string, JsonSchema>,
  required: Set<string>,
): void {
  for (const selection of set.selections) {
    const conditional = (selection.directives ?? []).some((directive) =>
      ['skip', 'include'].includes(directive.name.value),
    );
    const present = always && !conditional;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      if (selection.name.value === '__typename') {
        properties[key] ??= { type: 'string' };
      } else {
        const field =
          isObjectType(on) || isInterfaceType(on)
            ? on.getFields()[selection.name.value]
            : undefined;
        if (!field) continue;
        properties[key] ??= {
          ...valueOf(walk, field.type, selection.selectionSet),
          ...(field.description ? { description: field.description } : {}),
        };
      }
      if (present) required.add(key);
      continue;
    }
    const condition =
      selection.kind === Kind.INLINE_FRAGMENT
        ? selection.typeCondition?.name.value
        : walk.fragments.get(selection.name.value)?.typeCondition.name.value;
    const fragmentSet =
      selection.kind === Kind.INLINE_FRAGMENT
        ? selection.selectionSet
        : walk.fragments.get(selection.name.value)?.selectionSet;
    if (!fragmentSet) continue;
    const narrowed = condition === undefined ? on : (walk.schema.getType(condition) ?? on);
    // A fragment on the parent's own type (or on an abstract type it belongs to) always applies.
    const applies =
      narrowed === parent ||
      (isObjectType(parent) && isAbstractType(narrowed) && walk.schema.isSubType(narrowed, parent));
    collect(walk, fragmentSet, parent, narrowed, present && applies, properties, required);
  }
}

/** The schema of a field's value of `type`, with its selections. */
function valueOf(
  walk: Walk,
  type: GraphQLOutputType,
  selections: SelectionSetNode | undefined,
): JsonSchema {
  const inner = (): JsonSchema => {
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      return { type: 'array', items: valueOf(walk, nullable.ofType, selections) };
    }
    const named = getNamedType(nullable);
    if (isScalarType(named)) {
      return SCALARS[named.name] ?? (named.description ? { description: named.description } : {});
    }
    if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((v) => v.name) };
    return selections ? objectOf(walk, selections, named) : { type: 'object' };
  };
  return isNonNullType(type) ? inner() : orNull(inner());
}

/** The output schema of `operation`; undefined when a root key would hide an error result's. */
export function toolOutputSchema(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): ToolOutputSchema | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const root =
    operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) return undefined;
  const data = objectOf({ schema, fragments }, operation.selectionSet, root);
  const properties = data['properties'] as Record<string, JsonSchema>;
  if (Object.keys(ERROR_PROPERTIES).some((key) => key in properties)) return undefined;
  return { type: 'object', properties: { ...properties, ...ERROR_PROPERTIES } };
}
