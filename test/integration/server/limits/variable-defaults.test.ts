/**
 * Variables left to their defaults mean what execution makes of them, in every place that reads
 * them before execution (docs/budget.md "Demand control"): `@include(if: $v)` with
 * `$v: Boolean = false` sent without `$v` is not a 500 but a field left out, and `first: $n` with
 * `$n: Int = 2` is bounded as two, in the run, in `Weft-Estimate` and in the bound the budget meets.
 *
 * The property test turns generated operations (test/support/operation-generator.ts, a fixed seed)
 * into two forms of the same request: one with literal `@include`/`@skip` conditions and its
 * variables sent, one where every condition and every variable is a variable with that value as
 * its default, sent with no variables at all. Both must be estimated alike (the same bound, or the
 * same refusal), answer alike and make the same calls, and the defaulted form never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  astFromValue,
  Kind,
  parse,
  print,
  typeFromAST,
  isInputType,
  visit,
  type ConstValueNode,
  type DirectiveNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from 'graphql';
import { buildGatewaySchema } from '../../../../src/graph/build-schema.ts';
import { startColdStack } from '../../../support/call-bound.ts';
import type { Stack } from '../../../support/gateway-harness.ts';
import {
  generateOperations,
  seedPools,
  seededRandom,
} from '../../../support/operation-generator.ts';

const SEED = 4242;
const COUNT = 150;

let stack: Stack;
let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGatewaySchema();
  stack = await startColdStack();
}, 60_000);
afterAll(() => stack?.close());

interface Answer {
  readonly status: number;
  readonly body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { code?: string } }[];
    extensions?: { upstream?: { estimate?: { calls?: number } } };
  };
}

const estimate = async (query: string, variables: Record<string, unknown> = {}) =>
  (await stack.gql(query, variables, { headers: { 'weft-estimate': '1' } })) as Answer;

/** Runs a query on an empty cache: its answer and the upstream calls it made. */
async function run(query: string, variables: Record<string, unknown> = {}) {
  await stack.resetCounts();
  const answer = (await stack.gql(query, variables)) as Answer;
  return { answer, calls: (await stack.sim.stats()).total };
}

const CERTS_DEFAULT_FIRST = `query Certs($first: Int = 2) {
  certificateCustomer(customerId: "demo-customer") {
    certificates(first: $first) { edges { node { commonName domainVerifications { domain } } } }
  }
}`;

describe('variables left to their defaults', () => {
  it('@include(if: $v) with $v: Boolean = false, sent without $v: the field is left out, no 500', async () => {
    const query = `query ($v: Boolean = false, $s: Boolean! = true) {
      viewer { rateLimit { limit } }
      apps @include(if: $v) { id }
      certificateCustomer(customerId: "demo-customer") @skip(if: $s) { certificates(first: 3) { totalCount } }
    }`;
    const { answer, calls } = await run(query);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(Object.keys(answer.body.data ?? {})).toEqual(['viewer']);
    expect(calls).toBe(0);
    const bound = await estimate(query);
    expect(bound.status).toBe(200);
    expect(bound.body.extensions?.upstream?.estimate?.calls).toBe(0);
    // The variables sent override their defaults, in the estimate as in the run.
    const sent = await estimate(query, { v: true, s: false });
    expect(sent.body.extensions?.upstream?.estimate?.calls).toBeGreaterThan(0);
  });

  it('first: $first with $first: Int = 2 is bounded as two, sent or not', async () => {
    const defaulted = await estimate(CERTS_DEFAULT_FIRST);
    const sent = await estimate(CERTS_DEFAULT_FIRST, { first: 2 });
    expect(sent.body.extensions?.upstream?.estimate?.calls).toBe(3);
    expect(defaulted.body.extensions?.upstream?.estimate?.calls).toBe(3);
    const { answer, calls } = await run(CERTS_DEFAULT_FIRST);
    expect(answer.body.errors).toBeUndefined();
    expect(calls).toBeLessThanOrEqual(3);
  });
});

