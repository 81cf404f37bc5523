/**
 * The upstream dies mid-request and comes back: what fails is named for what it is and
 * answered within the deadline. A TCP front (`killable-upstream.ts`) holds requests so that they
 * are in flight, then cuts every connection and refuses new ones, as a killed process does.
 *
 * A short deadline: the answers are timed against it (a deadline property, not a speed benchmark).
 * The margin covers the gateway's own work around the upstream call on a loaded machine.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCsr } from '../../support/csr.ts';
import { fakeProcessDate, until, type FakeProcessDate } from '../../support/clock.ts';
import { startStack, type GqlResult, type Stack } from '../../support/gateway-harness.ts';
import { startKillableUpstream, type KillableUpstream } from '../../support/killable-upstream.ts';
import {
  connectTestRedis,
  deleteUnder,
  REDIS_URL,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';

const DEADLINE_MS = 2_000;
const MARGIN_MS = 750;
const BREAKER_OPEN_MS = 1_000;
const ENV = {
  UPSTREAM_DEADLINE_MS: String(DEADLINE_MS),
  UPSTREAM_CONNECT_TIMEOUT_MS: '1000',
  UPSTREAM_HEADERS_TIMEOUT_MS: String(DEADLINE_MS),
  UPSTREAM_BODY_TIMEOUT_MS: String(DEADLINE_MS),
  BREAKER_OPEN_MS: String(BREAKER_OPEN_MS),
  LOG_LEVEL: 'warn',
};

/** Job status is never cached: every read reaches the upstream. */
const JOB = `query($jobId: ID!) { appJob(jobId: $jobId) { status } }`;
const TWO_JOBS = `{ a: appJob(jobId: "job-0001") { status } b: appJob(jobId: "job-0002") { status } }`;
const STORE = '11111111-1111-4111-8111-111111111111';

/** Every mutation that sends a write: its document, variables and the read its error names. */
const WRITES: readonly {
  name: string;
  mutation: string;
  variables: () => Promise<Record<string, unknown>>;
  verifyWith: string;
}[] = [
  {
    name: 'updateApp',
    mutation: `mutation { updateApp(input: { appId: "app-0001", name: "maybe-renamed" }) {
      app { name } userErrors { code } } }`,
    variables: async () => ({}),
    verifyWith: 'app(appId:) { name updatedAt }',
  },
  {
    name: 'orderCertificate',
    mutation: `mutation($input: OrderCertificateInput!) { orderCertificate(input: $input) {
      certificateId userErrors { code } } }`,
    variables: async () => ({
      input: { csr: await createCsr('maybe.example.com'), productType: 'DV_SSL', period: 1 },
    }),
    verifyWith:
      'certificateCustomer(customerId:) { certificates { edges { node { certificateId commonName status createdAt } } } }',
  },
  {
    name: 'reissueCertificate',
    mutation: `mutation { reissueCertificate(input: { certificateId: "cert-0001", commonName: "maybe.example.com" }) {
      certificateId userErrors { code } } }`,
    variables: async () => ({}),
    verifyWith:
      'certificateCustomer(customerId:) { certificate(certificateId:) { status statusRaw } }',
  },
  {
    name: 'createStoreCustomer',
    mutation: `mutation($input: CreateStoreCustomerInput!) { createStoreCustomer(input: $input) {
      customer { customerId } userErrors { code } } }`,
    variables: async () => ({
      input: { storeId: STORE, customer: { email: 'maybe@example.com' } },
    }),
    verifyWith: 'store(storeId:) { customers { edges { node { customerId raw } } } }',
  },
  {
    name: 'updateStoreCustomer',
    mutation: `mutation($input: UpdateStoreCustomerInput!) { updateStoreCustomer(input: $input) {
      customer { customerId } userErrors { code } } }`,
    variables: async () => ({
      input: { storeId: STORE, customerId: 'cust-0001', customer: { familyName: 'Maybe' } },
    }),
    verifyWith: 'store(storeId:) { customer(customerId:) { customerId raw } }',
  },
];

/** What the upstream being gone may be called: failing, or not called while its circuit is open. */
const GONE = ['UPSTREAM_ERROR', 'UPSTREAM_UNAVAILABLE'];

async function timed(request: Promise<GqlResult>): Promise<GqlResult & { ms: number }> {
  const started = performance.now();
  const result = await request;
  return { ...result, ms: performance.now() - started };
}

const codes = (result: GqlResult): string[] =>
  (result.body.errors ?? []).map(
    (error: { extensions: { code: string } }) => error.extensions.code,
  );

/** Starts `request` and resolves, with its answer to come, once its bytes reached the front. */
async function inFlight(
  front: KillableUpstream,
  request: () => Promise<GqlResult>,
): Promise<{ answer: Promise<GqlResult & { ms: number }> }> {
  const arrived = front.heldRequest();
  const answer = timed(request());
  await arrived;
  // Wrapped: an async function returning the promise itself would wait for the answer.
  return { answer };
}

