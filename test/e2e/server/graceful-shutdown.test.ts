/**
 * Shutdown as production runs it (the image's command and environment) against a standalone
 * upstream. SIGTERM arrives while a slow query is in flight and two subscriptions (graphql-ws and
 * SSE) are open: the query is answered, the streams end, the log says "stopped", the exit code is 0.
 * A query and a mutation still running when SHUTDOWN_TIMEOUT_MS ends are answered 503
 * SHUTTING_DOWN (the mutation with `outcome: "UNKNOWN"`) before the process exits. And 49 reads in
 * flight at 2 s per upstream call are all answered within the default bound: the send window lets a
 * round out as soon as the upstream has answered the one before, not a few calls per round trip.
 */
import { once } from 'node:events';
import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { wsClient } from '../../support/subscription-clients.ts';

const CREATE = `mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } } }`;
const SUB_JOB = `subscription($jobId: ID!) { appJob(jobId: $jobId) { jobId status } }`;
const SLOW_QUERY =
  '{ certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId } }';
const DETAIL = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") {
  certificate(certificateId: $id) { certificateId } } }`;
const PAGE = `query($offset: Int) { certificateCustomer(customerId: "demo-customer") {
  certificates(first: 2, offset: $offset) { edges { node { certificateId } } } } }`;
/** Reads in flight at SIGTERM: each its own upstream call. */
const IN_FLIGHT = 49;
/** The seeded customer's certificates. */
const CERTIFICATES = 44;
/**
 * How the tests wait for a log line or an arrival: a condition, not a time. Its deadline allows a
 * loaded two-core machine (expect.poll's default of 1 s did not).
 */
const POLL = { interval: 10, timeout: 30_000 };

let sim: RunningSimulator;
/** `METHOD /path` of each call the upstream received. */
const arrivals: string[] = [];
beforeAll(async () => {
  sim = await startSimulator({ onArrival: ({ method, url }) => arrivals.push(`${method} ${url}`) });
});
afterAll(() => sim.close());
afterEach(() => sim.simulator.configure({ latencyMs: 0 }));

/** The `msg` of each log line (a line that is not JSON as it is). */
function messagesOf(gateway: GatewayProcess): (string | undefined)[] {
  return gateway.logs.map((line) => {
    try {
      return (JSON.parse(line) as { msg?: string }).msg;
    } catch {
      return line;
    }
  });
}

/** Sends the slow query and resolves once the gateway has received it (its debug log line). */
async function slowQueryInFlight(gateway: GatewayProcess) {
  const received = () => gateway.logs.filter((line) => line.includes('"incoming request"')).length;
  const before = received();
  const answer = gateway.gql(SLOW_QUERY);
  await expect.poll(received, POLL).toBeGreaterThan(before);
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
    const messages = messagesOf(gateway);
    expect(messages).toContain('stopped');
    expect(messages.indexOf('stopped'), gateway.logs.slice(-2).join('\n')).toBe(
      messages.length - 1,
    );
  });

  it('answers the requests that outlive SHUTDOWN_TIMEOUT_MS with a retryable SHUTTING_DOWN, then stops cleanly', async () => {
    const gateway = await startGatewayProcess({
      UPSTREAM_URL: sim.url,
      SHUTDOWN_TIMEOUT_MS: '1000',
      UPSTREAM_DEADLINE_MS: '20000',
      UPSTREAM_HEADERS_TIMEOUT_MS: '20000',
    });
    // A failed assertion leaves no process behind (nor the simulator waiting on its connections).
    onTestFinished(() => gateway.stop());
    sim.simulator.configure({ latencyMs: 8_000 });
    arrivals.length = 0;
    let exited = false;
    gateway.child.once('exit', () => {
      exited = true;
    });
    /** The answer as the client got it, and whether the gateway had exited by then; or the cut. */
    const settle = (answer: ReturnType<GatewayProcess['gql']>) =>
      answer.then(
        ({ status, headers, body }) => ({ status, headers, body, exited }),
        (error: unknown) => ({ cut: String(error) }),
      );
    const query = settle(gateway.gql(SLOW_QUERY));
    // Another credential: a credential's first upstream call is its slow-start probe, and its next
    // one waits for the probe's answer (docs/budget.md), which would keep the write from starting.
    const mutation = settle(gateway.gql(CREATE, { name: 'cut-by-shutdown' }, 'writer-token'));
    // Both have reached the upstream: the query's read and the mutation's write are under way, so
    // whether the app gets created is up to the upstream, not the gateway.
    await expect
      .poll(() => arrivals, POLL)
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^GET .*demo-entitlement/),
          'POST /v1/hosting/nodejs/apps',
        ]),
      );
    const started = Date.now();
    gateway.child.kill('SIGTERM');

    const queryAnswer = await query;
    expect(queryAnswer).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1', connection: 'close' },
      exited: false,
    });
    expect(queryAnswer).toHaveProperty('body', {
      errors: [
        {
          message: expect.stringContaining('shutting down'),
          extensions: {
            code: 'SHUTTING_DOWN',
            retryAfterSec: 1,
            requestId: (queryAnswer as { headers: Record<string, string> }).headers['x-request-id'],
          },
        },
      ],
    });
    const mutationAnswer = await mutation;
    expect(mutationAnswer).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1' },
      exited: false,
    });
    expect(mutationAnswer).toHaveProperty('body', {
      data: null,
      errors: [
        {
          message: expect.stringContaining('may or may not have been applied'),
          path: ['createApp'],
          extensions: {
            code: 'SHUTTING_DOWN',
            retryAfterSec: 1,
            outcome: 'UNKNOWN',
            verifyWith: 'apps { appId name }',
            requestId: (mutationAnswer as { headers: Record<string, string> }).headers[
              'x-request-id'
            ],
          },
        },
      ],
    });

    const [code, signal] = (await once(gateway.child, 'exit')) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // The bound (1 s), the upstream pool's 2 s for the calls still under way, and closing.
    expect(Date.now() - started).toBeLessThan(5_000);
    const messages = messagesOf(gateway);
    expect(messages).toContain(
      'in-flight requests outlived the shutdown bound; answering them SHUTTING_DOWN',
    );
    expect(messages.at(-1)).toBe('stopped');
    // Each answer has its access line, with the code the client received.
    const answered = gateway.logs
      .filter((line) => line.includes('"SHUTTING_DOWN"'))
      .map((line) => JSON.parse(line) as { reqId: string; res: unknown; errorCodes: unknown });
    expect(
      Object.fromEntries(
        answered.map(({ reqId, res, errorCodes }) => [reqId, { res, errorCodes }]),
      ),
    ).toEqual(
      Object.fromEntries(
        [queryAnswer, mutationAnswer].map((answer) => [
          (answer as { headers: Record<string, string> }).headers['x-request-id'],
          { res: { statusCode: 503 }, errorCodes: ['SHUTTING_DOWN'] },
        ]),
      ),
    );
  });

  it(`answers ${IN_FLIGHT} reads in flight at 2 s per upstream call within the default bound, each with its data`, async () => {
    const gateway = await startGatewayProcess({ UPSTREAM_URL: sim.url, LOG_LEVEL: 'debug' });
    onTestFinished(() => gateway.stop());
    const received = () =>
      gateway.logs.filter((line) => line.includes('"incoming request"')).length;
    const started = received();
    // The credential has been answered: its calls are sent by its send window, not one probe.
    expect((await gateway.gql(DETAIL, { id: 'cert-0050' })).body.errors).toBeUndefined();
    // Its line is written (lines go out in batches) before the others are counted.
    await expect.poll(received, POLL).toBe(started + 1);
    sim.simulator.configure({ latencyMs: 2_000 });
    const before = received();
    // The customer's 44 certificates, then pages of its list: each read its own upstream call.
    const answers = Array.from({ length: IN_FLIGHT }, (_, i) =>
      i < CERTIFICATES
        ? gateway.gql(DETAIL, { id: `cert-${String(i + 1).padStart(4, '0')}` })
        : gateway.gql(PAGE, { offset: i - CERTIFICATES }),
    );
    await expect.poll(received, POLL).toBe(before + IN_FLIGHT);
    gateway.child.kill('SIGTERM');

    const settled = await Promise.all(answers);
    // Every one answered with its data: none cut by the drain's bound (8 s by default).
    const customers = settled.map(({ status, body }) =>
      status === 200 && body.errors === undefined ? body.data.certificateCustomer : undefined,
    );
    expect(
      settled
        .filter((_, i) => customers[i] === undefined)
        .map(({ status, body }) => ({ status, code: body.errors?.[0]?.extensions?.code })),
    ).toEqual([]);
    expect(customers.filter((customer) => customer.certificate?.certificateId)).toHaveLength(
      CERTIFICATES,
    );
    expect(customers.filter((customer) => customer.certificates?.edges.length > 0)).toHaveLength(
      IN_FLIGHT - CERTIFICATES,
    );
    const [code] = (await once(gateway.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(messagesOf(gateway)).not.toContain(
      'in-flight requests outlived the shutdown bound; answering them SHUTTING_DOWN',
    );
  });
});
