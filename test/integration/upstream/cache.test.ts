/**
 * The response cache through the graph (memory mode): repeated reads cost nothing, credentials never
 * share, stale-if-error within a bounded age says so in `extensions.stale`, secrets are never cached,
 * and a mutation is visible at once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeProcessDate, type FakeProcessDate } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const PAGE = `{ certificateCustomer(customerId: "demo-customer") {
  certificates(first: 3) { edges { node { certificateId status csr domainVerifications { domain status } } } } } }`;

describe('response cache through the graph', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.resetCounts());

  it('answers a repeated query with no upstream call at all', async () => {
    const cold = await stack.gql(PAGE);
    expect(cold.body.errors).toBeUndefined();
    expect(await stack.upstreamCalls()).toBe(1 + 3 + 3); // page, details, verifications
    await stack.resetCounts();
    const warm = await stack.gql(PAGE);
    expect(warm.body.data).toEqual(cold.body.data);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('never serves one credential what another fetched', async () => {
    await stack.gql(PAGE);
    await stack.resetCounts();
    const other = await stack.gql(PAGE, undefined, { token: 'demo-readonly' });
    expect(other.body.errors).toBeUndefined();
    expect(await stack.upstreamCalls()).toBe(7);
    const foreign = await stack.gql(PAGE, undefined, { token: 'demo-other' });
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('reads a pending certificate on a schedule, not on every view', async () => {
    const PENDING = `{ certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "cert-0014") { status } } }`;
    expect((await stack.gql(PENDING)).body.data.certificateCustomer.certificate.status).toBe(
      'PENDING_ISSUANCE',
    );
    for (let view = 0; view < 5; view += 1) await stack.gql(PENDING);
    expect(
      await stack.upstreamCalls('GET /v2/customers/{customerId}/certificates/{certificateId}'),
    ).toBe(1);
  });

  it('never caches the ACME binding (its hmacKey is a secret)', async () => {
    const EAB = `{ certificateCustomer(customerId: "demo-customer") { acmeExternalAccountBinding { keyId hmacKey } } }`;
    const first = await stack.gql(EAB);
    const hmacKey = first.body.data.certificateCustomer.acmeExternalAccountBinding.hmacKey;
    expect(hmacKey).toBeTruthy();
    await stack.gql(EAB);
    expect(
      await stack.upstreamCalls(
        'GET /v2/customers/{customerId}/certificates/acme/externalAccountBinding',
      ),
    ).toBe(2);
    expect(stack.logs.join('\n')).not.toContain(hmacKey);
  });

  it('shows a reissue at once: the certificate is pending on the next read', async () => {
    const STATUS = `{ certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "cert-0007") { status } } }`;
    expect((await stack.gql(STATUS)).body.data.certificateCustomer.certificate.status).toBe(
      'ISSUED',
    );
    await stack.gql(STATUS); // cached
    const reissue = await stack.gql(
      `mutation { reissueCertificate(input: { certificateId: "cert-0007" }) { certificateId userErrors { code } } }`,
    );
    expect(reissue.body.data.reissueCertificate.userErrors).toEqual([]);
    expect((await stack.gql(STATUS)).body.data.certificateCustomer.certificate.status).toBe(
      'PENDING_ISSUANCE',
    );
  });
});

describe('stale-if-error', () => {
  let stack: Stack;
  // The stack's clock: ages and TTLs are what the test moves it by.
  let time: FakeProcessDate;
  beforeAll(async () => {
    time = fakeProcessDate();
    stack = await startStack({
      env: {
        CACHE_TTL_OVERRIDES: 'certificate-list=1',
        CACHE_STALE_MAX_AGE_SEC: '2',
        UPSTREAM_MAX_ATTEMPTS: '1',
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    time.restore();
  });

  const LIST = `{ certificateCustomer(customerId: "demo-customer") { certificates(first: 3) { edges { node { certificateId } } } } }`;

  it('serves the last good value when the upstream fails, and says how old it is', async () => {
    stack.sim.simulator.configure({ faultRate: 0 });
    const good = await stack.gql(LIST);
    expect(good.body.extensions?.stale).toBeUndefined();
    time.advance(1_500); // past the 1 s TTL
    stack.sim.simulator.configure({ faultRate: 1 });
    const stale = await stack.gql(LIST);
    expect(stale.body.errors).toBeUndefined();
    expect(stale.body.data).toEqual(good.body.data);
    expect(stale.body.extensions.stale).toEqual({
      ageSec: 1,
      sources: [
        {
          route: 'GET /v2/customers/{customerId}/certificates',
          ageSec: 1,
          reason: 'UPSTREAM_ERROR',
        },
      ],
    });
    // It tried the upstream (and paid for it): the budget is reported too.
    expect(stale.body.extensions.rateLimit).toBeDefined();
  });

  it('fails once the value is older than TTL + CACHE_STALE_MAX_AGE_SEC', async () => {
    const SHORTER = LIST.replace('first: 3', 'first: 2');
    stack.sim.simulator.configure({ faultRate: 0 });
    await stack.gql(SHORTER);
    time.advance(3_000); // TTL + CACHE_STALE_MAX_AGE_SEC: the oldest value still served
    stack.sim.simulator.configure({ faultRate: 1 });
    expect((await stack.gql(SHORTER)).body.extensions.stale.ageSec).toBe(3);
    time.advance(1);
    const failed = await stack.gql(SHORTER);
    expect(failed.body.errors[0].extensions.code).toBe('UPSTREAM_ERROR');
    expect(failed.body.extensions?.stale).toBeUndefined();
    stack.sim.simulator.configure({ faultRate: 0 });
  });
});

describe('singleflight through the graph', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sim: { latencyMs: 150 } });
  });
  afterAll(() => stack.close());

  it('lets identical reads in flight share one upstream call, per credential only', async () => {
    const EAB = `{ certificateCustomer(customerId: "demo-customer") { acmeExternalAccountBinding { keyId } } }`;
    const answers = await Promise.all([
      stack.gql(EAB),
      stack.gql(EAB),
      stack.gql(EAB),
      stack.gql(EAB, undefined, { token: 'demo-readonly' }),
    ]);
    for (const answer of answers) expect(answer.body.errors).toBeUndefined();
    // Never cached (a secret), but the three identical reads of demo-token were one call.
    expect(
      await stack.upstreamCalls(
        'GET /v2/customers/{customerId}/certificates/acme/externalAccountBinding',
      ),
    ).toBe(2);
  });
});
