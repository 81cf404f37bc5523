/**
 * Latency that throughput hides (docs/performance.md "What to expect"): what a user waits for when
 * nothing is cached, at the upstream latencies a real provider has, and what a SIGTERM leaves
 * unanswered when the upstream is slow.
 *
 * - Cold screens: a dashboard (certificates with details and verifications, apps with runtime status
 *   and deployments, a store's transactions) one at a time, against a gateway process with both caches
 *   off and a simulator of its own answering every call after `latencyMs`. Its calls form two
 *   dependent rounds (the lists, then what each list item needs), so no server can answer it in less
 *   than two round trips: the floor.
 * - The drain: 49 reads in flight at 2 s per upstream call, SIGTERM, the default drain bound (8 s):
 *   how many are answered with their data, and when the process exits.
 */
import { once } from 'node:events';
import { STORE_A } from '../../src/simulator/accounts.ts';
import { createSimulator } from '../../src/simulator/simulator.ts';
import { freePort, startGatewayProcess } from '../support/gateway-process.ts';

const DASHBOARD = `query Dashboard {
  certificateCustomer(customerId: "demo-customer") {
    certificates(first: 10) { totalCount edges { node {
      certificateId commonName status csr contact { email } domainVerifications { domain status } } } }
  }
  apps { appId name status runtimeStatus { __typename } deployments(limit: 3) { totalCount } }
  store(storeId: "${STORE_A}") { transactions(first: 10) { edges { node { transactionId status } } } }
}`;
const DETAIL = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") {
  certificate(certificateId: $id) { certificateId } } }`;
const PAGE = `query($offset: Int) { certificateCustomer(customerId: "demo-customer") {
  certificates(first: 2, offset: $offset) { edges { node { certificateId } } } } }`;
const CERTIFICATES = 44;
const IN_FLIGHT = 49;
const DRAIN_LATENCY_MS = 2_000;

export interface ColdScreenRow {
  readonly latencyMs: number;
  /** Each timed dashboard, ms (after one that warms the process and proves the credential). */
  readonly screensMs: number[];
  /** Upstream calls of one dashboard. */
  readonly calls: number;
}

export interface DrainFigures {
  readonly inFlight: number;
  readonly answered: number;
  readonly shuttingDown: number;
  /** From SIGTERM to the last answer, and to the process's exit, ms. */
  readonly lastAnswerMs: number;
  readonly exitMs: number;
}

/** A simulator without budget limits, answering every call after `latencyMs`. */
async function slowUpstream(latencyMs: number) {
  const simulator = await createSimulator({
    latencyMs,
    rateLimit: 1_000_000_000,
    rateWindowSec: 1399,
    ipLimits: false,
  });
  return { simulator, url: await simulator.listen(0) };
}

const gatewayOn = async (
  upstreamUrl: string,
  logLevel = 'warn',
  extraEnv: Record<string, string> = {},
) =>
  startGatewayProcess(
    {
      ...extraEnv,
      UPSTREAM_URL: upstreamUrl,
      NODE_ENV: 'production',
      LOG_LEVEL: logLevel,
      UPSTREAM_RATE_LIMIT: '1000000000',
      UPSTREAM_CACHE: 'off',
      RESPONSE_CACHE: 'false',
      PORT: String(await freePort()),
    },
    120_000,
  );

/**
 * `extraEnv`: the gateway's other settings, e.g. a Redis (`REDIS_URL`, `REDIS_KEY_PREFIX`,
 * `CREDENTIAL_HMAC_SECRET`): its budget then comes from leases of the shared bucket.
 */
export async function measureColdScreens(
  latencies: readonly number[],
  runs: number,
  extraEnv: Record<string, string> = {},
): Promise<ColdScreenRow[]> {
  const rows: ColdScreenRow[] = [];
  for (const latencyMs of latencies) {
    const upstream = await slowUpstream(latencyMs);
    const gateway = await gatewayOn(upstream.url, 'warn', extraEnv);
    try {
      const screensMs: number[] = [];
      let calls = 0;
      for (let run = -1; run < runs; run += 1) {
        upstream.simulator.stats.reset();
        const started = performance.now();
        const { body } = await gateway.gql(DASHBOARD);
        const tookMs = performance.now() - started;
        if (body.errors) throw new Error(`dashboard: ${JSON.stringify(body.errors[0])}`);
        calls = upstream.simulator.stats.snapshot().total;
        if (run >= 0) screensMs.push(tookMs);
      }
      rows.push({ latencyMs, screensMs, calls });
    } finally {
      await gateway.stop();
      await upstream.simulator.close();
    }
  }
  return rows;
}

export async function measureDrain(): Promise<DrainFigures> {
  const upstream = await slowUpstream(0);
  // `debug`: each request's "incoming request" line says it has reached the gateway.
  const gateway = await gatewayOn(upstream.url, 'debug');
  const received = () => gateway.logs.filter((line) => line.includes('"incoming request"')).length;
  const reached = async (count: number) => {
    while (received() < count) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  try {
    // The credential has been answered: its calls go by its send window, not one probe first.
    const linesBefore = received();
    await gateway.gql(DETAIL, { id: 'cert-0001' });
    await reached(linesBefore + 1);
    upstream.simulator.configure({ latencyMs: DRAIN_LATENCY_MS });
    let lastAnswerAt = 0;
    const answers = Array.from({ length: IN_FLIGHT }, (_, i) =>
      (i < CERTIFICATES
        ? gateway.gql(DETAIL, { id: `cert-${String(i + 1).padStart(4, '0')}` })
        : gateway.gql(PAGE, { offset: i - CERTIFICATES })
      ).then((answer) => {
        lastAnswerAt = performance.now();
        return answer;
      }),
    );
    await reached(linesBefore + 1 + IN_FLIGHT);
    const signalledAt = performance.now();
    const exited = once(gateway.child, 'exit');
    gateway.child.kill('SIGTERM');
    const settled = await Promise.all(answers);
    await exited;
    const exitMs = performance.now() - signalledAt;
    const codes = settled.map(
      ({ body }) => body.errors?.[0]?.extensions?.code as string | undefined,
    );
    return {
      inFlight: IN_FLIGHT,
      answered: codes.filter((code) => code === undefined).length,
      shuttingDown: codes.filter((code) => code === 'SHUTTING_DOWN').length,
      lastAnswerMs: lastAnswerAt - signalledAt,
      exitMs,
    };
  } finally {
    await gateway.stop();
    await upstream.simulator.close();
  }
}
