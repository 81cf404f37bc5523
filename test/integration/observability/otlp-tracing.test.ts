/**
 * TRACING=otlp against a real OTLP/HTTP endpoint (otlp-receiver.ts), in both encodings: the request's
 * SERVER span, the operation's span below it and one CLIENT span per upstream attempt below that,
 * continuing the caller's `traceparent` when trusted and only linking it when not; the upstream
 * (behind a recording proxy) receives the `traceparent` of each attempt's span; a canary token, a
 * canary variable value and an id from a path appear in no exported byte; the endpoint and encoding
 * follow the OTEL_EXPORTER_OTLP_* variables. (That the batch is sent on shutdown, in a production
 * process: test/e2e/observability/otlp-shutdown.test.ts.)
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.ts';

const CANARY_TOKEN = `canaryTok-${randomBytes(12).toString('hex')}`;
const CANARY_DOMAIN = `canary-${randomBytes(12).toString('hex')}`;
const PATH_ID = 'demo-customer';

const DASHBOARD = `query TracedDashboard($customer: ID!, $domain: String) {
  certificateCustomer(customerId: $customer) { certificates(first: 2) { totalCount } }
  certificateSubscriptions(filter: { domain: $domain }, first: 2) { totalCount }
}`;
/** One of the dashboard's calls again, in another document (so not a whole-response replay). */
const CACHED = `query CachedPart($customer: ID!) {
  certificateCustomer(customerId: $customer) { certificates(first: 2) { totalCount } }
}`;
const WHO = `query CanaryCaller { certificateCustomer(customerId: "${PATH_ID}") { certificates(first: 1) { totalCount } } }`;

const SERVER = 2;
const INTERNAL = 1;
const CLIENT = 3;
const ERROR = 2;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const incoming = () => {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
};
/** The trace id and span id a `traceparent` header names. */
const parsed = (traceparent: unknown) => {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(traceparent));
  if (!match) throw new Error(`not a sampled version-00 traceparent: ${String(traceparent)}`);
  return { traceId: match[1]!, spanId: match[2]! };
};

interface TracedStack {
  readonly stack: Stack;
  readonly receiver: OtlpReceiver;
  readonly proxy: RecordingProxy;
  close(): Promise<void>;
}

async function startTraced(
  env: (receiver: OtlpReceiver) => Record<string, string>,
): Promise<TracedStack> {
  const receiver = await startOtlpReceiver();
  let proxy: RecordingProxy | undefined;
  const stack = await startStack({
    env: { TRACING: 'otlp', OTEL_SERVICE_NAME: 'weft-test', ...env(receiver) },
    upstream: async (simulatorUrl) => {
      proxy = await startRecordingProxy(simulatorUrl);
      return proxy.url;
    },
  });
  return {
    stack,
    receiver,
    proxy: proxy!,
    async close() {
      await stack.close();
      await proxy!.close();
      await receiver.close();
    },
  };
}

