/**
 * The upstream's per-IP limits belong to the whole gateway (every tenant shares its IP): junk tokens
 * and one tenant's burst cannot use them up for everyone else. A refused token is refused locally;
 * tokens the upstream never answered share a quarter of a class; one credential takes at most half.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  // The upstream's documented per-IP limits: hosting reads 120 per minute.
  stack = await startStack({ sim: { ipLimits: {} } });
});
afterAll(() => stack.close());

const JOB = (n: number) => `{ appJob(jobId: "job-${String(n).padStart(4, '0')}") { jobId } }`;

describe('shared per-IP limits', () => {
  it("with 120 junk-token requests and one tenant's burst in flight, another tenant's read succeeds at once", async () => {
    // The other tenant has used the graph before (the upstream has answered its token).
    const seen = await stack.gql('{ apps { appId } }', undefined, { token: 'demo-other' });
    const appId = seen.body.data.apps[0].appId as string;
    await stack.resetCounts();
    // The junk and the burst are held at the upstream while the other tenant asks: in flight, and
    // costing this process no CPU, so the other tenant's time is the limiter's decision, not a queue.
    let arrived = 0;
    const countArrival = () => (arrived += 1);
    stack.sim.simulator.app.server.on('request', countArrival);
    stack.sim.simulator.configure({ latencyMs: 2_000 });
    const junk = Array.from({ length: 120 }, (_, i) =>
      stack.gql('{ apps { appId } }', undefined, { token: `junk-token-${i}` }),
    );
    const burst = Array.from({ length: 100 }, (_, i) => stack.gql(JOB(i + 1)));
    // Until whatever the gateway lets through has reached the upstream (no arrival for 200 ms).
    for (let seen = 0; arrived === 0 || seen !== arrived;) {
      seen = arrived;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    stack.sim.simulator.configure({ latencyMs: 0 });

    const started = Date.now();
    const other = await stack.gql(`{ app(appId: "${appId}") { appId name } }`, undefined, {
      token: 'demo-other',
    });
    const tookMs = Date.now() - started;
    expect(other.body.errors, JSON.stringify(other.body.errors)).toBeUndefined();
    expect(other.body.data.app).not.toBeUndefined();
    expect(tookMs).toBeLessThan(1_000); // not the window: before, up to a minute

    const junkResults = await Promise.all(junk);
    await Promise.all(burst);
    stack.sim.simulator.app.server.off('request', countArrival);
    for (const result of junkResults) {
      expect(result.body.errors[0].extensions.code).toMatch(/UNAUTHENTICATED|RATE_LIMITED/);
    }
    // Junk tokens reached the upstream at most a quarter of the class (30 of 120 per minute).
    const stats = await stack.sim.stats();
    expect(stats.byStatus['401'] ?? 0).toBeLessThanOrEqual(30);
    expect(stats.byStatus['429']).toBeUndefined();
    console.log(
      `another tenant's read took ${tookMs} ms; junk reached the upstream ${stats.byStatus['401'] ?? 0} times`,
    );
  });
});
