/**
 * Operation limits against a live gateway: each limit refuses with its name, before any upstream
 * call; fragments, fragment cycles, an operation named `__schema` and introspection get no way
 * around them; the standard introspection queries pass.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

/** Asserts a refusal naming `limit`, with no upstream call. */
async function expectRefused(
  res: Awaited<ReturnType<Stack['gql']>>,
  limit: string,
  status = 400,
): Promise<void> {
  expect(res.status, res.text).toBe(status);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        message: expect.stringContaining(`(${limit})`),
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', limit }),
      }),
    ]),
  );
  for (const error of res.body.errors) expect(error.extensions.requestId).toBeTruthy();
  expect(await stack.upstreamCalls()).toBe(0);
}

const certificates = (first: number | string, alias = '') =>
  `${alias ? `${alias}: ` : ''}certificateCustomer(customerId: "demo-customer") { certificates(first: ${first}) { edges { node { certificateId } } } }`;

describe('standard introspection', () => {
  it('passes every limit: graphql-js/codegen with all options, and GraphiQL’s', async () => {
    const full = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const graphiql = getIntrospectionQuery({
      inputValueDeprecation: true,
      schemaDescription: false,
    });
    for (const query of [full, graphiql, getIntrospectionQuery()]) {
      const res = await stack.gql(query, undefined, { token: null });
      expect(res.status, res.text).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.__schema.types.length).toBeGreaterThan(10);
    }
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('depth', () => {
  it('refuses a 40-deep ofType chain, also under an operation named __schema', async () => {
    const chain = `${'ofType { '.repeat(40)}name${' }'.repeat(40)}`;
    await expectRefused(await stack.gql(`{ __type(name: "Query") { ${chain} } }`), 'depth');
    await expectRefused(
      await stack.gql(`query __schema { __type(name: "Query") { ${chain} } }`),
      'depth',
    );
  });

  it('counts depth through fragments and inline fragments', async () => {
    // 16 levels, 15 of them hidden in a chain of fragments.
    const fragments = Array.from(
      { length: 15 },
      (_, i) =>
        `fragment F${i} on __Type { ofType { ${i === 14 ? 'name' : `... on __Type { ...F${i + 1} }`} } }`,
    ).join('\n');
    await expectRefused(
      await stack.gql(`{ __type(name: "Query") { ...F0 } }\n${fragments}`),
      'depth',
    );
  });

  it('lets a query of the limit’s depth through', async () => {
    const res = await stack.gql(
      `{ __type(name: "Query") { ${'ofType { '.repeat(13)}name${' }'.repeat(13)} } }`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });

  it('refuses a fragment cycle without looping (graphql-js names the cycle)', async () => {
    const res = await stack.gql(
      `{ __type(name: "Query") { ...A } } fragment A on __Type { ofType { ...B } } fragment B on __Type { ofType { ...A } }`,
    );
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.message).join(' ')).toMatch(/within itself/);
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('fragments', () => {
  it('refuses a fragment bomb (2^40 expansions) quickly, each fragment measured once', async () => {
    const fragments = ['fragment F0 on Query { viewer { rateLimit { limit } } }'];
    for (let i = 1; i <= 40; i += 1)
      fragments.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
    const started = Date.now();
    await expectRefused(await stack.gql(`{ ...F40 } ${fragments.join('\n')}`), 'rootFields');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('aliases', () => {
  it('refuses more than 30 aliases, counted through a fragment spread twice', async () => {
    const fields = Array.from({ length: 16 }, (_, i) => `a${i}: __typename`).join(' ');
    const res = await stack.gql(
      `{ viewer { ...V } x: viewer { ...V } } fragment V on Viewer { ${fields} }`,
    );
    await expectRefused(res, 'aliases');
    expect(res.body.errors[0].extensions).toMatchObject({ max: 30, actual: 33 });
  });
});

describe('root fields', () => {
  it('refuses more than 20 root fields, hidden in an inline fragment', async () => {
    const roots = Array.from({ length: 21 }, () => 'viewer { rateLimit { limit } }').join(' ');
    await expectRefused(await stack.gql(`{ ... on Query { ${roots} } }`), 'rootFields');
  });
});

describe('directives', () => {
  it('refuses more than 20 directives', async () => {
    const skips = Array.from({ length: 21 }, () => '@skip(if: false)').join(' ');
    await expectRefused(await stack.gql(`{ __typename ${skips} }`), 'directives');
  });
});

describe('tokens and document size', () => {
  it('refuses a document past 2000 tokens before parsing it', async () => {
    const res = await stack.gql(`{ __typename ${'__typename '.repeat(2100)} }`);
    await expectRefused(res, 'tokens');
    expect(res.body.errors[0].extensions).toMatchObject({ max: 2000 });
  });

  it('refuses a document past 32 KiB, even when it is mostly a comment', async () => {
    const res = await stack.gql(`# ${'x'.repeat(33 * 1024)}\n{ __typename }`);
    await expectRefused(res, 'documentSize');
  });

  it('refuses the same over GET', async () => {
    // One-letter tokens: a URL of this many long tokens would pass Node's header size limit first.
    const query = encodeURIComponent(`{ ${'a '.repeat(2100)} }`);
    const res = await stack.http('GET', `/graphql?query=${query}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    await expectRefused(res, 'tokens');
  });
});

describe('cost', () => {
  it('multiplies a list by its first argument: 12 pages of 100 are refused', async () => {
    const res = await stack.gql(
      `{ certificateCustomer(customerId: "demo-customer") { certificates(first: 100) { edges { node { domainVerifications { domain } } } } } }`,
    );
    await expectRefused(res, 'cost');
    expect(res.body.errors[0].extensions.actual).toBeGreaterThan(1000);
  });

  it('refuses a cheap-looking query that aliases one page many times', async () => {
    const aliased = Array.from({ length: 12 }, (_, i) => certificates(50, `c${i}`)).join(' ');
    await expectRefused(await stack.gql(`{ ${aliased} }`), 'cost');
  });

  it('reads the size from variables and their defaults', async () => {
    // 1 + 1 + n × (1 + 1 + 10): over the limit of 1000 from n = 84.
    const query = `query($n: Int = 100) { certificateCustomer(customerId: "demo-customer") { certificates(first: $n) { edges { node { certificateId domainVerifications { domain } } } } } }`;
    await expectRefused(await stack.gql(query), 'cost');
    await expectRefused(await stack.gql(query, { n: 90 }), 'cost');
    const small = await stack.gql(query, { n: 2 });
    expect(small.body.errors).toBeUndefined();
    expect(
      small.body.data.certificateCustomer.certificates.edges.map((e: any) => e.node.certificateId),
    ).toHaveLength(2);
  });

  it('counts introspection: the whole schema asked for many times over is refused', async () => {
    const fields = Array.from({ length: 20 }, (_, i) => `s${i}: __schema { types { name } }`);
    await expectRefused(await stack.gql(`query __schema { ${fields.join(' ')} }`), 'cost');
  });

  it('counts a costly query hidden behind introspection and an operation named __schema', async () => {
    const res = await stack.gql(
      `query __schema { __schema { queryType { name } } ...C } fragment C on Query { ${Array.from({ length: 12 }, (_, i) => certificates(100, `c${i}`)).join(' ')} }`,
    );
    await expectRefused(res, 'cost');
  });
});

describe('limits are configurable', () => {
  it('uses the configured maxima', async () => {
    const strict = await startStack({
      env: { LIMIT_MAX_DEPTH: '5', LIMIT_MAX_COST: '5', LIMIT_MAX_ALIASES: '0' },
    });
    try {
      const deep = await strict.gql(
        '{ __type(name: "Query") { ofType { ofType { ofType { ofType { name } } } } } }',
      );
      expect(deep.body.errors[0].extensions).toMatchObject({ limit: 'depth', max: 5, actual: 6 });
      const aliased = await strict.gql('{ v: viewer { rateLimit { limit } } }');
      expect(aliased.body.errors[0].extensions).toMatchObject({ limit: 'aliases', max: 0 });
      const costly = await strict.gql(
        `{ certificateCustomer(customerId: "demo-customer") { certificates(first: 3) { edges { node { certificateId } } } } }`,
      );
      expect(costly.body.errors[0].extensions).toMatchObject({ limit: 'cost', max: 5, actual: 8 });
      expect(await strict.upstreamCalls()).toBe(0);
    } finally {
      await strict.close();
    }
  });
});
