/**
 * Issue 35 part 5, "the tests' queries": the upstream-call bound (docs/demand.md) is never below
 * the calls execution makes with an empty cache, over the operations written in the project's own
 * tests (test/support/test-documents.ts collects them: every literal of test/**\/*.ts outside this
 * folder that parses as GraphQL, one standalone document per operation, deduped by text, kept when
 * it validates against the gateway's schema).
 *
 * Queries and mutations both run, with no variables given and the `x-store-id` header of the
 * simulator's first store (as the tests that wrote them send it; the estimator does not read
 * headers): an operation with a required variable and no default is counted and skipped (its
 * values live in the test that wrote it). Queries run
 * first on one stack; mutations then run on fresh stacks, a new one every `MUTATIONS_PER_STACK`, so
 * that what one mutation changes (a deleted record, a spent quota) breaks few of the others. Errors
 * are expected (many tests' operations exist to be refused); a refused operation still must not
 * spend more than its bound. The summary prints the counts and bound ÷ actual over those that made
 * calls; an unsound operation fails the test with its bound by field and its calls by route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kind, parse, validate, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { boundOf, startColdStack } from '../../support/call-bound.ts';
import type { Stack } from '../../support/gateway-harness.ts';
import { collectTestOperations, type TestOperation } from '../../support/test-documents.ts';

const MUTATIONS_PER_STACK = 40;

interface Measured {
  readonly source: string;
  readonly query: string;
  readonly bound: number;
  readonly actual: number;
  readonly byField: readonly { field: string; calls: number }[];
  readonly byRoute: Record<string, number>;
  readonly clean: boolean;
  readonly error?: string;
}

let schema: GraphQLSchema;
const stacks: Stack[] = [];
beforeAll(async () => {
  schema = await buildGatewaySchema();
}, 60_000);
afterAll(async () => {
  for (const stack of stacks) await stack.close();
});

async function measure(stack: Stack, op: TestOperation): Promise<Measured> {
  const { calls: bound, byField } = await boundOf(op.query, {});
  await stack.resetCounts();
  const response = await stack.gql(
    op.query,
    {},
    { headers: { 'x-store-id': COMMERCE_IDS.storeA } },
  );
  const stats = await stack.sim.stats();
  const body = response.body as {
    data?: unknown;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  const first = body.errors?.[0];
  return {
    source: op.source,
    query: op.query,
    bound,
    actual: stats.total,
    byField,
    byRoute: stats.byRoute,
    clean: response.status === 200 && body.data != null && !body.errors?.length,
    ...(first ? { error: `${first.extensions?.code}: ${first.message}` } : {}),
  };
}

/** Every variable of the operation is nullable or has a default: it can run with none given. */
function runsWithoutVariables(query: string): boolean {
  const operation = parse(query).definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  return (operation.variableDefinitions ?? []).every(
    (v) => v.type.kind !== Kind.NON_NULL_TYPE || v.defaultValue !== undefined,
  );
}

describe('the upstream-call bound is sound over the operations of the project’s tests', () => {
  it('never below the actual calls, cold cache, queries and mutations', async () => {
    const collected = collectTestOperations(['test/integration/demand']);
    const distinct = [...new Map(collected.operations.map((op) => [op.query, op])).values()];
    const valid = distinct.filter(
      (op) => op.kind !== 'subscription' && validate(schema, parse(op.query)).length === 0,
    );
    const runnable = valid.filter((op) => runsWithoutVariables(op.query));
    const queries = runnable.filter((op) => op.kind === 'query');
    const mutations = runnable.filter((op) => op.kind === 'mutation');
    console.log(
      `[soundness/tests] ${collected.literals} literals; ${collected.parsed} distinct documents with ` +
        `operations; ${distinct.length} distinct operations ` +
        `(${distinct.filter((op) => op.kind === 'subscription').length} subscriptions, left out); ` +
        `${valid.length} validate; ${valid.length - runnable.length} skipped for a required ` +
        `variable; ${queries.length} queries and ${mutations.length} mutations run`,
    );

    const runs: Measured[] = [];
    const queryStack = await startColdStack();
    stacks.push(queryStack);
    for (const op of queries) runs.push(await measure(queryStack, op));
    for (let i = 0; i < mutations.length; i += MUTATIONS_PER_STACK) {
      const stack = await startColdStack();
      stacks.push(stack);
      for (const op of mutations.slice(i, i + MUTATIONS_PER_STACK))
        runs.push(await measure(stack, op));
    }

    const spent = runs.filter((run) => run.actual > 0);
    const ratios = spent.map((run) => run.bound / run.actual);
    const max = Math.max(...ratios);
    const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
    const unsound = runs.filter((run) => run.actual > run.bound);
    console.log(
      `[soundness/tests] ${runs.length} operations run, ${spent.length} made calls ` +
        `(${runs.reduce((a, run) => a + run.actual, 0)} in all), ` +
        `${runs.filter((run) => run.clean).length} answered without errors, ` +
        `${unsound.length} unsound, ${spent.filter((run) => run.bound === run.actual).length} ` +
        `tight (bound = actual); bound ÷ actual: max ${max.toFixed(2)}, mean ${mean.toFixed(2)}`,
    );
    const loosest = [...spent]
      .sort((a, b) => b.bound / b.actual - a.bound / a.actual)
      .slice(0, 3)
      .map((run) => `  ${run.source}: bound ${run.bound}, actual ${run.actual}`)
      .join('\n');
    console.log(`[soundness/tests] loosest:\n${loosest}`);
    const errors = new Map<string, number>();
    for (const run of runs)
      if (run.error)
        errors.set(run.error.slice(0, 100), (errors.get(run.error.slice(0, 100)) ?? 0) + 1);
    console.log(
      `[soundness/tests] commonest errors:\n${[...errors]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([error, n]) => `  ${n} × ${error}`)
        .join('\n')}`,
    );
    if (unsound.length > 0)
      console.log(`[soundness/tests] unsound:\n${JSON.stringify(unsound, null, 2)}`);
    expect(
      unsound.map(({ source, bound, actual, byField, byRoute, query }) => ({
        source,
        bound,
        actual,
        byField,
        byRoute,
        query,
      })),
    ).toEqual([]);
    // The corpus must spend calls, or the property holds for nothing.
    expect(queries.length).toBeGreaterThan(50);
    expect(spent.length).toBeGreaterThan(runs.length / 3);
  }, 55_000);
});
