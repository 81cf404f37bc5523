/**
 * TRACING=otlp in a production process (the image's command and environment): with a batch delay
 * longer than the test, nothing reaches the collector while the process serves; SIGTERM sends the
 * waiting batch before the process exits 0, and the request's spans arrive whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess } from '../../support/gateway-process.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import {
  startOtlpReceiver,
  type OtlpReceiver,
} from '../../integration/observability/otlp-receiver.ts';

const QUERY = `query ShutdownTraced { certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }`;

let sim: RunningSimulator;
let receiver: OtlpReceiver;
beforeAll(async () => {
  sim = await startSimulator();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
  await sim.close();
});

describe('TRACING=otlp on shutdown', () => {
  it('sends the waiting batch when SIGTERM arrives, then exits 0', async () => {
    const gateway = await startGatewayProcess({
      UPSTREAM_URL: sim.url,
      TRACING: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // The exporter's own variable: the batch would leave on its own only after ten minutes.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    const { body } = await gateway.gql(QUERY);
    expect(body.data.certificateCustomer.certificates.totalCount).toBeGreaterThan(0);
    expect(receiver.exports).toHaveLength(0);

    await gateway.stop();
    expect(gateway.child.exitCode).toBe(0);
    const spans = receiver.spans();
    const operation = spans.find(
      (span) => span.attributes['graphql.operation.name'] === 'ShutdownTraced',
    );
    expect(operation).toBeDefined();
    const trace = spans.filter((span) => span.traceId === operation!.traceId);
    expect(trace.map((span) => span.kind).sort()).toEqual([1, 2, 3]);
    expect(gateway.logs.some((line) => line.includes('exporting traces over OTLP'))).toBe(true);
  });
});
