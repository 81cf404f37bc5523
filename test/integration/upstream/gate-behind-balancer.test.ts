/**
 * The gate for unproven tokens behind a balancer. Without `TRUST_PROXY` every
 * client has the balancer's address (here, the test's own socket address); with `TRUST_PROXY=true`
 * each junk request may claim a new address in `X-Forwarded-For`. Either way:
 * - a never-seen tenant's first read and first mutation after 70 junk-token requests from its own
 *   address go at the first place that frees: after the two junk calls already in flight, never
 *   refused (`UNPROVEN_TOKENS`) — before, behind every junk call, or refused at once;
 * - junk claiming a new address per request has at most UNPROVEN_CALLS_IN_FLIGHT calls at the
 *   upstream, and a tenant the upstream has accepted before is not held by it — on this replica or,
 *   with Redis, on another.
 * The simulator holds the junk calls (`GET /apps`) until the test lets them go, so order is decided
 * by events; the gateway's `weft_unproven_calls` gauge tells when the junk waits at the gate.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createGateway, type Gateway } from '../../../src/server/create-gateway.ts';
import { createLogger } from '../../../src/server/logger.ts';
import {
  UNPROVEN_CALLS_IN_FLIGHT,
  UNPROVEN_CALLS_PER_CLIENT,
} from '../../../src/upstream/budget/unproven-gate.ts';
import { deferred, until, type Deferred } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { startSimulator } from '../../support/simulator-harness.ts';
import { REDIS_ENV, drainKeys, testPrefix, testRedisAvailable } from '../../support/redis.ts';

const JUNK_REQUESTS = 70;
/** The junk lists apps (`GET …/apps`); the tenants read or deploy one app, so the simulator tells them apart. */
const JUNK = '{ apps { appId } }';
/** Account B's app: the never-seen tenant's (`demo-other`); it has an upload, so it can be deployed. */
const TENANT = 'demo-other';
const FIRST_CALLS = {
  read: { query: '{ app(appId: "app-0004") { appId name } }', variables: {} },
  mutation: {
    query: `mutation($appId: ID!) { deployApp(input: { appId: $appId }) {
      deployment { deploymentId } userErrors { code } } }`,
    variables: { appId: 'app-0004' },
  },
} as const;

/** The measured case's upstream: every call answered this much later. */
const LATENCY_MS = 200;

const isJunkCall = (url: string) => url.split('?')[0]!.endsWith('/apps');

/** What the simulator has seen: junk calls (each held until released), the others in order. */
interface Upstream {
  junkArrived: number;
  junkInFlight: number;
  junkInFlightMost: number;
  /** Junk arrivals before each other call, by the call's method and path. */
  readonly others: { call: string; junkBefore: number }[];
  /** Lets the next held junk call (or every one, from now on) be answered. */
  releaseOne(): void;
  releaseAll(): void;
}

function heldJunk() {
  const held: Deferred<void>[] = [];
  let all = false;
  const upstream: Upstream = {
    junkArrived: 0,
    junkInFlight: 0,
    junkInFlightMost: 0,
    others: [],
    releaseOne: () => held.shift()?.resolve(),
    releaseAll() {
      all = true;
      for (const gate of held.splice(0)) gate.resolve();
    },
  };
  return {
    upstream,
    sim: {
      onArrival: async ({ method, url }: { method: string; url: string }) => {
        if (!isJunkCall(url)) {
          upstream.others.push({ call: `${method} ${url}`, junkBefore: upstream.junkArrived });
          return;
        }
        upstream.junkArrived += 1;
        upstream.junkInFlight += 1;
        upstream.junkInFlightMost = Math.max(upstream.junkInFlightMost, upstream.junkInFlight);
        if (all) return;
        const gate = deferred();
        held.push(gate);
        await gate.promise;
      },
      onAnswered: ({ url }: { url: string }) => {
        if (isJunkCall(url)) upstream.junkInFlight -= 1;
      },
    },
  };
}

