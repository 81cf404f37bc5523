import { afterEach, describe, expect, it } from 'vitest';
import { fakeProcessDate, type FakeProcessDate } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack | undefined;
// The breaker tests' clock (installed before their stack): the open window ends when they move it.
let time: FakeProcessDate | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
  time?.restore();
  time = undefined;
});

const LIST = `query CertificateList { certificateCustomer(customerId: "demo-customer") { certificates(first: 2) { totalCount } } }`;
const ROUTE = 'GET /v2/customers/{customerId}/certificates';

describe('metrics', () => {
  it('counts operations, upstream calls by route template and cache lookups, with no token or id in a label', async () => {
    stack = await startStack();
    await stack.gql(LIST);
    // Another document (a comment or whitespace would not be one: the replay key is normalised):
    // not replayed whole, an upstream cache hit.
    await stack.gql(LIST.replace(/\}\s*$/, ' __typename }'));
    await stack.gql(LIST, undefined, { token: 'canary-token-1f2e3d' });
    const { status, text } = await stack.http('GET', '/metrics');
    expect(status).toBe(200);
    expect(text).toMatch(
      /weft_graphql_operations_total\{operation="CertificateList",outcome="success"\} 2/,
    );
    expect(text).toMatch(
      /weft_graphql_operations_total\{operation="CertificateList",outcome="error"\} 1/,
    );
    expect(text).toContain(`weft_upstream_requests_total{route="${ROUTE}",status="200"} 1`);
    expect(text).toContain(`weft_upstream_requests_total{route="${ROUTE}",status="401"} 1`);
    expect(text).toMatch(/weft_cache_lookups_total\{result="hit"\} [1-9]/);
    expect(text).toMatch(/weft_graphql_operation_duration_seconds_bucket/);
    for (const forbidden of ['canary-token-1f2e3d', 'demo-token', 'demo-customer', 'cert-00']) {
      expect(text).not.toContain(forbidden);
    }
  });

  it('keeps operation-name labels bounded and well-formed', async () => {
    stack = await startStack();
    await stack.gql('query { __typename }');
    await stack.http('POST', '/graphql', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query A { __typename } query B { __typename }',
        operationName: 'A',
      }),
    });
    const { text } = await stack.http('GET', '/metrics');
    expect(text).toContain('operation="anonymous"');
    expect(text).toContain('operation="A"');
  });
});

describe('circuit breaker against simulator faults', () => {
  it('opens after repeated failures, refuses without calling, probes once, and closes', async () => {
    time = fakeProcessDate();
    stack = await startStack({
      env: {
        BREAKER_FAILURE_THRESHOLD: '3',
        BREAKER_OPEN_MS: '60000',
        UPSTREAM_CACHE: 'off',
        UPSTREAM_MAX_ATTEMPTS: '1',
      },
    });
    stack.sim.simulator.configure({ faultRate: 1 });
    for (let i = 0; i < 3; i += 1) {
      const { body } = await stack.gql(LIST);
      expect(body.errors[0].extensions.code).toBe('UPSTREAM_ERROR');
    }
    await stack.resetCounts();
    const refused = await stack.gql(LIST);
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      breaker: 'certificates',
    });
    expect(refused.body.errors[0].extensions.retryAfterSec).toBeGreaterThan(0);
    expect(await stack.upstreamCalls()).toBe(0);
    expect((await stack.http('GET', '/metrics')).text).toContain(
      'weft_circuit_breaker_state{class="certificates"} 2',
    );
    // Other upstream parts keep working.
    const apps = await stack.gql('{ apps { appId } }');
    expect(apps.body.errors[0].extensions.code).toBe('UPSTREAM_ERROR');

    // Still open a moment before the window ends.
    await stack.resetCounts();
    time.advance(59_999);
    expect((await stack.gql(LIST)).body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(await stack.upstreamCalls()).toBe(0);

    // Half-open: the probe fails → open again.
    time.advance(1);
    expect((await stack.gql(LIST)).body.errors[0].extensions.code).toBe('UPSTREAM_ERROR');
    expect((await stack.gql(LIST)).body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');

    // Half-open again: the upstream has recovered → the probe succeeds → closed.
    stack.sim.simulator.configure({ faultRate: 0 });
    time.advance(60_000);
    const recovered = await stack.gql(LIST);
    expect(recovered.body.data.certificateCustomer.certificates.totalCount).toBe(44);
    expect((await stack.gql(LIST)).body.errors).toBeUndefined();
    expect((await stack.http('GET', '/metrics')).text).toContain(
      'weft_circuit_breaker_state{class="certificates"} 0',
    );
  });

  it('serves cached values stale while the circuit is open', async () => {
    time = fakeProcessDate();
    stack = await startStack({
      env: {
        BREAKER_FAILURE_THRESHOLD: '2',
        BREAKER_OPEN_MS: '60000',
        UPSTREAM_MAX_ATTEMPTS: '1',
        CACHE_TTL_OVERRIDES: 'certificate-list=1',
      },
    });
    const fresh = await stack.gql(LIST);
    expect(fresh.body.data.certificateCustomer.certificates.totalCount).toBe(44);
    time.advance(1_100); // past the TTL
    stack.sim.simulator.configure({ faultRate: 1 });
    const other = `{ certificateCustomer(customerId: "demo-customer") { certificates(first: 3) { totalCount } } }`;
    await stack.gql(other);
    await stack.gql(other); // two failures: the certificates circuit is open
    await stack.resetCounts();
    const stale = await stack.gql(LIST);
    expect(stale.body.data.certificateCustomer.certificates.totalCount).toBe(44);
    expect(stale.body.extensions.stale.sources[0]).toMatchObject({ route: ROUTE });
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('tracing', () => {
  it('is off by default and, with TRACING=log, exports an operation span with upstream child spans', async () => {
    stack = await startStack();
    await stack.gql(LIST);
    expect(stack.logs.some((line) => line.includes('trace span'))).toBe(false);
    await stack.close();

    stack = await startStack({ env: { TRACING: 'log' } });
    await stack.gql(LIST);
    const spans = stack.logs
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'trace span');
    const operation = spans.find((span) => span.span === 'query');
    const upstream = spans.find((span) => span.span === ROUTE);
    expect(operation.attributes['graphql.operation.name']).toBe('CertificateList');
    expect(operation.attributes['weft.graphql.error_count']).toBe(0);
    expect(upstream.parentSpanId).toBe(operation.spanId);
    expect(upstream.traceId).toBe(operation.traceId);
    expect(JSON.stringify(spans)).not.toContain('demo-token');
    expect(JSON.stringify(spans)).not.toContain('demo-customer');
  });
});
