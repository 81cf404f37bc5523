/**
 * An agent's tool call knows its cost before it spends it (docs/agents.md "Cost and refusals"):
 * with 5 calls left of the window for the agents' priority, a tool bounded at 60 calls is refused
 * before any upstream call — with Weft's typed error, the budget and when to retry — while a
 * one-call tool runs; and an agent, at a priority below an app's, is refused a bound an app's
 * request of the same bound still gets.
 *
 * A window of 100 calls: reads keep 10 for writes, background work (MCP_PRIORITY's default) 15.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundOf } from '../../support/call-bound.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { connectMcp, type McpSession } from '../../support/mcp-client.ts';

const WINDOW = 100;
const CHECKS = readFileSync('examples/mcp/certificates.graphql', 'utf8');
/** Spends 40 calls: a page of 39 certificates and each one's detail (no cache). */
const SPEND_40 = `{ certificateCustomer(customerId: "demo-customer") {
  certificates(first: 39) { edges { node { csr } } } } }`;

let stack: Stack;
let agent: McpSession;
beforeAll(async () => {
  stack = await startStack({
    sim: { rateLimit: WINDOW, rateWindowSec: 300 },
    env: {
      MCP: 'on',
      MCP_OPERATIONS_DIR: 'examples/mcp',
      UPSTREAM_RATE_LIMIT: String(WINDOW),
      UPSTREAM_RATE_WINDOW_SEC: '300',
      UPSTREAM_CACHE: 'off',
    },
  });
  agent = await connectMcp(stack.url);
  // Spend the window down to 20: 5 of them above the agents' 15.
  for (let round = 0; round < 2; round += 1) {
    expect((await stack.gql(SPEND_40)).body.errors).toBeUndefined();
  }
  const viewer = await stack.gql('{ viewer { rateLimit { limit remaining writeReserve } } }');
  expect(viewer.body.data.viewer.rateLimit).toEqual({
    limit: 100,
    remaining: 20,
    writeReserve: 10,
  });
});
afterAll(async () => {
  await agent?.close();
  await stack?.close();
});

describe('with 5 calls left for the agent', () => {
  const SIXTY = { customerId: 'demo-customer', first: 59 };

  it('estimates a call of 60 without running it: it would be refused, and when to retry', async () => {
    await stack.resetCounts();
    expect((await boundOf(CHECKS, SIXTY, 'CertificateDomainChecks')).calls).toBe(60);
    const estimate = await agent.call('weft_estimate', {
      tool: 'CertificateDomainChecks',
      arguments: SIXTY,
    });
    expect(estimate.isError).toBeFalsy();
    expect(estimate.structuredContent).toMatchObject({
      tool: 'CertificateDomainChecks',
      calls: 60,
      budget: { limit: 100, remaining: 20 },
      leftForTool: 5,
      runsNow: false,
    });
    const retryAfterSec = (estimate.structuredContent as any).retryAfterSec;
    expect(retryAfterSec).toBeGreaterThan(0);
    expect(retryAfterSec).toBeLessThanOrEqual(300);
    expect(await stack.upstreamCalls()).toBe(0);
    const line = stack.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .findLast((entry) => entry['tool'] === 'weft_estimate');
    expect(line).toMatchObject({ req: { path: '/mcp' }, errors: 0 });
  });

  it('refuses the tool bounded at 60 with 0 upstream calls, and runs a one-call tool', async () => {
    await stack.resetCounts();
    const refused = await agent.call('CertificateDomainChecks', SIXTY);
    expect(refused.isError).toBe(true);
    const { errors, budget } = refused.structuredContent as any;
    expect(errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'OPERATION_BOUND',
      bound: 60,
      remaining: 5,
    });
    expect(errors[0].extensions.retryAfterSec).toBeGreaterThan(0);
    expect(errors[0].extensions.retryAfterSec).toBeLessThanOrEqual(300);
    expect(budget).toMatchObject({ limit: 100, remaining: 20, writeReserve: 10 });
    expect((refused.content[0] as { text: string }).text).toMatch(
      /up to 60 upstream calls and 5 are left for it .*nothing was spent\. Retry in \d+ s/,
    );
    expect(await stack.upstreamCalls()).toBe(0);

    const one = await agent.call('CertificatesExpiringSoon', { first: 5 });
    expect(one.isError).toBeFalsy();
    expect((one.structuredContent as any).certificateSubscriptions.edges.length).toBeGreaterThan(0);
    expect(await stack.upstreamCalls()).toBe(1);

    const metrics = (await stack.http('GET', '/metrics')).text;
    expect(metrics).toMatch(
      /weft_mcp_tool_calls_total\{tool="CertificateDomainChecks",outcome="refused"\} 1\b/,
    );
    expect(metrics).not.toMatch(
      /weft_mcp_tool_upstream_calls_total\{tool="CertificateDomainChecks"\}/,
    );
  });

  it("holds the agent below an app's request: a bound of 8 is refused to it, not to the app", async () => {
    // What is left is now 19: 4 above the agents' 15, 9 above an app's write reserve of 10.
    await stack.resetCounts();
    const EIGHT = { customerId: 'demo-customer', first: 7 };
    expect((await boundOf(CHECKS, EIGHT, 'CertificateDomainChecks')).calls).toBe(8);
    const refused = await agent.call('CertificateDomainChecks', EIGHT);
    expect((refused.structuredContent as any).errors[0].extensions).toMatchObject({
      limiter: 'OPERATION_BOUND',
      bound: 8,
      remaining: 4,
    });
    expect(await stack.upstreamCalls()).toBe(0);
    const app = await stack.http('POST', '/graphql', {
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({
        query: CHECKS,
        operationName: 'CertificateDomainChecks',
        variables: EIGHT,
      }),
    });
    expect(app.body.errors).toBeUndefined();
    expect(await stack.upstreamCalls()).toBe(8);
  });
});
