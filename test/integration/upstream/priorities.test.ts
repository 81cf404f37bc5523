/**
 * Priorities in front of the upstream budget, through the real gateway on
 * a simulator with a small window, on the memory store and on Redis shared by two replicas:
 * - the write reserve: late in a window the explorer stops first, then subscription polling, then
 *   queries (RATE_LIMITED, `limiter: RESERVE`, `retryAfterSec`), while mutations still get the last
 *   calls; a client may ask to go later with `Weft-Priority`, never earlier;
 * - waits: a call whose room comes within its deadline waits for it and is served, one whose room
 *   comes later is refused at once;
 * - visibility: `viewer.rateLimit`, the `RateLimit-*` headers and /metrics show the reserve, the
 *   refusals and the upstream 429s by priority; CORS lets a page send `Weft-Priority` and read
 *   `RateLimit-Write-Reserve`.
 * - the per-IP route classes: in a tenant's share of a class the explorer and
 *   background reads stop first, so the tenant's own screens still read.
 * With a window of 40 and the default reserve (0.1): reads leave 4 calls, polling 6, the explorer 8.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SimulatorOptions } from '../../../src/simulator/simulator.ts';
import { startStack, type GqlResult, type Stack } from '../../support/gateway-harness.ts';
import type { RunningSimulator } from '../../support/simulator-harness.ts';
import {
  REDIS_ENV,
  describeWithoutRedis,
  connectTestRedis,
  deleteUnder,
  testPrefix,
  testRedisAvailable,
  type TestRedis,
} from '../../support/redis.ts';
import { wsClient } from '../../support/subscription-clients.ts';

const WINDOW = 40;
const READ_RESERVE = 4; // ⌊40 × 0.1⌋
const BACKGROUND_RESERVE = 6; // ⌊40 × 0.15⌋
const EXPLORER_RESERVE = 8; // ⌊40 × 0.2⌋

const DETAIL = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") { certificate(certificateId: $id) { certificateId } } }`;
const VIEWER = '{ viewer { rateLimit { limit remaining writeReserve } } }';
const JOB = 'subscription { appJob(jobId: "job-0001") { status } }';
/** A hosting read (the per-IP class of reads) that is never cached: every one is an upstream call. */
const JOB_READ = '{ appJob(jobId: "job-0001") { jobId } }';
const rename = (name: string) =>
  `mutation { updateApp(input: { appId: "app-0001", name: "${name}" }) { app { appId } userErrors { code } } }`;
const cert = (n: number) => `cert-${String(n).padStart(4, '0')}`;

/** One deployment: a memory replica (a and b are the same), or two replicas on one Redis. */
interface Replicas {
  readonly sim: RunningSimulator;
  readonly a: Stack;
  readonly b: Stack;
  close(): Promise<void>;
}
type Start = (sim: SimulatorOptions, env: Record<string, string>) => Promise<Replicas>;

const startMemory: Start = async (sim, env) => {
  const stack = await startStack({ sim, env });
  return { sim: stack.sim, a: stack, b: stack, close: () => stack.close() };
};

let admin: TestRedis | undefined;
const startRedisPair: Start = async (sim, env) => {
  admin ??= await connectTestRedis();
  const shared = {
    ...env,
    ...REDIS_ENV,
    REDIS_KEY_PREFIX: testPrefix('prio'),
    CREDENTIAL_HMAC_SECRET: 'priorities-secret-0123456789abcdef',
  };
  const a = await startStack({ sim, env: shared });
  // The second replica calls the first one's simulator (its own stays idle): one upstream window.
  const b = await startStack({ env: shared, upstream: async () => a.sim.url });
  return {
    sim: a.sim,
    a,
    b,
    async close() {
      await b.close();
      await a.close();
      await deleteUnder(admin!, shared.REDIS_KEY_PREFIX);
    },
  };
};

/** The value of one series on a replica's /metrics (0 when absent). */
async function metric(stack: Stack, name: string, labels: Record<string, string> = {}) {
  const text = (await stack.http('GET', '/metrics')).text;
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',');
    if (wanted.every((label) => have.includes(label))) total += Number(match[3]);
  }
  return total;
}

/** The same series summed over the replicas (one process counts once). */
const metricOf = async (r: Replicas, name: string, labels: Record<string, string>) =>
  (await metric(r.a, name, labels)) + (r.b === r.a ? 0 : await metric(r.b, name, labels));

const errorOf = (result: GqlResult) =>
  result.body.errors?.[0]?.extensions as
    { code: string; limiter?: string; retryAfterSec?: number } | undefined;

const served = (result: GqlResult) => {
  expect(result.body.errors, JSON.stringify(result.body)).toBeUndefined();
};

