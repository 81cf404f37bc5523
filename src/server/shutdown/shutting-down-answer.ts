/**
 * The answer to a GraphQL request still executing when the drain deadline ends (drain-deadline.ts):
 * a `SHUTTING_DOWN` GraphQL response the client can parse, instead of a cut connection.
 *
 * A query, or an operation that had not started executing, is simply retryable: nothing it did is
 * lost. A mutation whose fields were executing may or may not have reached the upstream, so each of
 * its root fields gets its own error, at its path, with `outcome: "UNKNOWN"` and — where the domain
 * names one (hosting's writes) — `verifyWith`, the read that tells whether it happened: the same
 * extensions a write that timed out carries (docs/errors.md), so a client handles both one way.
 */
import {
  Kind,
  type DocumentNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { formatGraphQLError } from '../../errors/graphql-errors.ts';
import type { GraphQLFormattedError } from 'graphql';

/**
 * `Retry-After` of the answer: the client may send the request again at once — another replica, or
 * this one's successor, answers it — and a second is what a load balancer takes to stop routing here.
 */
export const SHUTTING_DOWN_RETRY_AFTER_SEC = 1;

/** A root field of a mutation: its key in `data` (the alias, if any) and the schema field. */
export interface RootField {
  readonly responseKey: string;
  readonly fieldName: string;
}

/**
 * The root fields an operation selects, fragments followed (whatever `@skip`/`@include` say: a
 * field counted that did not run costs the client one read, a field missed would cost a write).
 */
export function rootFieldsOf(
  operation: OperationDefinitionNode,
  document: DocumentNode,
): RootField[] {
  const fragments = new Map(
    document.definitions
      .filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment.selectionSet] as const),
  );
  const fields = new Map<string, RootField>();
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const fieldName = selection.name.value;
        if (fieldName === '__typename') continue;
        const responseKey = selection.alias?.value ?? fieldName;
        if (!fields.has(responseKey)) fields.set(responseKey, { responseKey, fieldName });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment);
      }
    }
  };
  collect(operation.selectionSet);
  return [...fields.values()];
}

export interface ShuttingDownAnswer {
  /**
   * `null` for a mutation: its errors are field errors, and the shutdown kept the execution from a
   * valid result (GraphQL's rule for `data: null`; GraphQL over HTTP allows the 503 only then).
   */
  readonly data?: null;
  readonly errors: GraphQLFormattedError[];
}

/**
 * The response body. `writes`: the root fields of the mutation that was executing, or undefined
 * when no mutation had started (a query, or an operation not yet parsed and validated).
 */
export function shuttingDownAnswer(
  writes: readonly RootField[] | undefined,
  verifyWithOf: (mutationField: string) => string | undefined,
): ShuttingDownAnswer {
  const retryAfterSec = SHUTTING_DOWN_RETRY_AFTER_SEC;
  if (writes === undefined || writes.length === 0) {
    const error = new GatewayError(
      ErrorCode.SHUTTING_DOWN,
      `The gateway is shutting down and stopped this operation before it finished; send it again in ${retryAfterSec} s.`,
      { retryAfterSec },
    );
    return { errors: [formatGraphQLError({ message: error.message }, error)] };
  }
  const errors = writes.map(({ responseKey, fieldName }) => {
    const verifyWith = verifyWithOf(fieldName);
    const read = verifyWith === undefined ? 'what it changes' : `\`${verifyWith}\``;
    const error = new GatewayError(
      ErrorCode.SHUTTING_DOWN,
      `The gateway is shutting down and stopped ${fieldName} before it finished, so the change may or may not have been applied. Read ${read} before sending it again.`,
      {
        retryAfterSec,
        outcome: 'UNKNOWN',
        ...(verifyWith === undefined ? {} : { verifyWith }),
      },
    );
    return formatGraphQLError({ message: error.message, path: [responseKey] }, error);
  });
  return { data: null, errors };
}
