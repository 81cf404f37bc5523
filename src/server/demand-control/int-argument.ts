/**
 * The number an argument of an operation is given — a literal, a variable's value, or that
 * variable's default when the request leaves it out — as the cost estimate and the `@range` check
 * both read it before execution. An explicit `null` is no number (it overrides a variable's
 * default, as in execution); so is anything not written as an integer.
 */
import { Kind, type OperationDefinitionNode, type ValueNode } from 'graphql';

export function numberGiven(
  value: ValueNode,
  variables: Readonly<Record<string, unknown>>,
  operation: OperationDefinitionNode,
): number | undefined {
  if (value.kind === Kind.INT) return Number.parseInt(value.value, 10);
  if (value.kind !== Kind.VARIABLE) return undefined;
  const name = value.name.value;
  const given = variables[name];
  if (given !== undefined) return typeof given === 'number' ? given : undefined;
  const definition = operation.variableDefinitions?.find((v) => v.variable.name.value === name);
  return definition?.defaultValue?.kind === Kind.INT
    ? Number.parseInt(definition.defaultValue.value, 10)
    : undefined;
}
