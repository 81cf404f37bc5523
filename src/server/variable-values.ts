/**
 * Variable values checked against their declared types before execution, with messages that name
 * the variable, the path inside it and the expected type — and never the value. graphql-js's own
 * coercion messages quote the value (`Variable "$token" got invalid value "…"`), which would put a
 * client's secret into a response, a log line or a trace; these checks run first, so graphql-js
 * only ever coerces values that pass.
 */
import {
  coerceInputValue,
  getVariableValues,
  GraphQLError,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { ErrorCode } from '../errors/error-codes.ts';

/** Enough to fix a request; more would only repeat the same mistake. */
const MAX_PROBLEMS = 5;

/** graphql-js's inner messages that name only schema things (fields, types), never values. */
const VALUE_FREE_REASONS = [
  /^Field "[^"]{1,64}" of required type "[^"]{1,128}" was not provided\.$/,
  /^Field "[^"]{1,64}" is not defined by type "[^"]{1,128}"\./,
  /^Expected type "[^"]{1,128}" to be an object\.$/,
];

/** The input type found by following `path` (field names and list indexes) into `type`. */
function typeAt(type: GraphQLInputType, path: readonly (string | number)[]): GraphQLInputType {
  let current = type;
  for (const segment of path) {
    const nullable = isNonNullType(current) ? current.ofType : current;
    if (typeof segment === 'number' && isListType(nullable)) current = nullable.ofType;
    else if (typeof segment === 'string' && isInputObjectType(nullable)) {
      const field = nullable.getFields()[segment];
      if (!field) return current;
      current = field.type;
    } else return current;
  }
  return current;
}

const printPath = (path: readonly (string | number)[]): string =>
  path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`)).join('');

/** A client's mistake in the variables: `BAD_USER_INPUT`, HTTP 400, the variable in `field`. */
function variableError(message: string, field: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: ErrorCode.BAD_USER_INPUT, field, http: { status: 400 } },
  });
}

/**
 * The problems of `inputs` for the operation's variable definitions (empty when they coerce).
 * Definitions whose type is not an input type are left to validation, which refuses them.
 */
export function variableValueProblems(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  inputs: Readonly<Record<string, unknown>> | null | undefined,
): GraphQLError[] {
  const problems: GraphQLError[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    if (problems.length >= MAX_PROBLEMS) break;
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) continue;
    const provided = inputs != null && Object.hasOwn(inputs, name);
    const value = provided ? inputs[name] : undefined;
    if (!provided || value === undefined) {
      if (isNonNullType(type) && !definition.defaultValue) {
        problems.push(
          variableError(`Variable "$${name}" of required type "${type}" was not provided.`, name),
        );
      }
      continue;
    }
    if (value === null && isNonNullType(type)) {
      problems.push(
        variableError(`Variable "$${name}" of non-null type "${type}" must not be null.`, name),
      );
      continue;
    }
    coerceInputValue(value, type, (path, _invalidValue, inner) => {
      if (problems.length >= MAX_PROBLEMS) return;
      const where = `${name}${printPath(path)}`;
      const expected = typeAt(type, path);
      const reason = VALUE_FREE_REASONS.some((shape) => shape.test(inner.message))
        ? ` ${inner.message}`
        : ` Expected a value of type "${expected}".`;
      problems.push(
        variableError(
          `Variable "$${name}" got an invalid value${path.length > 0 ? ` at "${where}"` : ''}.${reason}`,
          where,
        ),
      );
    });
  }
  return problems;
}

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The variables as execution will see them: each value coerced to its declared type and each
 * variable left out replaced by its default — what `@skip(if: $v)`, `@include(if: $v)` and
 * `first: $n` mean when a client relies on `$v: Boolean = false`. graphql-js coerces; a variable
 * that has neither a value nor a default is left out (a build-time bound of a document without
 * variables, `npm run cost`, then assumes the documented maximum). Run after
 * {@link variableValueProblems} passed, so graphql-js never words an error with a client's value.
 */
export function coercedVariableValues(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  inputs: Readonly<Record<string, unknown>> | null | undefined,
): Readonly<Record<string, unknown>> {
  const definitions = operation.variableDefinitions ?? [];
  if (definitions.length === 0) return NO_VARIABLES;
  const given = definitions.filter(
    (definition) =>
      definition.defaultValue !== undefined ||
      (inputs != null && inputs[definition.variable.name.value] !== undefined),
  );
  const coerced = getVariableValues(schema, given, inputs ?? {}, { maxErrors: 1 });
  // Values that do not coerce were refused before; a bound over a bad value is left to the raw one.
  return coerced.coerced ?? inputs ?? NO_VARIABLES;
}
