/**
 * Shutdown as production runs it (the image's command and environment) against a standalone
 * upstream. SIGTERM arrives while a slow query is in flight and two subscriptions (graphql-ws and
 * SSE) are open: the query is answered, the streams end, the log says "stopped", the exit code is 0.
 */
import { once } from 'node:events';
import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { wsClient } from '../../support/subscription-clients.ts';

const CREATE = `mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } } }`;
const SUB_JOB = `subscription($jobId: ID!) { appJob(jobId: $jobId) { jobId status } }`;
const SLOW_QUERY =
  '{ certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId } }';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
afterEach(() => sim.simulator.configure({ latencyMs: 0 }));

/** Sends the slow query and resolves once the gateway has received it (its debug log line). */
async function slowQueryInFlight(gateway: GatewayProcess) {
  const received = () => gateway.logs.filter((line) => line.includes('"incoming request"')).length;
  const before = received();
  const answer = gateway.gql(SLOW_QUERY);
  await expect.poll(received, { interval: 10 }).toBeGreaterThan(before);
  return { answer };
}

describe('graceful shutdown in production mode', () => {
  it('answers the in-flight request, ends open subscriptions, logs "stopped" and exits 0', async () => {
    const gateway = await startGatewayProcess({
      UPSTREAM_URL: sim.url,
      // "incoming request" lines, which say the slow request has arrived.
      LOG_LEVEL: 'debug',
      // The subscriptions stay open: nothing is polled again within the test.
      SUBSCRIPTION_POLL_MIN_MS: '60000',
      SUBSCRIPTION_POLL_MAX_MS: '60000',
      SHUTDOWN_TIMEOUT_MS: '5000',
    });
    const { body } = await gateway.gql(CREATE, { name: 'shutdown-watch' });
    const jobId = body.data.createApp.job.jobId as string;

    // Both subscriptions have delivered their first result before the signal.
    const client = wsClient(gateway.url, { authorization: 'Bearer demo-token' });
    const sseClient = createSseClient({
      url: `${gateway.url}/graphql`,
      singleConnection: false,
      retryAttempts: 0,
      headers: { authorization: 'Bearer demo-token' },
    });
    const ws = client.iterate({ query: SUB_JOB, variables: { jobId } });
    const sse = sseClient.iterate({ query: SUB_JOB, variables: { jobId } });
    const firsts = await Promise.all([ws.next(), sse.next()]);
    for (const first of firsts) expect(first.value?.data?.appJob.status).toBe('PENDING');

    sim.simulator.configure({ latencyMs: 1_500 });
    const { answer } = await slowQueryInFlight(gateway);
    gateway.child.kill('SIGTERM');

    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.body.data.certificatesByEntitlement).toHaveLength(1);

    // Then the server completed both streams (no error, no cut connection).
    const lasts = await Promise.all([ws.next(), sse.next()]);
    expect(lasts).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
    await client.dispose();
    sseClient.dispose();

    const [code, signal] = (await once(gateway.child, 'exit')) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const messages = gateway.logs.map((line) => {
      try {
        return (JSON.parse(line) as { msg?: string }).msg;
      } catch {
        return line;
      }
    });
    expect(messages).toContain('stopped');
    expect(messages.indexOf('stopped'), gateway.logs.slice(-2).join('\n')).toBe(
      messages.length - 1,
    );
  });

  it('cuts a request that outlives SHUTDOWN_TIMEOUT_MS and still stops cleanly', async () => {
    const gateway = await startGatewayProcess({
      UPSTREAM_URL: sim.url,
      // "incoming request" lines, which say the slow request has arrived.
      LOG_LEVEL: 'debug',
      SHUTDOWN_TIMEOUT_MS: '500',
      UPSTREAM_DEADLINE_MS: '20000',
      UPSTREAM_HEADERS_TIMEOUT_MS: '20000',
    });
    sim.simulator.configure({ latencyMs: 8_000 });
    const inFlight = (await slowQueryInFlight(gateway)).answer.then(
      () => 'answered',
      () => 'cut',
    );
    const started = Date.now();
    gateway.child.kill('SIGTERM');
    const [code] = (await once(gateway.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await inFlight).toBe('cut');
    expect(gateway.logs.join('\n')).toContain('outlived the shutdown bound');
  });
});
