/**
 * The upstream's per-IP limits belong to the whole gateway (every tenant shares its IP): junk tokens
 * and one tenant's burst cannot use them up for everyone else. A refused token is refused locally;
 * tokens the upstream never answered have at most a few calls in flight per client address (the
 * next ones wait, then are refused: `unproven-gate.ts`); one credential takes at most four fifths
 * of a class. (Floods of junk against reads, deploys and creations: `unproven-tokens.test.ts`.)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  UNPROVEN_CALLS_PER_CLIENT,
  UNPROVEN_CALLS_WAITING,
} from '../../../src/upstream/unproven-gate.ts';
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
    // Both tenants have used the graph before (the upstream has answered their tokens): the burst is
    // a known tenant's, not one more unproven token queued with the junk of the same address.
    const seen = await stack.gql('{ apps { appId } }', undefined, { token: 'demo-other' });
    const appId = seen.body.data.apps[0].appId as string;
    expect((await stack.gql('{ apps { appId } }')).body.errors).toBeUndefined();
    await stack.resetCounts();
    // The junk and the burst are held at the upstream while the other tenant asks: in flight, and
    // costing this process no CPU, so the other tenant's time is the limiter's decision, not a queue.
    let arrived = 0;
    let junkInFlight = 0;
    let junkInFlightMost = 0;
    let burstInFlight = 0;
    const countArrival = (request: IncomingMessage, response: ServerResponse) => {
      arrived += 1;
      const authorization = String(request.headers.authorization);
      if (authorization === 'Bearer demo-token') {
        burstInFlight += 1;
        response.once('close', () => (burstInFlight -= 1));
      }
      if (!authorization.startsWith('Bearer junk-')) return;
      junkInFlight += 1;
      junkInFlightMost = Math.max(junkInFlightMost, junkInFlight);
      response.once('close', () => (junkInFlight -= 1));
    };
    stack.sim.simulator.app.server.on('request', countArrival);
    // Long enough that nothing held is answered while the other tenant asks.
    stack.sim.simulator.configure({ latencyMs: 5_000 });
    const junk = Array.from({ length: 120 }, (_, i) =>
      stack.gql('{ apps { appId } }', undefined, { token: `junk-token-${i}` }),
    );
    const burst = Array.from({ length: 100 }, (_, i) => stack.gql(JOB(i + 1)));
    // Until junk and burst are both held and whatever else the gateway lets through has reached the
    // upstream (no arrival for 300 ms).
    for (let seen = -1; junkInFlight === 0 || burstInFlight === 0 || seen !== arrived;) {
      seen = arrived;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const held = { junk: junkInFlight, burst: burstInFlight };
    stack.sim.simulator.configure({ latencyMs: 0 });

    const started = Date.now();
    const other = await stack.gql(`{ app(appId: "${appId}") { appId name } }`, undefined, {
      token: 'demo-other',
    });
    const tookMs = Date.now() - started;
    expect(other.body.errors, JSON.stringify(other.body.errors)).toBeUndefined();
    expect(other.body.data.app).not.toBeUndefined();
    expect(tookMs).toBeLessThan(1_000); // not the window: before, up to a minute
    // Asked while both were in flight.
    expect({ junk: junkInFlight, burst: burstInFlight }).toEqual(held);

    const junkResults = await Promise.all(junk);
    await Promise.all(burst);
    stack.sim.simulator.app.server.off('request', countArrival);
    for (const result of junkResults) {
      const extensions = result.body.errors[0].extensions;
      expect(extensions.code).toMatch(/UNAUTHENTICATED|RATE_LIMITED/);
      if (extensions.code === 'RATE_LIMITED') expect(extensions.limiter).toBe('UNPROVEN_TOKENS');
    }
    // Junk from one address held at most a few places of the class at once, and beyond the calls
    // in flight and the calls that may wait behind them was refused without reaching the upstream.
    expect(junkInFlightMost).toBeLessThanOrEqual(UNPROVEN_CALLS_PER_CLIENT);
    const stats = await stack.sim.stats();
    expect(stats.byStatus['401'] ?? 0).toBeLessThanOrEqual(
      UNPROVEN_CALLS_PER_CLIENT + UNPROVEN_CALLS_WAITING,
    );
    expect(stats.byStatus['429']).toBeUndefined();
    console.log(
      `another tenant's read took ${tookMs} ms with ${held.junk} junk and ${held.burst} burst calls held; junk reached the upstream ${stats.byStatus['401'] ?? 0} times, at most ${junkInFlightMost} at once`,
    );
  });
});
