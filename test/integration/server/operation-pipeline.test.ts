/**
 * One operation pipeline: the same over-limit document is refused the same way — the same code and
 * extensions, before any upstream call — over HTTP, graphql-ws and SSE, for every limit a
 * subscription can hit (shape, document size, tokens, cost, variables).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { collectSse, collectWs, wsClient } from '../../support/subscription-clients.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { LIMIT_MAX_DOCUMENT_BYTES: '4000', LIMIT_MAX_COST: '50' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

type Extensions = Record<string, unknown>;

/** Every error's code and extensions, without the per-request id. */
const shapeOf = (errors: { extensions?: Extensions }[] | undefined) =>
  (errors ?? []).map(({ extensions }) => {
    const { requestId: _requestId, ...rest } = extensions ?? {};
    return rest;
  });

/** The refusal of one document, as each transport reports it. */
async function refusals(query: string, variables: Record<string, unknown> = {}) {
  const http = await stack.gql(query, variables);
  const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
  try {
    const ws = await collectWs(client, query, variables);
    const sse = await collectSse(stack.url, query, variables);
    return {
      http: shapeOf(http.body.errors),
      // graphql-ws reports request errors with an `error` message, which its client throws.
      ws: shapeOf(ws.failure as { extensions?: Extensions }[]),
      sse: shapeOf(sse.results[0]?.errors),
    };
  } finally {
    await client.dispose();
  }
}

const fields = (count: number) => Array.from({ length: count }, (_, i) => `a${i}: jobId`).join(' ');

describe('the same refusal on every transport', () => {
  it('60 aliases: BAD_USER_INPUT with limit, max and actual', async () => {
    const result = await refusals(`subscription { appJob(jobId: "job-1") { ${fields(60)} } }`);
    expect(result.http).toEqual([
      { code: 'BAD_USER_INPUT', limit: 'aliases', max: 30, actual: 60 },
    ]);
    expect(result.ws).toEqual(result.http);
    expect(result.sse).toEqual(result.http);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a document over the size limit', async () => {
    const padding = `# ${'x'.repeat(4000)}\n`;
    const result = await refusals(`${padding}subscription { appJob(jobId: "job-1") { jobId } }`);
    expect(result.http).toEqual([
      { code: 'BAD_USER_INPUT', limit: 'documentSize', max: 4000, actual: expect.any(Number) },
    ]);
    expect(result.ws).toEqual(result.http);
    expect(result.sse).toEqual(result.http);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('a variable of the wrong type names the variable, and never quotes its value', async () => {
    const result = await refusals('subscription($job: ID!) { appJob(jobId: $job) { jobId } }', {
      job: { secret: 'hunter2-value' },
    });
    expect(result.http).toEqual([{ code: 'BAD_USER_INPUT', field: 'job' }]);
    expect(result.ws).toEqual(result.http);
    expect(result.sse).toEqual(result.http);
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });
});

describe('a client that keeps sending refused documents', () => {
  it('is answered 429 before its body is read, and no one else is', async () => {
    const refused = `{ ${'apps { appId } '.repeat(25)}}`; // 25 root fields: over the limit of 20
    for (let i = 0; i < 21; i += 1) {
      const { status } = await stack.gql(`${refused} # ${i}`, undefined, { token: 'flood-token' });
      expect(status).toBe(400);
    }
    const throttled = await stack.gql('{ __typename }', undefined, { token: 'flood-token' });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(throttled.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'REFUSALS',
    });
    const other = await stack.gql('{ __typename }');
    expect(other.status).toBe(200);
    expect(await stack.upstreamCalls()).toBe(0);
  });
});