/** A refusal of the limiter: RATE_LIMITED, which bucket said no, and the wait until the window's end. */
const refusedBy = (result: GqlResult, limiter: string, windowSec: number) => {
  expect(errorOf(result), JSON.stringify(result.body)).toMatchObject({
    code: 'RATE_LIMITED',
    limiter,
  });
  expect(errorOf(result)!.retryAfterSec).toBeGreaterThan(windowSec / 2);
  expect(errorOf(result)!.retryAfterSec).toBeLessThanOrEqual(windowSec);
};

const viewerOf = async (stack: Stack) => (await stack.gql(VIEWER)).body.data.viewer.rateLimit;

afterAll(async () => {
  await admin?.close();
});

function describeStore(name: string, start: Start, register: typeof describe = describe) {
  register(`priorities: ${name}`, () => {
    let r: Replicas | undefined;
    const fresh = async (sim: SimulatorOptions, env: Record<string, string>) => {
      const previous = r;
      r = undefined;
      await previous?.close();
      r = await start({ ipLimits: false, ...sim }, env);
      return r;
    };
    afterAll(async () => {
      await r?.close();
      r = undefined;
    });
    const small = {
      sim: { rateLimit: WINDOW, rateWindowSec: 120 },
      env: { UPSTREAM_RATE_LIMIT: String(WINDOW), UPSTREAM_RATE_WINDOW_SEC: '120' },
    };

    it('keeps the end of the window for writes: the explorer stops first, then polling, then queries; a mutation still succeeds', async () => {
      const { sim, a, b } = await fresh(small.sim, small.env);
      const explorer = { headers: { 'weft-priority': 'explorer' } };
      let n = 0;
      const read = (stack: Stack, options?: { headers: Record<string, string> }) =>
        stack.gql(DETAIL, { id: cert((n += 1)) }, options);

      // The explorer (alternating replicas) spends the window down to its own reserve, no further.
      for (let i = 0; i < WINDOW - EXPLORER_RESERVE; i += 1) {
        served(await read(i % 2 === 0 ? a : b, explorer));
      }
      refusedBy(await read(a, explorer), 'RESERVE', 120);
      refusedBy(await read(b, explorer), 'RESERVE', 120);
      expect(await viewerOf(b)).toEqual({
        limit: WINDOW,
        remaining: EXPLORER_RESERVE,
        writeReserve: READ_RESERVE,
      });

      // A query still gets what the explorer may not take, down to the polling reserve.
      for (let left = EXPLORER_RESERVE; left > BACKGROUND_RESERVE; left -= 1) served(await read(a));

      // Polling stops here: a subscription's poll is refused (nothing reaches the upstream), and a
      // client asking to be served in the background is too.
      const callsBefore = (await sim.stats()).total;
      const client = wsClient(b.url, { authorization: 'Bearer demo-token' });
      const events: unknown[] = [];
      const unsubscribe = client.subscribe(
        { query: JOB },
        {
          next: (event) => void events.push(event),
          error: (error) => void events.push({ failure: error }),
          complete: () => undefined,
        },
      );
      try {
        await vi.waitFor(
          async () =>
            expect(
              await metricOf(r!, 'weft_bucket_refusals_total', {
                bucket: 'reserve',
                priority: 'background',
              }),
            ).toBeGreaterThanOrEqual(1),
          { timeout: 10_000, interval: 50 },
        );
      } finally {
        unsubscribe();
        await client.dispose();
      }
      expect(events).toEqual([]);
      expect((await sim.stats()).total).toBe(callsBefore);
      refusedBy(await read(a, { headers: { 'weft-priority': 'background' } }), 'RESERVE', 120);

      // ...while queries go on to the write reserve.
      for (let left = BACKGROUND_RESERVE; left > READ_RESERVE; left -= 1) served(await read(b));
      refusedBy(await read(a), 'RESERVE', 120);
      // A client cannot raise itself: `write` or anything unknown is an ordinary query.
      refusedBy(await read(b, { headers: { 'weft-priority': 'write' } }), 'RESERVE', 120);
      refusedBy(await read(a, { headers: { 'weft-priority': 'URGENT!!' } }), 'RESERVE', 120);
      expect(await viewerOf(a)).toEqual({
        limit: WINDOW,
        remaining: READ_RESERVE,
        writeReserve: READ_RESERVE,
      });

      // Mutations get the reserve, to the last call of the window, from either replica.
      for (let left = READ_RESERVE; left > 0; left -= 1) {
        const write = await (left % 2 === 0 ? a : b).gql(rename(`kept-for-writes-${left}`));
        served(write);
        expect(write.body.data.updateApp.userErrors).toEqual([]);
      }
      refusedBy(await a.gql(rename('one-too-many')), 'CREDENTIAL', 120);

      const stats = await sim.stats();
      expect(stats.total).toBe(WINDOW);
      expect(stats.byStatus['429']).toBeUndefined();
      expect(await viewerOf(b)).toMatchObject({ remaining: 0 });
    });

    it("keeps a tenant's share of a per-IP class for its screens: the explorer stops first, then background reads, and a screen's read is answered", async () => {
      // The upstream's per-IP limits (hosting reads 120 a minute, one tenant's share 96 of them),
      // and the credential's window far from its end: only the class can say no.
      const { sim, a, b } = await fresh({ ipLimits: {} }, {});
      let n = 0;
      const jobRead = (priority?: string) =>
        (n++ % 2 === 0 ? a : b).gql(
          JOB_READ,
          undefined,
          priority ? { headers: { 'weft-priority': priority } } : undefined,
        );
      /** Reads of one priority until the first refusal: how many were answered, and the refusal. */
      const readUntilRefused = async (priority?: string) => {
        for (let answered = 0; answered <= 120; answered += 1) {
          const result = await jobRead(priority);
          if (result.body.errors) return { answered, refusal: result };
          expect(result.body.data.appJob.jobId).toBe('job-0001');
        }
        throw new Error(`${priority ?? 'screen'}: 120 reads answered, none refused`);
      };
      // The explorer, then background polling the tenant asked for, until each is refused…
      const explorer = await readUntilRefused('explorer');
      const background = await readUntilRefused('background');
      // …and the tenant's own screen still reads.
      const screen = await jobRead();
      console.log(
        `class share: ${explorer.answered} explorer and ${background.answered} background reads answered before each was refused; the screen's read: ${JSON.stringify(errorOf(screen) ?? 'answered')}`,
      );
      served(screen);
      // The explorer stops at a tenth of the share left (87 of 96), background at a twentieth (92).
      expect(explorer.answered).toBe(87);
      expect(errorOf(explorer.refusal)).toMatchObject({
        code: 'RATE_LIMITED',
        limiter: 'ROUTE_CLASS',
      });
      expect(background.answered).toBe(92 - 87);
      expect(errorOf(background.refusal)).toMatchObject({
        code: 'RATE_LIMITED',
        limiter: 'ROUTE_CLASS',
      });
      // The screen's reads have the rest of the share (96), then the class refuses them too.
      const more = await readUntilRefused();
      expect(more.answered).toBe(96 - 93);
      expect(errorOf(more.refusal)).toMatchObject({ code: 'RATE_LIMITED', limiter: 'ROUTE_CLASS' });
      const stats = await sim.stats();
      expect(stats.total).toBe(96);
      expect(stats.byStatus['429']).toBeUndefined();
      expect(
        await metricOf(r!, 'weft_bucket_refusals_total', {
          bucket: 'hosting-read',
          priority: 'explorer',
        }),
      ).toBe(1);
      expect(
        await metricOf(r!, 'weft_bucket_refusals_total', {
          bucket: 'hosting-read',
          priority: 'background',
        }),
      ).toBe(1);
    });

    it('waits for room that comes within the deadline, and is served', async () => {
      // A window of 3 calls per 3 s: the fourth call's room comes at the window's end, well within
      // the deadline (10 s) and the longest wait (UPSTREAM_BUCKET_WAIT_MS, 5 s).
      const { sim, a, b } = await fresh(
        { rateLimit: 3, rateWindowSec: 3 },
        { UPSTREAM_RATE_LIMIT: '3', UPSTREAM_RATE_WINDOW_SEC: '3' },
      );
      for (let n = 1; n <= 3; n += 1) served(await a.gql(DETAIL, { id: cert(n) }));
      const started = performance.now();
      const waited = await b.gql(DETAIL, { id: cert(4) });
      const tookMs = performance.now() - started;
      served(waited);
      expect(
        await metricOf(r!, 'weft_bucket_waits_total', { bucket: 'credential', priority: 'read' }),
      ).toBe(1);
      expect(
        await metricOf(r!, 'weft_bucket_refusals_total', {
          bucket: 'credential',
          priority: 'read',
        }),
      ).toBe(0);
      // It waited (for the window's end), not a whole window more.
      expect(tookMs).toBeGreaterThan(100);
      expect(tookMs).toBeLessThan(5_000);
      const stats = await sim.stats();
      expect(stats.total).toBe(4);
      expect(stats.byStatus['429']).toBeUndefined();
    });

    it('refuses at once, with retryAfterSec, a call whose room comes after its deadline', async () => {
      // The window ends in 10 s: within the longest wait (20 s here), after the deadline (3 s).
      // Waiting cannot help, so the call is refused now rather than at its deadline.
      const { sim, a, b } = await fresh(
        { rateLimit: 3, rateWindowSec: 10 },
        {
          UPSTREAM_RATE_LIMIT: '3',
          UPSTREAM_RATE_WINDOW_SEC: '10',
          UPSTREAM_BUCKET_WAIT_MS: '20000',
          UPSTREAM_DEADLINE_MS: '3000',
          UPSTREAM_HEADERS_TIMEOUT_MS: '3000',
          UPSTREAM_BODY_TIMEOUT_MS: '3000',
        },
      );
      for (let n = 1; n <= 3; n += 1) served(await a.gql(DETAIL, { id: cert(n) }));
      const started = performance.now();
      const refused = await b.gql(DETAIL, { id: cert(4) });
      const tookMs = performance.now() - started;
      refusedBy(refused, 'CREDENTIAL', 10);
      // Far sooner than the deadline.
      expect(tookMs).toBeLessThan(1_500);
      expect(
        await metricOf(r!, 'weft_bucket_waits_total', { bucket: 'credential', priority: 'read' }),
      ).toBe(0);
      expect(
        await metricOf(r!, 'weft_bucket_refusals_total', {
          bucket: 'credential',
          priority: 'read',
        }),
      ).toBe(1);
      expect((await sim.stats()).total).toBe(3);
    });

    it('shows the window and its write reserve in viewer.rateLimit, the headers and /metrics', async () => {
      const { sim, a, b } = await fresh(small.sim, small.env);
      const first = await a.gql(DETAIL, { id: cert(1) });
      served(first);
      expect(first.headers['ratelimit-limit']).toBe(String(WINDOW));
      expect(first.headers['ratelimit-remaining']).toBe(String(WINDOW - 1));
      expect(first.headers['ratelimit-write-reserve']).toBe(String(READ_RESERVE));
      expect(first.body.extensions.rateLimit).toMatchObject({
        remaining: WINDOW - 1,
        writeReserve: READ_RESERVE,
      });
      // The other replica tells the same.
      expect(await viewerOf(b)).toEqual({
        limit: WINDOW,
        remaining: WINDOW - 1,
        writeReserve: READ_RESERVE,
      });

      // Down to the reserve: the last query served says so, the next is refused.
      let last: GqlResult = first;
      for (let n = 2; n <= WINDOW - READ_RESERVE; n += 1) {
        last = await (n % 2 === 0 ? b : a).gql(DETAIL, { id: cert(n) });
        served(last);
      }
      expect(last.headers['ratelimit-remaining']).toBe(String(READ_RESERVE));
      expect(last.headers['ratelimit-write-reserve']).toBe(String(READ_RESERVE));
      refusedBy(await a.gql(DETAIL, { id: cert(WINDOW) }), 'RESERVE', 120);
      expect(await viewerOf(a)).toEqual({
        limit: WINDOW,
        remaining: READ_RESERVE,
        writeReserve: READ_RESERVE,
      });
      expect(
        await metricOf(r!, 'weft_bucket_refusals_total', { bucket: 'reserve', priority: 'read' }),
      ).toBe(1);

      // A write's headers show the reserve it spends.
      const write = await b.gql(rename('seen-in-headers'));
      served(write);
      expect(write.headers['ratelimit-remaining']).toBe(String(READ_RESERVE - 1));
      expect(write.headers['ratelimit-write-reserve']).toBe(String(READ_RESERVE));

      // Another client of the token spends the rest behind the gateway's back: the next write
      // meets an upstream 429, counted under its priority.
      for (let i = 0; i < READ_RESERVE - 1; i += 1) {
        expect(
          (await sim.call('GET', '/v2/certificates/subscriptions/search', { token: 'demo-token' }))
            .status,
        ).toBe(200);
      }
      expect(errorOf(await a.gql(rename('spent-behind-its-back')))?.code).toBe('RATE_LIMITED');
      expect((await sim.stats()).byStatus['429']).toBe(1);
      expect(await metricOf(r!, 'weft_upstream_rate_limited_total', { priority: 'write' })).toBe(1);
      expect(await metricOf(r!, 'weft_upstream_rate_limited_total', { priority: 'read' })).toBe(0);
    });
  });
}

describeStore('memory store', startMemory, describeWithoutRedis);
describe.skipIf(!testRedisAvailable)('on Redis', () => {
  describeStore('Redis, two replicas', startRedisPair);
});

describeWithoutRedis('CORS for priorities', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  const origin = 'http://localhost:5173';

  it('lets a page send Weft-Priority', async () => {
    const preflight = await stack.http('OPTIONS', '/graphql', {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization,weft-priority',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    expect(
      preflight.headers['access-control-allow-headers']?.toLowerCase().split(/,\s*/),
    ).toContain('weft-priority');
  });

  it('lets a page read RateLimit-Write-Reserve', async () => {
    const answer = await stack.gql(DETAIL, { id: cert(1) }, { headers: { origin } });
    served(answer);
    expect(answer.headers['ratelimit-write-reserve']).toBeDefined();
    expect(answer.headers['access-control-expose-headers']?.toLowerCase().split(/,\s*/)).toContain(
      'ratelimit-write-reserve',
    );
  });
});