describe.each([
  {
    protocol: 'http/protobuf',
    // The general endpoint: the exporter appends v1/traces; protobuf is the default encoding.
    env: (receiver: OtlpReceiver) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
    path: '/v1/traces',
    contentType: 'application/x-protobuf',
  },
  {
    protocol: 'http/json',
    // The traces endpoint is used as is, and the traces protocol wins over the general one.
    env: (receiver: OtlpReceiver) => ({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/collector/traces`,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/unused',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    }),
    path: '/collector/traces',
    contentType: 'application/json',
  },
])('TRACING=otlp over $protocol', ({ env, path, contentType }) => {
  let traced: TracedStack;
  let spans: ReceivedSpan[];
  const caller = incoming();
  const second = incoming();
  let dashboardRequests: RecordingProxy['requests'] = [];

  beforeAll(async () => {
    traced = await startTraced((receiver) => ({
      ...env(receiver),
      TRACING_TRUST_TRACEPARENT: 'true',
    }));
    const { stack, proxy, receiver } = traced;
    // The first upstream attempt is answered 503: the client retries it.
    proxy.failNext(1);
    const dashboard = await stack.gql(
      DASHBOARD,
      { customer: PATH_ID, domain: CANARY_DOMAIN },
      { headers: { traceparent: caller.traceparent, tracestate: 'caller=t61rcWkgMzE' } },
    );
    expect(dashboard.body.errors).toBeUndefined();
    dashboardRequests = [...proxy.requests];
    const cached = await stack.gql(
      CACHED,
      { customer: PATH_ID },
      { headers: { traceparent: second.traceparent } },
    );
    expect(cached.body.errors).toBeUndefined();
    expect(proxy.requests).toHaveLength(dashboardRequests.length);
    const refused = await stack.gql(WHO, undefined, { token: CANARY_TOKEN });
    expect(refused.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    // Closing sends the batch still waiting (test/e2e/observability shows it is the only send).
    await stack.close();
    spans = receiver.spans();
  });
  afterAll(async () => {
    await traced.proxy.close();
    await traced.receiver.close();
  });

  it('exports to the configured endpoint in the configured encoding', () => {
    expect(traced.receiver.exports.length).toBeGreaterThan(0);
    for (const received of traced.receiver.exports) {
      expect(received.path).toBe(path);
      expect(received.contentType).toContain(contentType);
    }
    expect(spans[0]!.resource['service.name']).toBe('weft-test');
  });

  it("continues the caller's trace: request span, operation span, one client span per attempt", () => {
    const inTrace = spans.filter((span) => span.traceId === caller.traceId);
    const request = inTrace.find((span) => span.kind === SERVER)!;
    expect(request).toMatchObject({
      name: 'POST /graphql',
      parentSpanId: caller.spanId,
      traceState: 'caller=t61rcWkgMzE',
    });
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'http.response.status_code': 200,
    });

    const operation = inTrace.find((span) => span.kind === INTERNAL)!;
    expect(operation.parentSpanId).toBe(request.spanId);
    expect(operation.name).toBe('query');
    expect(operation.attributes).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'TracedDashboard',
      'weft.graphql.document.hash': sha256(DASHBOARD),
      'weft.graphql.error_count': 0,
    });
    expect(operation.attributes['graphql.document']).toBeUndefined();

    const attempts = inTrace.filter((span) => span.kind === CLIENT);
    // One per request the upstream (the proxy) received, the failed one included.
    expect(dashboardRequests.length).toBeGreaterThanOrEqual(3);
    expect(attempts).toHaveLength(dashboardRequests.length);
    const port = Number(new URL(traced.proxy.url).port);
    for (const attempt of attempts) {
      expect(attempt.parentSpanId).toBe(operation.spanId);
      expect(attempt.name).toBe(
        `${attempt.attributes['http.request.method']} ${attempt.attributes['url.template']}`,
      );
      expect(attempt.attributes['url.template']).toMatch(/^\/[^?]*$/);
      expect(attempt.attributes).toMatchObject({
        'server.address': '127.0.0.1',
        'server.port': port,
      });
    }

    // Each upstream request named its own attempt's span, in the caller's trace.
    const named = dashboardRequests.map((request) => parsed(request.headers.traceparent));
    expect(named.every((ids) => ids.traceId === caller.traceId)).toBe(true);
    expect(named.map((ids) => ids.spanId).sort()).toEqual(
      attempts.map((span) => span.spanId).sort(),
    );
    expect(dashboardRequests.every((r) => r.headers.tracestate === 'caller=t61rcWkgMzE')).toBe(
      true,
    );

    // The refused first attempt and its retry: the retry counts one resend and reads the budget.
    const failedIndex = dashboardRequests.findIndex((request) => request.failed);
    const failed = attempts.find((span) => span.spanId === named[failedIndex]!.spanId)!;
    expect(failed.attributes['http.response.status_code']).toBe(503);
    expect(failed.attributes['http.request.resend_count']).toBeUndefined();
    expect(failed.statusCode).toBe(ERROR);
    const retry = attempts.find(
      (span) =>
        span.attributes['url.template'] === failed.attributes['url.template'] &&
        span.spanId !== failed.spanId,
    )!;
    expect(retry.attributes).toMatchObject({
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
    });
    expect(typeof retry.attributes['weft.budget.remaining']).toBe('number');
    const firstTries = attempts.filter((span) => span !== retry);
    expect(
      firstTries.every((span) => span.attributes['http.request.resend_count'] === undefined),
    ).toBe(true);
  });

  it('counts the calls on the operation span, and names each call served without the upstream', () => {
    const operationOf = (traceId: string) =>
      spans.find((span) => span.traceId === traceId && span.kind === INTERNAL)!;
    const dashboard = operationOf(caller.traceId);
    expect(dashboard.attributes).toMatchObject({
      // Every request the upstream received, the failed attempt included: one per attempt span.
      'weft.upstream.requests': dashboardRequests.length,
      'weft.upstream.calls_without_upstream': 0,
    });
    expect(dashboard.events).toEqual([]);

    const cached = operationOf(second.traceId);
    expect(cached.attributes).toMatchObject({
      'weft.upstream.requests': 0,
      'weft.upstream.calls_without_upstream': 1,
    });
    expect(spans.filter((span) => span.traceId === second.traceId && span.kind === CLIENT)).toEqual(
      [],
    );
    expect(cached.events).toEqual([
      {
        name: 'weft.upstream.call',
        attributes: {
          'http.request.method': 'GET',
          'url.template': '/v2/customers/{customerId}/certificates',
          'weft.upstream.source': 'cache',
        },
      },
    ]);
  });

  it('exports no token, no variable value and no id from a path', () => {
    // The canaries did travel: the domain to the upstream, the token's request was traced.
    expect(dashboardRequests.some((request) => request.url.includes(CANARY_DOMAIN))).toBe(true);
    const canaryCall = spans.find(
      (span) => span.kind === CLIENT && span.attributes['http.response.status_code'] === 401,
    );
    expect(canaryCall).toBeDefined();
    for (const received of traced.receiver.exports) {
      for (const secret of [CANARY_TOKEN, CANARY_DOMAIN, PATH_ID, 'demo-token', 'Bearer']) {
        expect(received.body.includes(secret), `${secret} in an export`).toBe(false);
      }
    }
  });
});

describe('an untrusted traceparent (TRACING_TRUST_TRACEPARENT unset)', () => {
  it("starts Weft's own trace and only links the caller's", async () => {
    const traced = await startTraced((receiver) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }));
    const caller = incoming();
    try {
      const answer = await traced.stack.gql(
        DASHBOARD,
        { customer: PATH_ID, domain: 'example' },
        { headers: { traceparent: caller.traceparent, tracestate: 'caller=chosen' } },
      );
      expect(answer.body.errors).toBeUndefined();
      await traced.stack.close();
      const spans = traced.receiver.spans();
      expect(spans.length).toBeGreaterThan(0);
      expect(spans.some((span) => span.traceId === caller.traceId)).toBe(false);

      const request = spans.find((span) => span.kind === SERVER)!;
      expect(request.parentSpanId).toBe('');
      expect(request.traceState).toBe('');
      expect(request.links).toEqual([{ traceId: caller.traceId, spanId: caller.spanId }]);
      expect(spans.every((span) => span.traceId === request.traceId)).toBe(true);

      expect(traced.proxy.requests.length).toBeGreaterThan(0);
      for (const upstream of traced.proxy.requests) {
        expect(parsed(upstream.headers.traceparent).traceId).toBe(request.traceId);
        expect(upstream.headers.tracestate).toBeUndefined();
      }
    } finally {
      await traced.proxy.close();
      await traced.receiver.close();
    }
  });
});

describe('TRACING=off', () => {
  it('sends no traceparent upstream', async () => {
    let proxy: RecordingProxy | undefined;
    const stack = await startStack({
      upstream: async (simulatorUrl) => {
        proxy = await startRecordingProxy(simulatorUrl);
        return proxy.url;
      },
    });
    try {
      await stack.gql(
        DASHBOARD,
        { customer: PATH_ID, domain: 'example' },
        {
          headers: { traceparent: incoming().traceparent },
        },
      );
      expect(proxy!.requests.length).toBeGreaterThan(0);
      expect(proxy!.requests.every((request) => request.headers.traceparent === undefined)).toBe(
        true,
      );
    } finally {
      await stack.close();
      await proxy!.close();
    }
  });
});

describe('OTEL_EXPORTER_OTLP_PROTOCOL=grpc', () => {
  it('is refused with TRACING=otlp only, and a traces protocol over HTTP overrides it', () => {
    expect(() => loadConfig({ TRACING: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported with TRACING=otlp/,
    );
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).TRACING).toBe('off');
    const config = loadConfig({
      TRACING: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    });
    expect(config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL).toBe('http/json');
  });
});
