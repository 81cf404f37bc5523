/**
 * TRUST_PROXY: behind a load balancer every request comes from the balancer's address, so the room
 * for tokens the upstream has not accepted yet (per client address, `unproven-gate.ts`) is per
 * balancer unless the gateway reads `X-Forwarded-For` from the proxies it trusts. With it, junk from
 * one client cannot hold a new tenant from another; without it, the header is not believed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { UNPROVEN_CALLS_PER_CLIENT } from '../../../src/upstream/unproven-gate.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const READ = '{ apps { appId } }';
/** Upstream latency: junk calls are still in flight while the tenant asks. */
const LATENCY_MS = 600;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/**
 * More junk than one address may have in flight, from client 203.0.113.1 (two in flight, two
 * queued); then a tenant never seen, from 203.0.113.2. Returns the order they were answered in.
 */
async function race(s: Stack): Promise<string[]> {
  const order: string[] = [];
  const junk = Array.from({ length: UNPROVEN_CALLS_PER_CLIENT + 2 }, (_, i) =>
    s
      .gql(READ, {}, { token: `junk-${i}`, headers: { 'x-forwarded-for': '203.0.113.1' } })
      .then(() => order.push('junk')),
  );
  await new Promise((resolve) => setTimeout(resolve, LATENCY_MS / 4));
  const tenant = s
    .gql(READ, {}, { token: 'demo-other', headers: { 'x-forwarded-for': '203.0.113.2' } })
    .then((result) => {
      expect(result.body.errors).toBeUndefined();
      order.push('tenant');
    });
  await Promise.all([...junk, tenant]);
  return order;
}

describe('TRUST_PROXY', () => {
  it("reads the client's address from X-Forwarded-For sent by a trusted proxy", async () => {
    stack = await startStack({ sim: { latencyMs: LATENCY_MS }, env: { TRUST_PROXY: '127.0.0.1' } });
    // Another client's junk does not hold the tenant: it is answered before the junk that had to
    // queue behind its own address's calls in flight.
    expect((await race(stack)).indexOf('tenant')).toBe(UNPROVEN_CALLS_PER_CLIENT);
  });

  it('believes no X-Forwarded-For without it: all requests share the socket address', async () => {
    stack = await startStack({ sim: { latencyMs: LATENCY_MS } });
    // The tenant queues behind all the junk of "its" address (the test's own socket address).
    expect((await race(stack)).indexOf('tenant')).toBe(UNPROVEN_CALLS_PER_CLIENT + 2);
  });

  it('refuses a value that names no proxy', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'yes please' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).not.toThrow();
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' })).not.toThrow();
  });
});
