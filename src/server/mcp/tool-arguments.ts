/**
 * A tool call's arguments as its operation's variables (docs/agents.md "Writes"): every argument
 * must be one of the tool's — an unknown name is refused naming it, where GraphQL would silently
 * drop the variable and run without it — and a mutation's `idempotencyKey` becomes the
 * `Idempotency-Key` it runs with, required and checked as the header is. The values themselves are
 * checked by the operation pipeline, as every GraphQL request's are. Errors name the argument,
 * never its value.
 */
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { IDEMPOTENCY_KEY } from '../idempotency/request-fingerprint.ts';
import type { ChosenOperation } from './chosen-operations.ts';
import { IDEMPOTENCY_ARGUMENT } from './mcp-tools.ts';

export interface OperationArguments {
  readonly variables: Record<string, unknown>;
  /** A mutation's `Idempotency-Key`. */
  readonly idempotencyKey?: string;
}

function badArgument(argument: string, message: string): GatewayError {
  return new GatewayError(ErrorCode.BAD_USER_INPUT, message, { argument });
}

/** The variables and key of a call, or the error that names the argument at fault. */
export function operationArguments(
  chosen: ChosenOperation,
  args: Readonly<Record<string, unknown>> | undefined,
  /** Off for an estimate: nothing will be written. */
  keyRequired = true,
): OperationArguments | GatewayError {
  const names = new Set(
    (chosen.operation.variableDefinitions ?? []).map(
      (definition) => definition.variable.name.value,
    ),
  );
  const writes = chosen.type === 'mutation';
  const variables: Record<string, unknown> = {};
  let idempotencyKey: string | undefined;
  for (const [name, value] of Object.entries(args ?? {})) {
    if (writes && name === IDEMPOTENCY_ARGUMENT) {
      if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
        return badArgument(
          name,
          `${IDEMPOTENCY_ARGUMENT} must be 1 to 255 visible ASCII characters (a UUID, for example).`,
        );
      }
      idempotencyKey = value;
    } else if (names.has(name)) {
      variables[name] = value;
    } else {
      const known = [...names, ...(writes ? [IDEMPOTENCY_ARGUMENT] : [])];
      return badArgument(
        name,
        `${chosen.name} has no argument \`${name}\`; it takes ${known.length > 0 ? known.map((known) => `\`${known}\``).join(', ') : 'none'}.`,
      );
    }
  }
  if (writes && keyRequired && idempotencyKey === undefined) {
    return badArgument(
      IDEMPOTENCY_ARGUMENT,
      `${chosen.name} changes something: send a new ${IDEMPOTENCY_ARGUMENT} (a UUID) with it, and the same one to retry it.`,
    );
  }
  return idempotencyKey === undefined ? { variables } : { variables, idempotencyKey };
}