/** `weft_unproven_calls` of a gateway: probes in flight and calls waiting at the gate. */
async function unprovenCalls(stack: Pick<Stack, 'http'>): Promise<Record<string, number>> {
  const { text } = await stack.http('GET', '/metrics');
  const counts: Record<string, number> = {};
  for (const [, state, value] of text.matchAll(/^weft_unproven_calls\{state="(\w+)"\} (\d+)$/gm))
    counts[state!] = Number(value);
  return counts;
}

const errorsOf = (body: any) => body.errors?.map((e: { extensions?: unknown }) => e.extensions);

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('the unproven-token gate behind a balancer', () => {
  it.each(['read', 'mutation'] as const)(
    `without TRUST_PROXY (one address), a never-seen tenant's first %s after ${JUNK_REQUESTS} junk-token requests goes at the first place that frees`,
    async (kind) => {
      const { upstream, sim } = heldJunk();
      stack = await startStack({ sim });
      const s = stack;
      let junkAnswered = 0;
      const junk = Array.from({ length: JUNK_REQUESTS }, (_, i) =>
        s.gql(JUNK, {}, { token: `junk-${i}` }).then((answer) => {
          junkAnswered += 1;
          return answer;
        }),
      );
      // Every junk request is at the upstream (held), waiting at the gate, or already refused.
      await until(
        async () =>
          upstream.junkArrived + ((await unprovenCalls(s)).waiting ?? 0) + junkAnswered ===
          JUNK_REQUESTS,
        'every junk request at the gate',
      );
      expect(upstream.junkArrived).toBe(UNPROVEN_CALLS_PER_CLIENT);

      let tenantAnswered = false;
      const waitingBefore = (await unprovenCalls(s)).waiting ?? 0;
      const tenant = s
        .gql(FIRST_CALLS[kind].query, FIRST_CALLS[kind].variables, { token: TENANT })
        .finally(() => (tenantAnswered = true));
      await until(
        async () => tenantAnswered || ((await unprovenCalls(s)).waiting ?? 0) > waitingBefore,
        'the tenant at the gate',
      );
      // One junk call is answered (401): its place is the first that frees.
      upstream.releaseOne();
      const answer = await tenant;
      expect(errorsOf(answer.body), JSON.stringify(answer.body)).toBeUndefined();
      // The tenant's first call reached the upstream after only the junk already in flight when it
      // came: one junk round trip, not one per junk call ahead of it.
      expect(upstream.others[0]?.junkBefore).toBe(UNPROVEN_CALLS_PER_CLIENT);
      upstream.releaseAll();
      const junkAnswers = await Promise.all(junk);
      for (const { body } of junkAnswers)
        expect(body.errors[0].extensions.code).toMatch(/^(UNAUTHENTICATED|RATE_LIMITED)$/);
    },
  );

  it.each(['read', 'mutation'] as const)(
    `time to answer: a never-seen tenant's first %s right after ${JUNK_REQUESTS} junk-token requests from its address, every upstream call taking ${LATENCY_MS} ms`,
    async (kind) => {
      stack = await startStack({ sim: { latencyMs: LATENCY_MS } });
      const s = stack;
      const junk = Array.from({ length: JUNK_REQUESTS }, (_, i) =>
        s.gql(JUNK, {}, { token: `junk-${i}` }),
      );
      const started = performance.now();
      const answer = await s.gql(FIRST_CALLS[kind].query, FIRST_CALLS[kind].variables, {
        token: TENANT,
      });
      const ms = Math.round(performance.now() - started);
      const limiter = answer.body.errors?.[0]?.extensions?.limiter;
      console.log(
        `the never-seen tenant's first ${kind} after ${JUNK_REQUESTS} junk requests: ${ms} ms ` +
          `(upstream calls of ${LATENCY_MS} ms)${limiter ? `, refused by ${limiter}` : ''}`,
      );
      await Promise.all(junk);
      // Answered on its first try: never refused UNPROVEN_TOKENS (the time is printed, not asserted).
      expect(limiter).toBeUndefined();
      expect(errorsOf(answer.body)).toBeUndefined();
    },
    90_000,
  );

  it(`with TRUST_PROXY=true and a new X-Forwarded-For per junk request, at most ${UNPROVEN_CALLS_IN_FLIGHT} junk calls are at the upstream, and a proven tenant is not held`, async () => {
    const { upstream, sim } = heldJunk();
    // The cache would answer the proven tenant's second read without the upstream.
    stack = await startStack({
      sim: { ...sim, ipLimits: {} },
      env: { TRUST_PROXY: 'true', UPSTREAM_CACHE: 'off' },
    });
    const s = stack;
    // The tenant has used the graph before: the upstream accepted its token.
    const before = await s.gql(FIRST_CALLS.read.query, {}, { token: TENANT });
    expect(errorsOf(before.body)).toBeUndefined();

    const flood = 130; // more than a minute of hosting reads (120): held, they would fill the class
    const junk = Array.from({ length: flood }, (_, i) =>
      s.gql(
        JUNK,
        {},
        {
          token: `junk-${i}`,
          headers: { 'x-forwarded-for': `198.51.100.${i % 250}, 203.0.113.${i % 250}` },
        },
      ),
    );
    await until(
      async () => upstream.junkArrived + ((await unprovenCalls(s)).waiting ?? 0) === flood,
      `at most ${UNPROVEN_CALLS_IN_FLIGHT} junk calls at the upstream, the rest waiting at the gate`,
    );
    const held = upstream.junkArrived;

    const again = await s.gql(FIRST_CALLS.read.query, {}, { token: TENANT });
    expect(errorsOf(again.body)).toBeUndefined();
    // Answered while the junk was still held.
    expect(upstream.junkArrived).toBe(held);
    expect(upstream.junkInFlight).toBe(held);

    upstream.releaseAll();
    await Promise.all(junk);
    expect(upstream.junkInFlightMost).toBeLessThanOrEqual(UNPROVEN_CALLS_IN_FLIGHT);
    expect((await s.sim.stats()).byStatus['429']).toBeUndefined();
  });

  it.skipIf(!testRedisAvailable)(
    'with Redis, a tenant another replica has seen accepted is not held by junk on this one',
    async () => {
      const { upstream, sim: simOptions } = heldJunk();
      const sim = await startSimulator(simOptions);
      const prefix = testPrefix('gate-lb');
      const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
      const gateways: Gateway[] = [];
      const urls: string[] = [];
      try {
        for (let i = 0; i < 2; i += 1) {
          const config = loadConfig({
            NODE_ENV: 'test',
            LOG_LEVEL: 'silent',
            ...REDIS_ENV,
            REDIS_KEY_PREFIX: prefix,
            CREDENTIAL_HMAC_SECRET: 'gate-behind-balancer-secret',
            UPSTREAM_CACHE: 'off',
            UPSTREAM_URL: sim.url,
            PORT: '0',
            HOST: '127.0.0.1',
          });
          const gateway = await createGateway(config, createLogger(config, quiet), sim.url);
          gateways.push(gateway);
          urls.push((await gateway.listen()).replace(/\/graphql$/, ''));
        }
        const [a, b] = urls.map((url) => ({
          gql: async (query: string, token: string) => {
            const res = await fetch(`${url}/graphql`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
              body: JSON.stringify({ query }),
            });
            return (await res.json()) as any;
          },
          http: async (_method: string, path: string) => {
            const res = await fetch(`${url}${path}`);
            return { text: await res.text() } as any;
          },
        }));
        // Proven on replica A.
        expect(errorsOf(await a!.gql(FIRST_CALLS.read.query, TENANT))).toBeUndefined();
        // Junk fills replica B's room for its (one) client address.
        const junk = Array.from({ length: 10 }, (_, i) => b!.gql(JUNK, `junk-${i}`));
        await until(
          async () => upstream.junkArrived + ((await unprovenCalls(b!)).waiting ?? 0) === 10,
          'the junk held and waiting on replica B',
        );
        const held = upstream.junkArrived;
        // The tenant's first request on replica B: answered while the junk is still held.
        expect(errorsOf(await b!.gql(FIRST_CALLS.read.query, TENANT))).toBeUndefined();
        expect(upstream.junkArrived).toBe(held);
        upstream.releaseAll();
        await Promise.all(junk);
      } finally {
        upstream.releaseAll();
        await Promise.all(gateways.map((gateway) => gateway.close()));
        await sim.close();
        await drainKeys(prefix);
      }
    },
  );
});
