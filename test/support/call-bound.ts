/**
 * The upstream-call bound of a query as the gateway computes it (docs/demand.md), for tests that
 * hold it against the calls the simulator counts.
 */
import { Kind, parse, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { buildGatewaySchema } from '../../src/graph/build-schema.ts';
import { callBounds } from '../../src/graph/call-bounds.ts';
import {
  upstreamCallBound,
  type UpstreamCallBound,
} from '../../src/server/limits/upstream-call-bound.ts';

let schema: Promise<GraphQLSchema> | undefined;

export async function boundOf(
  query: string,
  variables: Record<string, unknown> = {},
  operationName?: string,
): Promise<UpstreamCallBound> {
  schema ??= buildGatewaySchema();
  const document = parse(query);
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION &&
      (operationName === undefined || definition.name?.value === operationName),
  );
  if (!operation) throw new Error('no such operation');
  return upstreamCallBound(await schema, document, operation, variables, callBounds());
}
