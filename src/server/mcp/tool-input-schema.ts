/**
 * An MCP tool's input schema from its operation's variables (docs/agents.md "What an agent sees"):
 * one property per variable, as JSON Schema, so that an agent fills the arguments the operation
 * takes and nothing else. A non-null variable without a default is required; its description is the
 * SDL's description of the argument (or input field) it is passed to, and a `@range` on that
 * argument becomes the number's bounds. The GraphQL types map as their JSON values are written:
 * `Int` an integer, an enum its values, an input object its fields (recursively; a type met again
 * inside itself is left open), `DateTime` an RFC 3339 string, `JSON` any value.
 *
 * What the schema says is a guide for the agent: the values are checked by the operation pipeline
 * as for any GraphQL request (a value that does not fit its variable is refused naming it).
 */
import {
  Kind,
  TypeInfo,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { rangeOf, type Range } from '../demand-control/argument-ranges.ts';

/** A JSON Schema, as much of it as a tool's input needs. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The input schema of a tool: an object of its arguments. */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties: Record<string, JsonSchema>;
  readonly required?: string[];
  readonly additionalProperties: false;
  readonly [keyword: string]: unknown;
}

/**
 * Scalars whose JSON form is known (others are described by their SDL description alone): the same
 * in a tool's arguments and in its result (an ID is serialized as a string).
 */
export const SCALARS: Readonly<Record<string, JsonSchema>> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  ID: { type: 'string' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
};

/** What a variable's uses in the document say about it: the first description, the range. */
interface VariableUse {
  description?: string;
  range?: Range;
}

/** The description of the argument or input field each variable is first passed to. */
function usesOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): Map<string, VariableUse> {
  const uses = new Map<string, VariableUse>();
  const typeInfo = new TypeInfo(schema);
  // The operation, then every fragment: a fragment's variables are the operation's.
  const roots = [
    operation,
    ...document.definitions.filter((node) => node.kind === Kind.FRAGMENT_DEFINITION),
  ];
  for (const root of roots) {
    visit(
      root,
      visitWithTypeInfo(typeInfo, {
        Variable(node, _key, parent) {
          const name = node.name.value;
          if (uses.get(name)?.description !== undefined) return;
          const use: VariableUse = uses.get(name) ?? {};
          const holder = Array.isArray(parent) ? undefined : (parent as { kind?: Kind }).kind;
          if (holder === Kind.ARGUMENT) {
            const argument = typeInfo.getArgument();
            if (argument?.description) use.description = argument.description;
            const range = argument && rangeOf(schema, argument);
            if (range) use.range = range;
          } else if (holder === Kind.OBJECT_FIELD) {
            const parentType = typeInfo.getParentInputType();
            const field = isInputObjectType(parentType)
              ? parentType.getFields()[(parent as { name: { value: string } }).name.value]
              : undefined;
            if (field?.description) use.description = field.description;
          }
          uses.set(name, use);
        },
      }),
    );
  }
  return uses;
}

/** A variable whose type a tool cannot take (an upload), named for the start-up error. */
export class UnsupportedVariableError extends Error {
  override readonly name = 'UnsupportedVariableError';
}

/**
 * The JSON Schema of values of `type` (without its nullability: the caller says required); `at`
 * names where it is, for the error about an upload.
 */
function schemaOfType(type: GraphQLInputType, seen: ReadonlySet<string>, at: string): JsonSchema {
  if (isNonNullType(type)) return schemaOfType(type.ofType, seen, at);
  if (isListType(type)) return { type: 'array', items: schemaOfType(type.ofType, seen, at) };
  const named = getNamedType(type);
  const description = named.description ?? undefined;
  if (named.name === 'Upload') {
    throw new UnsupportedVariableError(`${at} is an Upload: a file cannot be an MCP tool argument`);
  }
  if (isScalarType(named)) {
    const known = SCALARS[named.name];
    return known ?? (description ? { description } : {});
  }
  if (isEnumType(named)) {
    return {
      type: 'string',
      enum: named.getValues().map((value) => value.name),
      ...(description ? { description } : {}),
    };
  }
  // An input object inside itself: left open rather than unrolled without end.
  if (seen.has(named.name)) return { type: 'object', ...(description ? { description } : {}) };
  const inside = new Set([...seen, named.name]);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(named.getFields())) {
    properties[field.name] = {
      ...schemaOfType(field.type, inside, `${at}.${field.name}`),
      ...(field.description ? { description: field.description } : {}),
    };
    if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(description ? { description } : {}),
  };
}

/** The input schema of `operation` of `document`. */
export function toolInputSchema(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): ToolInputSchema {
  const uses = usesOf(schema, document, operation);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    // Validation against the schema ran before: an unknown type cannot reach here.
    if (!type) throw new UnsupportedVariableError(`$${name} has a type the graph does not know`);
    const use = uses.get(name);
    const defaultValue =
      definition.defaultValue === undefined
        ? undefined
        : valueFromAST(definition.defaultValue, type);
    properties[name] = {
      ...schemaOfType(type, new Set(), `$${name}`),
      ...(use?.description ? { description: use.description } : {}),
      ...(use?.range?.min !== undefined ? { minimum: use.range.min } : {}),
      ...(use?.range?.max !== undefined ? { maximum: use.range.max } : {}),
      ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    };
    if (isNonNullType(type) && definition.defaultValue === undefined) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
