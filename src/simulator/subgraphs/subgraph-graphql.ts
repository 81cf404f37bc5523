/**
 * GraphQL over HTTP for the simulator's subgraphs: the request body check (HTTP 400), picking the
 * operation (honouring `operationName`), the per-operation scope check (HTTP 403), then graphql-js
 * validation and execution, whose errors go back as HTTP 200 `{ data?, errors }` with
 * `extensions.code` on every error.
 */
import {
  execute,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { SimPrincipal } from '../accounts.ts';
import { SimError } from '../sim-errors.ts';
import type { SubgraphContext } from './subgraph-common.ts';

export interface SubgraphRequestBody {
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

/** One error of the GraphQL `errors` array as sent on the wire. */
export interface WireGraphQLError {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
  extensions: { code: string; [key: string]: unknown };
}

export interface GraphQLResponseBody {
  data?: Record<string, unknown> | null;
  errors?: WireGraphQLError[];
}

/** Which scopes an operation needs, from its type and its root field names. */
export type ScopePolicy = (
  operation: OperationDefinitionNode['operation'],
  rootFields: readonly string[],
) => readonly string[];

const invalidRequest = (path: string, code: string, message: string): SimError =>
  new SimError(400, 'INVALID_REQUEST', message, [{ path, code, message }]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks `{ query, variables?, operationName? }`; anything else is an HTTP 400 envelope. */
export function parseRequestBody(body: unknown): SubgraphRequestBody {
  if (!isPlainObject(body)) {
    throw invalidRequest('$.query', 'REQUIRED', 'the body must be a JSON object with a query');
  }
  const { query, variables, operationName } = body;
  if (query === undefined || query === null) {
    throw invalidRequest('$.query', 'REQUIRED', 'query is required');
  }
  if (typeof query !== 'string' || query.trim() === '') {
    throw invalidRequest('$.query', 'INVALID_TYPE', 'query must be a non-empty string');
  }
  if (variables !== undefined && variables !== null && !isPlainObject(variables)) {
    throw invalidRequest('$.variables', 'INVALID_TYPE', 'variables must be an object');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw invalidRequest('$.operationName', 'INVALID_TYPE', 'operationName must be a string');
  }
  return {
    query,
    variables: variables ?? undefined,
    operationName: operationName ?? undefined,
  };
}

/** The operation that would run, as graphql-js picks it; a message when there is none. */
function selectOperation(
  document: DocumentNode,
  operationName: string | undefined,
): OperationDefinitionNode | string {
  const operations = document.definitions.filter(
    (def): def is OperationDefinitionNode => def.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName !== undefined) {
    const named = operations.find((op) => op.name?.value === operationName);
    return named ?? `Unknown operation named "${operationName}".`;
  }
  if (operations.length === 1 && operations[0]) return operations[0];
  return operations.length === 0
    ? 'Must provide an operation.'
    : 'Must provide operation name if query contains multiple operations.';
}

/**
 * The root field names an operation selects, through fragments. Fields under `@skip`/`@include`
 * count as selected: the scope check is conservative.
 */
export function rootFieldNames(
  document: DocumentNode,
  operation: OperationDefinitionNode,
): string[] {
  const fragments = new Map(
    document.definitions
      .filter((def): def is FragmentDefinitionNode => def.kind === Kind.FRAGMENT_DEFINITION)
      .map((def) => [def.name.value, def]),
  );
  const names = new Set<string>();
  const seen = new Set<string>();
  const walk = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return [...names];
}

/** Puts a code on every error and masks unexpected failures (the simulator's own bugs). */
function toWire(error: GraphQLError, fallbackCode: string): WireGraphQLError {
  const original = error.originalError;
  const unexpected = original !== undefined && !(original instanceof GraphQLError);
  const json = error.toJSON();
  const code = unexpected ? 'INTERNAL_SERVER_ERROR' : error.extensions.code;
  return {
    message: unexpected ? 'Internal server error' : json.message,
    ...(json.locations ? { locations: json.locations } : {}),
    ...(json.path ? { path: json.path } : {}),
    extensions: {
      ...(unexpected ? {} : json.extensions),
      code: typeof code === 'string' ? code : fallbackCode,
    },
  };
}

const errorsOnly = (errors: readonly GraphQLError[], code: string): GraphQLResponseBody => ({
  errors: errors.map((error) => toWire(error, code)),
});

export interface RunOptions {
  schema: GraphQLSchema;
  body: SubgraphRequestBody;
  principal: SimPrincipal;
  scopes: ScopePolicy;
  context: SubgraphContext;
}

/**
 * Runs one GraphQL request. Throws a 403 {@link SimError} when the principal lacks a scope the
 * selected operation needs; every other failure is a GraphQL error in an HTTP 200 body.
 */
export async function runGraphQL(options: RunOptions): Promise<GraphQLResponseBody> {
  const { schema, body, principal } = options;
  let document: DocumentNode;
  try {
    document = parse(body.query);
  } catch (error) {
    if (error instanceof GraphQLError) return errorsOnly([error], 'GRAPHQL_PARSE_FAILED');
    throw error;
  }

  const operation = selectOperation(document, body.operationName);
  if (typeof operation === 'string') {
    return errorsOnly([new GraphQLError(operation)], 'OPERATION_RESOLUTION_FAILURE');
  }

  const required = options.scopes(operation.operation, rootFieldNames(document, operation));
  const missing = required.filter((scope) => !principal.scopes.has(scope));
  if (missing.length > 0) {
    throw new SimError(403, 'FORBIDDEN', `missing scope ${missing.join(', ')}`, undefined, {
      requiredScope: missing[0],
      missingScopes: missing,
    });
  }

  const validationErrors = validate(schema, document);
  if (validationErrors.length > 0) return errorsOnly(validationErrors, 'GRAPHQL_VALIDATION_FAILED');

  const result: ExecutionResult = await execute({
    schema,
    document,
    variableValues: body.variables,
    operationName: body.operationName,
    contextValue: options.context,
  });
  const response: GraphQLResponseBody = {};
  if ('data' in result) response.data = result.data ?? null;
  if (result.errors && result.errors.length > 0) {
    // Errors without a path come from coercing the variables: the caller's input.
    response.errors = result.errors.map((error) =>
      toWire(error, error.path ? 'INTERNAL_SERVER_ERROR' : 'BAD_USER_INPUT'),
    );
  }
  return response;
}
