/**
 * A cold screen takes the upstream's two rounds, not more (docs/budget.md "The send window"): once
 * the upstream has answered the credential, the calls a screen makes from the answers it just got go
 * out together, within a quarter of a round trip of those answers — not a few per round trip.
 *
 * The screen: a certificates page of 12 with each certificate's detail and domain verifications
 * (round one: the page; round two: 24 calls that each need the page). The simulator answers every
 * call after 300 ms and counts how many of Weft's calls it holds at once: the whole second round at
 * once, on the memory store and on Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import {
  REDIS_ENV,
  connectTestRedis,
  deleteUnder,
  describeWithoutRedis,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';

const PAGE = 12;
/** Each certificate's detail and its domain verifications. */
const SECOND_ROUND = 2 * PAGE;
const LATENCY_MS = 300;

const screen = (offset: number) => `{ certificateCustomer(customerId: "demo-customer") {
  certificates(first: ${PAGE}, offset: ${offset}) { edges { node {
    certificateId csr contact { email } domainVerifications { domain status } } } } } }`;

/** Calls at the simulator at once: now, and the most since the last `reset`. */
function concurrency() {
  let now = 0;
  let most = 0;
  return {
    onArrival: () => {
      now += 1;
      most = Math.max(most, now);
      return undefined;
    },
    onAnswered: () => {
      now -= 1;
    },
    most: () => most,
    reset: () => {
      most = now;
    },
  };
}

function coldScreenCases(start: (sim: ReturnType<typeof concurrency>) => Promise<Stack>) {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it(`sends the whole second round (${SECOND_ROUND} calls) at once once the credential is answered`, async () => {
    const atSim = concurrency();
    stack = await start(atSim);
    // A first screen: the credential is answered, and its round trip known.
    const first = await stack.gql(screen(0));
    expect(first.body.errors).toBeUndefined();
    await stack.resetCounts();
    atSim.reset();

    const cold = await stack.gql(screen(PAGE));
    expect(cold.body.errors).toBeUndefined();
    expect(cold.body.data.certificateCustomer.certificates.edges).toHaveLength(PAGE);
    expect(await stack.upstreamCalls()).toBe(1 + SECOND_ROUND);
    console.log(
      `[cold screen] ${1 + SECOND_ROUND} calls at ${LATENCY_MS} ms: at most ${atSim.most()} at the upstream at once`,
    );
    expect(atSim.most()).toBe(SECOND_ROUND);
  });
}

const ENV = { UPSTREAM_CACHE: 'off', RESPONSE_CACHE: 'false', LOG_LEVEL: 'warn' };

describeWithoutRedis('cold screens on the memory store', () => {
  coldScreenCases((atSim) =>
    startStack({
      sim: { latencyMs: LATENCY_MS, onArrival: atSim.onArrival, onAnswered: atSim.onAnswered },
      env: ENV,
    }),
  );
});

describe.skipIf(!testRedisAvailable)('cold screens on Redis', () => {
  const prefixes: string[] = [];
  afterEach(async () => {
    const admin = await connectTestRedis();
    for (const prefix of prefixes.splice(0)) await deleteUnder(admin, prefix);
    await admin.close();
  });
  coldScreenCases((atSim) => {
    const prefix = testPrefix('cold-screen');
    prefixes.push(prefix);
    return startStack({
      sim: { latencyMs: LATENCY_MS, onArrival: atSim.onArrival, onAnswered: atSim.onAnswered },
      env: {
        ...ENV,
        ...REDIS_ENV,
        REDIS_KEY_PREFIX: prefix,
        CREDENTIAL_HMAC_SECRET: 'cold-screen-test-secret-0123456789',
      },
    });
  });
});
