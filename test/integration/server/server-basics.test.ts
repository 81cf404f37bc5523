import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe('server', () => {
  it('/healthz says alive', async () => {
    const res = await stack.http('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('/readyz checks the schema and that the upstream answers', async () => {
    const res = await stack.http('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { schema: true, upstream: true } });
  });

  it('accepts and returns x-request-id, and makes one up otherwise', async () => {
    const given = await stack.gql('{ __typename }', undefined, {
      headers: { 'x-request-id': 'client-id-42' },
    });
    expect(given.headers['x-request-id']).toBe('client-id-42');
    const made = await stack.gql('{ __typename }');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    for (const hostile of ['has spaces', 'x'.repeat(300), '{"json":1}']) {
      const res = await stack.gql('{ __typename }', undefined, {
        headers: { 'x-request-id': hostile },
      });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('puts the request id on every error', async () => {
    const res = await stack.gql(
      '{ certificateBundle(entitlementId: "nope") { serialNumber } }',
      undefined,
      {
        headers: { 'x-request-id': 'trace-me' },
      },
    );
    expect(res.body.errors[0].extensions.requestId).toBe('trace-me');
  });

  it('serves queries over GET too (with the CSRF preflight header)', async () => {
    const query = encodeURIComponent('{ viewer { rateLimit { limit } } }');
    const res = await stack.http('GET', `/graphql?query=${query}`, {
      headers: { authorization: 'Bearer demo-token', 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.viewer.rateLimit.limit).toBe(600);
  });

  it('refuses a GET without the preflight header (CSRF prevention)', async () => {
    const res = await stack.http('GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(res.status).toBe(400);
  });

  it('answers viewer.rateLimit from the last upstream headers, without an upstream call', async () => {
    await stack.gql(
      '{ certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }',
    );
    await stack.resetCounts();
    const { body } = await stack.gql('{ viewer { rateLimit { limit remaining resetSec } } }');
    expect(body.data.viewer.rateLimit.limit).toBe(600);
    expect(body.data.viewer.rateLimit.remaining).toBeLessThan(600);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('writes one JSON log line per request with the request id, and never the token or cookies', async () => {
    await stack.gql(
      '{ certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }',
      undefined,
      {
        token: 'demo-token',
        headers: { cookie: 'session=cookie-canary-123', 'x-request-id': 'log-check-1' },
      },
    );
    const lines = stack.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    // One info line for the request: the operation's fields on the request's access line.
    const requestLines = lines.filter(
      (line) => line.reqId === 'log-check-1' && (line.level as number) >= 30,
    );
    expect(requestLines).toEqual([
      expect.objectContaining({
        msg: 'graphql operation',
        req: { id: 'log-check-1', method: 'POST', path: '/graphql' },
        res: { statusCode: 200 },
        operationName: null,
        errors: 0,
        responseTime: expect.any(Number),
        durationMs: expect.any(Number),
      }),
    ]);
    const all = stack.logs.join('\n');
    expect(all).not.toContain('demo-token');
    expect(all).not.toContain('cookie-canary-123');
  });
});
