/**
 * TRUST_PROXY: behind a load balancer every request comes from the balancer's address, so the room
 * for tokens the upstream has not accepted yet (per client address, `unproven-gate.ts`) is per
 * balancer unless the gateway reads `X-Forwarded-For` from the proxies it trusts. With it, junk from
 * one client cannot hold a new tenant from another; without it, the header is not believed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { UNPROVEN_CALLS_PER_CLIENT } from '../../../src/upstream/budget/unproven-gate.ts';
import { deferred, until } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

/** The junk lists apps; the tenant reads its own app, so the simulator tells their calls apart. */
const JUNK = '{ apps { appId } }';
/** Account B's app: the never-seen tenant's (`demo-other`). */
const TENANT = '{ app(appId: "app-0004") { appId name } }';
/** How long the tenant is given to reach the upstream while the junk is held (the negative case). */
const NOT_ARRIVING_MS = 1_000;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/**
 * A gateway whose simulator holds every junk call (GET /apps) until `release`, and notes the
 * tenant's arrival.
 */
async function heldStack(env: Record<string, string>) {
  const release = deferred();
  const seen = { junk: 0, tenant: 0 };
  const s = await startStack({
    env,
    sim: {
      onArrival: async ({ url }) => {
        if (url.split('?')[0]!.endsWith('/apps')) {
          seen.junk += 1;
          await release.promise;
        } else {
          seen.tenant += 1;
        }
      },
    },
  });
  return { stack: s, seen, release: () => release.resolve() };
}

/**
 * More junk than one address may have in flight, from client 203.0.113.1 (two held at the
 * upstream, the rest queued at the gate); then a tenant never seen, from 203.0.113.2.
 */
function sendJunkThenTenant(s: Stack, seen: { junk: number }) {
  const junk = Array.from({ length: UNPROVEN_CALLS_PER_CLIENT + 2 }, (_, i) =>
    s.gql(JUNK, {}, { token: `junk-${i}`, headers: { 'x-forwarded-for': '203.0.113.1' } }),
  );
  const tenant = until(() => seen.junk === UNPROVEN_CALLS_PER_CLIENT, 'the junk held').then(() =>
    s.gql(TENANT, {}, { token: 'demo-other', headers: { 'x-forwarded-for': '203.0.113.2' } }),
  );
  return { junk: Promise.all(junk), tenant };
}

describe('TRUST_PROXY', () => {
  it("reads the client's address from X-Forwarded-For sent by a trusted proxy", async () => {
    const held = await heldStack({ TRUST_PROXY: '127.0.0.1' });
    stack = held.stack;
    const { junk, tenant } = sendJunkThenTenant(stack, held.seen);
    // Another client's junk does not hold the tenant: answered while that junk is still held.
    const answer = await tenant;
    expect(answer.body.errors).toBeUndefined();
    expect(held.seen).toEqual({ junk: UNPROVEN_CALLS_PER_CLIENT, tenant: 1 });
    held.release();
    await junk;
  });

  it('believes no X-Forwarded-For without it: all requests share the socket address', async () => {
    const held = await heldStack({});
    stack = held.stack;
    const { junk, tenant } = sendJunkThenTenant(stack, held.seen);
    // The tenant waits at the gate behind "its" address's junk (the test's own socket address)…
    await expect(
      until(() => held.seen.tenant > 0, 'the tenant at the upstream', NOT_ARRIVING_MS),
    ).rejects.toThrow();
    expect(held.seen.junk).toBe(UNPROVEN_CALLS_PER_CLIENT);
    // …and goes once the junk is answered.
    held.release();
    expect((await tenant).body.errors).toBeUndefined();
    await junk;
  });

  it('refuses a value that names no proxy', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'yes please' })).toThrow(ConfigError);
    // A bare number is no address (and Fastify 5 trusts no hop count: it fails closed).
    expect(() => loadConfig({ TRUST_PROXY: '1' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).not.toThrow();
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1,::1' })).not.toThrow();
  });

  it('refuses TRUST_PROXY=true in production, naming the variable and what to set instead', () => {
    const production = { NODE_ENV: 'production', UPSTREAM_URL: 'https://api.example.com' };
    expect(() => loadConfig({ ...production, TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY: true is refused in production .*addresses\/CIDRs/,
    );
    expect(() => loadConfig({ ...production, TRUST_PROXY: '10.0.0.0/8' })).not.toThrow();
  });

  it('warns once at start-up that TRUST_PROXY=true lets any client choose its address', async () => {
    stack = await startStack({ env: { TRUST_PROXY: 'true' } });
    const warnings = stack.logs
      .map((line) => JSON.parse(line))
      .filter((line) => line.level === 40 && /TRUST_PROXY=true/.test(line.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toMatch(/any client can choose the address/);
  });

  it('warns once, without the header, when X-Forwarded-For arrives and TRUST_PROXY is unset', async () => {
    stack = await startStack();
    const s = stack;
    const warned = () =>
      s.logs
        .map((line) => JSON.parse(line))
        .filter((line) => /X-Forwarded-For arrived/.test(line.msg));
    await s.gql('{ viewer { rateLimit { limit } } }');
    expect(warned()).toHaveLength(0);
    for (const address of ['198.51.100.23', '198.51.100.24', '198.51.100.25']) {
      await s.gql(
        '{ viewer { rateLimit { limit } } }',
        {},
        { headers: { 'x-forwarded-for': address } },
      );
    }
    expect(warned()).toHaveLength(1);
    expect(warned()[0]).toMatchObject({ level: 40 });
    expect(warned()[0].msg).toMatch(/TRUST_PROXY is unset: every client behind that proxy shares/);
    expect(s.logs.join('\n')).not.toContain('198.51.100.2');
  });
});