/** The cases where the token bucket takes part: run on each bucket store. */
function upstreamDeathCases(env: Record<string, string>) {
  let stack: Stack;
  let front: KillableUpstream;
  beforeAll(async () => {
    stack = await startStack({
      env: { ...ENV, ...env },
      upstream: async (url) => (front = await startKillableUpstream(url)).url,
    });
  });
  afterAll(async () => {
    await stack.close();
    await front.close();
  });
  afterEach(async () => {
    // Up again, and its circuit closed: a read has got through.
    await front.revive();
    await until(
      async () => codes(await stack.gql(JOB, { jobId: 'job-0001' })).length === 0,
      'the upstream to be read again',
    );
  });

  it('fails the calls waiting for a slow-start probe as the upstream failing, not the budget, within the deadline', async () => {
    // A credential this gateway has never had an answer for: its first call is the probe, and the
    // query's other field waits for that probe's answer.
    front.hold();
    const query = await inFlight(front, () =>
      stack.gql(TWO_JOBS, undefined, { token: 'demo-readonly' }),
    );
    await front.kill();
    const result = await query.answer;

    expect(result.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    expect(result.body.data).toEqual({ a: null, b: null });
    expect(codes(result)).toHaveLength(2);
    for (const code of codes(result)) expect(GONE).toContain(code);
  });

  it('fails a read in flight as UPSTREAM_ERROR, within the deadline', async () => {
    await stack.gql(JOB, { jobId: 'job-0001' }); // the credential's view is fresh: no probe
    front.hold();
    const read = await inFlight(front, () => stack.gql(JOB, { jobId: 'job-0002' }));
    await front.kill();

    const result = await read.answer;
    expect(result.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    expect(codes(result)).toHaveLength(1);
    expect(GONE).toContain(codes(result)[0]);
  });

  it.each(WRITES)(
    'reports $name in flight as of unknown outcome, naming the read to check',
    async ({ mutation, variables, verifyWith }) => {
      const values = await variables();
      await stack.gql(JOB, { jobId: 'job-0001' }); // the credential's view is fresh: no probe
      front.hold();
      const write = await inFlight(front, () => stack.gql(mutation, values));
      await front.kill();

      const result = await write.answer;
      expect(result.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
      expect(result.body.errors).toHaveLength(1);
      expect(result.body.errors[0].message).toMatch(/may or may not have been applied/);
      expect(result.body.errors[0].extensions).toMatchObject({
        code: 'UPSTREAM_ERROR',
        outcome: 'UNKNOWN',
        verifyWith,
      });
    },
  );

  it('reports a stitched subgraph mutation in flight as of unknown outcome', async () => {
    await stack.gql(JOB, { jobId: 'job-0001' }); // the credential's view is fresh: no probe
    front.hold();
    const write = await inFlight(front, () =>
      stack.gql(
        `mutation($s: ID) { createSku(storeId: $s, input: { code: "MAYBE-1", name: "Maybe" }) { id } }`,
        { s: STORE },
      ),
    );
    await front.kill();

    const result = await write.answer;
    expect(result.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    expect(result.body.errors[0].extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      outcome: 'UNKNOWN',
    });
  });

  it('answers every read within the deadline while the upstream is down, at once while its circuit is open', async () => {
    await front.kill();
    const answers: string[] = [];
    // A credential not yet answered, as every credential is again after a quiet minute: each of
    // its calls is a slow-start probe, or waits for one.
    for (let i = 0; i < 8; i += 1) {
      const result = await timed(stack.gql(TWO_JOBS, undefined, { token: 'demo-other' }));
      expect(result.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
      expect(codes(result)).toHaveLength(2);
      answers.push(...codes(result));
    }
    for (const code of answers) expect(GONE).toContain(code);
    expect(answers).toContain('UPSTREAM_UNAVAILABLE');
  });
}

describe('the upstream dies mid-request (memory store)', () => {
  upstreamDeathCases({});
});

describe.skipIf(!testRedisAvailable)('the upstream dies mid-request (Redis)', () => {
  const prefix = testPrefix('upstream-death');
  upstreamDeathCases({
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    CREDENTIAL_HMAC_SECRET: 'upstream-death-test-secret-0123456789',
  });
  afterAll(async () => {
    const admin = await connectTestRedis();
    await deleteUnder(admin, prefix);
    await admin.close();
  });
});

describe('the upstream comes back', () => {
  let stack: Stack;
  let front: KillableUpstream;
  // The breaker's clock: its probe interval passes when the test moves it.
  let time: FakeProcessDate;
  beforeAll(async () => {
    time = fakeProcessDate();
    stack = await startStack({
      env: ENV,
      upstream: async (url) => (front = await startKillableUpstream(url)).url,
    });
  });
  afterAll(async () => {
    await stack.close();
    await front.close();
    time.restore();
  });

  it('is read again by the first read after the circuit’s probe interval', async () => {
    expect(codes(await stack.gql(JOB, { jobId: 'job-0001' }))).toEqual([]);
    await front.kill();
    let result = await stack.gql(JOB, { jobId: 'job-0001' });
    while (codes(result)[0] !== 'UPSTREAM_UNAVAILABLE') {
      expect(GONE).toContain(codes(result)[0]);
      result = await stack.gql(JOB, { jobId: 'job-0001' });
    }
    await front.revive();
    // Open: the upstream is not called, so its return is not seen yet.
    expect(codes(await stack.gql(JOB, { jobId: 'job-0001' }))).toEqual(['UPSTREAM_UNAVAILABLE']);

    time.advance(BREAKER_OPEN_MS);
    const back = await stack.gql(JOB, { jobId: 'job-0001' });
    expect(codes(back)).toEqual([]);
    expect(back.body.data.appJob.status).toBe('ACTIVE');
  });
});