/** The two forms of one generated operation (see the file's opening comment). */
function twoForms(
  query: string,
  variables: Record<string, unknown>,
  random: () => number,
): { literal: string; defaulted: string; conditions: number; defaults: number } {
  const document = parse(query);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const conditionDefinitions: VariableDefinitionNode[] = [];
  const literalDirectives = new Map<object, DirectiveNode>();
  const variableDirectives = new Map<object, DirectiveNode>();
  const directive = (name: string, value: DirectiveNode['arguments']): DirectiveNode => ({
    kind: Kind.DIRECTIVE,
    name: { kind: Kind.NAME, value: name },
    arguments: value,
  });
  // Conditions on about a quarter of the fields, each drawn true or false, @include or @skip.
  visit(operation, {
    Field(node) {
      if (random() >= 0.25) return;
      const name = random() < 0.5 ? 'include' : 'skip';
      const condition = random() < 0.5;
      const variable = `c${conditionDefinitions.length}`;
      const arg = (value: DirectiveNode['arguments']) => value;
      literalDirectives.set(
        node,
        directive(
          name,
          arg([
            {
              kind: Kind.ARGUMENT,
              name: { kind: Kind.NAME, value: 'if' },
              value: { kind: Kind.BOOLEAN, value: condition },
            },
          ]),
        ),
      );
      variableDirectives.set(
        node,
        directive(name, [
          {
            kind: Kind.ARGUMENT,
            name: { kind: Kind.NAME, value: 'if' },
            value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: variable } },
          },
        ]),
      );
      // Nullable and non-null conditions alike: both may stand where `Boolean!` is expected.
      const type = parse(`query ($x: ${random() < 0.5 ? 'Boolean' : 'Boolean!'}) { a }`)
        .definitions[0] as OperationDefinitionNode;
      conditionDefinitions.push({
        ...type.variableDefinitions![0]!,
        variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: variable } },
        defaultValue: { kind: Kind.BOOLEAN, value: condition },
      });
    },
  });
  const withDirectives = (directives: Map<object, DirectiveNode>) =>
    visit(operation, {
      Field: (node) =>
        directives.has(node)
          ? { ...node, directives: [...(node.directives ?? []), directives.get(node)!] }
          : undefined,
    });
  // Every variable the generator sent becomes a default (a value with no literal stays sent).
  let defaults = 0;
  const defaultedDefinitions = (operation.variableDefinitions ?? []).map((definition) => {
    const type = typeFromAST(schema, definition.type);
    const value = variables[definition.variable.name.value];
    const literal = type && isInputType(type) ? astFromValue(value, type) : null;
    if (!literal) throw new Error(`no literal for $${definition.variable.name.value}`);
    defaults += 1;
    return { ...definition, defaultValue: literal as ConstValueNode };
  });
  const literal = withDirectives(literalDirectives);
  const defaulted = {
    ...withDirectives(variableDirectives),
    variableDefinitions: [...defaultedDefinitions, ...conditionDefinitions],
  };
  return {
    literal: print(literal),
    defaulted: print(defaulted),
    conditions: conditionDefinitions.length,
    defaults,
  };
}

describe('property: defaults in directive and argument positions bound and run as if sent', () => {
  it(`over ${COUNT} generated operations (seed ${SEED})`, async () => {
    const { operations, invalid } = generateOperations(schema, await seedPools(), SEED, COUNT);
    expect(invalid).toEqual([]);
    expect(operations).toHaveLength(COUNT);
    const random = seededRandom(SEED);
    const mismatches: unknown[] = [];
    let conditions = 0;
    let defaults = 0;
    let spent = 0;
    let bounded = 0;
    for (const op of operations) {
      const forms = twoForms(op.query, op.variables, random);
      conditions += forms.conditions;
      defaults += forms.defaults;
      const literalEstimate = await estimate(forms.literal, op.variables);
      const defaultedEstimate = await estimate(forms.defaulted);
      const literalRun = await run(forms.literal, op.variables);
      const defaultedRun = await run(forms.defaulted);
      spent += literalRun.calls;
      const bound = literalEstimate.body.extensions?.upstream?.estimate?.calls;
      const codes = (answer: Answer) => (answer.body.errors ?? []).map((e) => e.extensions?.code);
      if (literalEstimate.status === 200) bounded += 1;
      // A value the pipeline refuses (out of its range) is refused the same, sent or defaulted.
      if (
        defaultedEstimate.status !== literalEstimate.status ||
        defaultedEstimate.body.extensions?.upstream?.estimate?.calls !== bound ||
        defaultedRun.answer.status >= 500 ||
        defaultedRun.answer.status !== literalRun.answer.status ||
        JSON.stringify(codes(defaultedRun.answer)) !== JSON.stringify(codes(literalRun.answer)) ||
        defaultedRun.calls !== literalRun.calls ||
        (bound !== undefined && defaultedRun.calls > bound)
      )
        mismatches.push({
          defaulted: forms.defaulted,
          bound,
          defaultedEstimate,
          literalStatus: literalRun.answer.status,
          defaultedStatus: defaultedRun.answer.status,
          literalCalls: literalRun.calls,
          defaultedCalls: defaultedRun.calls,
          literalCodes: codes(literalRun.answer),
          defaultedCodes: codes(defaultedRun.answer),
        });
    }
    console.log(
      `[variable defaults] ${COUNT} operations, ${conditions} conditions, ${defaults} defaulted ` +
        `arguments, ${bounded} bounded, ${spent} upstream calls, ${mismatches.length} mismatches`,
    );
    expect(mismatches).toEqual([]);
    // The corpus has to exercise both positions, and spend calls, or it proves nothing.
    expect(conditions).toBeGreaterThan(COUNT);
    expect(defaults).toBeGreaterThan(COUNT / 4);
    expect(spent).toBeGreaterThan(COUNT);
    expect(bounded).toBeGreaterThan(COUNT / 2);
  }, 120_000);
});
