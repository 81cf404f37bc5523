/**
 * The upstream-call bound of a query as the gateway computes it (docs/budget.md), for tests that
 * hold it against the calls the simulator counts.
 */
import { Kind, parse, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { buildGatewaySchema } from '../../src/graph/build-schema.ts';
import { callBounds } from '../../src/graph/call-bounds.ts';
import {
  upstreamCallBound,
  type UpstreamCallBound,
} from '../../src/server/demand-control/upstream-call-bound.ts';
import { startStack, type Stack } from './gateway-harness.ts';

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

/**
 * A gateway and simulator on which an operation makes every upstream call it can with an empty
 * cache, each counted once: no cache or replay, no limits that would refuse it, no bucket that would
 * refuse a call (a refused call is a call not made, hiding what the operation costs), no retries
 * (the bound counts logical calls, not attempts; no faults are injected).
 */
export const startColdStack = (): Promise<Stack> =>
  startStack({
    sim: { ipLimits: false, rateLimit: 10_000_000, catalogPerMinute: 10_000_000 },
    env: {
      UPSTREAM_CACHE: 'off',
      RESPONSE_CACHE: 'false',
      LIMIT_MAX_UPSTREAM_CALLS: '100000',
      LIMIT_MAX_COST: '10000000',
      LIMIT_MAX_DEPTH: '100',
      LIMIT_MAX_ALIASES: '1000',
      UPSTREAM_RATE_LIMIT: '10000000',
      UPSTREAM_LIMITER: 'off',
      UPSTREAM_MAX_ATTEMPTS: '1',
      LOG_LEVEL: 'warn',
    },
  });
