import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { collectSse, collectWs, wsClient } from '../../support/subscription-clients.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { LIMIT_MAX_COST: '100' } });
});
afterAll(() => stack.close());

/** 50 deployments × 50 log lines of each deployment's app: far past a cost of 100. */
const COSTLY = `subscription($jobId: ID!) { appJob(jobId: $jobId) { status
  app { deployments(limit: 50) { deployments { deploymentId } }
        logs(target: PUBLISH, source: "app", since: "1h", lines: 500) { logs { message } } } } }`;

describe('subscriptions get the same limits as HTTP operations', () => {
  it('refuses a costly subscription over WebSocket and SSE before any upstream call', async () => {
    await stack.resetCounts();
    const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    try {
      const ws = await collectWs(client, COSTLY, { jobId: 'job-0001' });
      const wsErrors = (ws.failure ?? ws.results[0]?.errors) as {
        extensions?: Record<string, unknown>;
      }[];
      expect(JSON.stringify(wsErrors)).toContain('"limit":"cost"');
    } finally {
      await client.dispose();
    }
    const sse = await collectSse(stack.url, COSTLY, { jobId: 'job-0001' });
    expect(JSON.stringify(sse.failure ?? sse.results)).toContain('cost');
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses an oversize subscription document over WebSocket', async () => {
    const padding = `# ${'x'.repeat(40_000)}\n`;
    const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    try {
      const ws = await collectWs(
        client,
        `${padding}subscription { appJob(jobId: "job-0001") { status } }`,
      );
      expect(JSON.stringify(ws.failure ?? ws.results)).toContain('documentSize');
    } finally {
      await client.dispose();
    }
    expect(await stack.upstreamCalls()).toBe(0);
  });
});
