/**
 * `npm run bench`: Weft's efficiency figures in one run, printed as tables.
 *
 *   a. upstream calls of a scripted front-end journey: Weft cold, Weft warm, a naive REST client,
 *      and the theoretical minimum;
 *   b. requests/s and p50/p99 of a cache-hit query beside a bare Fastify route serving the same JSON;
 *   c. cache hit vs miss, limiter on vs off, as ratios;
 *   d. the gateway's CPU milliseconds per request;
 *   e. start-up: `npm start` to its first GraphQL answer — as the README's quick start runs it (the
 *      embedded simulator, NODE_ENV unset) and as production runs it (NODE_ENV=production,
 *      UPSTREAM_URL) — beside a bare Fastify process started the same way, measured first, while
 *      the machine is otherwise idle;
 *   f. what each refusal costs;
 *   g. the Redis round trips a request adds, on one Redis and on a Redis Cluster (own servers:
 *      `redis-round-trips.ts`);
 *   h. `@defer`'s first part (`defer-figure.ts`);
 *   i. cold screens at 50, 200 and 500 ms per upstream call against the floor of two round trips,
 *      and the drain of 49 reads in flight at 2 s per call (`cold-screens.ts`), measured last.
 *
 * The simulator runs in this process with `SIM_LATENCY_MS` (default 20 ms) per upstream request;
 * every gateway and the bare route run as their own processes, so their CPU is measured alone
 * (Linux: /proc/<pid>/stat). Knobs: SIM_LATENCY_MS, BENCH_DURATION_SEC (6), BENCH_WARMUP_SEC (2),
 * BENCH_CONNECTIONS (16), BENCH_COLD_LATENCIES_MS (50,200,500), REDIS_URL (the Redis rows run when
 * it answers).
 */
import { spawn, execSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { request } from 'undici';
import { createClient } from 'redis';
import { REDIS_URL, redisAnswers } from '../support/redis.ts';
import { createSimulator } from '../../src/simulator/simulator.ts';
import { STORE_A } from '../../src/simulator/accounts.ts';
import { freePort, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { measureDefer } from './defer-figure.ts';
import { measureColdScreens, measureDrain } from './cold-screens.ts';
import { HIT_QUERY, SCREENS, createRestClient } from './journey.ts';
import { measureRedisRoundTrips, type RoundTripRow } from './redis-round-trips.ts';
import {
  cacheHitUs,
  cacheWeightVsHeap,
  limiterMemoryUs,
  limiterRedisUs,
  crossReplicaMissUs,
} from './layer-microbench.ts';

const num = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return process.env[name] && Number.isFinite(value) ? value : fallback;
};
const LATENCY_MS = num('SIM_LATENCY_MS', 20);
const DURATION_SEC = num('BENCH_DURATION_SEC', 6);
const WARMUP_SEC = num('BENCH_WARMUP_SEC', 2);
const CONNECTIONS = num('BENCH_CONNECTIONS', 16);
const COLD_LATENCIES_MS = (process.env.BENCH_COLD_LATENCIES_MS ?? '50,200,500')
  .split(',')
  .map(Number);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'demo-token';

// --- processes and CPU ----------------------------------------------------------------------

const CLOCK_TICK_MS = (() => {
  try {
    return 1000 / Number(execSync('getconf CLK_TCK').toString().trim());
  } catch {
    return 10;
  }
})();

/** CPU time (user + system, all threads) of a process so far, ms; undefined off Linux. */
function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return undefined;
  }
}

async function startBare(bodyFile: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['test/bench/bare-fastify.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), BENCH_BODY_FILE: bodyFile },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    try {
      const res = await request(`${url}/healthz`);
      await res.body.dump();
      return { url, child };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('bare Fastify route did not start');
}

// --- start-up ---------------------------------------------------------------------------------

/**
 * Milliseconds from spawning `command` to the first 200 of `probe` on its port. The process runs in
 * its own group and is stopped with it (`npm start` does not pass SIGTERM on to node).
 */
async function firstAnswerMs(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  probe: { method: 'GET' | 'POST'; path: string; body?: string },
): Promise<number> {
  const port = await freePort();
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  // `undefined` unsets a variable (NODE_ENV, for the quick start).
  for (const [key, value] of Object.entries(childEnv))
    if (value === undefined) delete childEnv[key];
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: childEnv,
    stdio: 'ignore',
    detached: true,
  });
  try {
    for (;;) {
      try {
        const res = await request(`http://127.0.0.1:${port}${probe.path}`, {
          method: probe.method,
          headers: { 'content-type': 'application/json' },
          body: probe.body,
        });
        await res.body.dump();
        if (res.statusCode === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited early`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/** Starts of each kind; medians and minima in ms. */
const STARTS = 5;
/** The README's promise: the first answer within a second of `npm start`. */
const START_TARGET_MS = 1_000;

/** The first GraphQL answer of `npm start` with `env` over the bench's environment. */
const npmStartMs = (env: Record<string, string | undefined>) =>
  firstAnswerMs('npm', ['start', '--silent'], env, {
    method: 'POST',
    path: '/graphql',
    body: '{"query":"{ __typename }"}',
  });

/**
 * {@link STARTS} starts of each, interleaved: `npm start` as the README's quick start runs it (the
 * embedded simulator, NODE_ENV unset), as production runs it (NODE_ENV=production against
 * `upstreamUrl`, the bench's simulator), and the bare route.
 */
async function startUp(bodyFile: string, upstreamUrl: string) {
  const quickStart: number[] = [];
  const production: number[] = [];
  const bare: number[] = [];
  for (let run = 0; run < STARTS; run += 1) {
    quickStart.push(await npmStartMs({ NODE_ENV: undefined, UPSTREAM_URL: undefined }));
    production.push(await npmStartMs({ NODE_ENV: 'production', UPSTREAM_URL: upstreamUrl }));
    bare.push(
      await firstAnswerMs(
        process.execPath,
        ['test/bench/bare-fastify.ts'],
        {
          BENCH_BODY_FILE: bodyFile,
        },
        { method: 'GET', path: '/healthz' },
      ),
    );
  }
  return { quickStart, production, bare };
}

// --- load -------------------------------------------------------------------------------------

interface Load {
  rps: number;
  p50: number;
  p99: number;
  cpuPerRequest: number | undefined;
  errors: number;
}

const graphqlBody = JSON.stringify({ query: HIT_QUERY });

async function load(url: string, pid: number | undefined, query = HIT_QUERY): Promise<Load> {
  const options = {
    url: `${url}/graphql`,
    method: 'POST',
    connections: CONNECTIONS,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: query === HIT_QUERY ? graphqlBody : JSON.stringify({ query }),
  };
  await autocannon({ ...options, duration: WARMUP_SEC });
  const before = cpuMs(pid);
  const result = await autocannon({ ...options, duration: DURATION_SEC });
  const after = cpuMs(pid);
  const total = result.requests.total;
  return {
    rps: total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerRequest:
      before === undefined || after === undefined ? undefined : (after - before) / total,
    errors: result.errors + result.non2xx,
  };
}

// --- refused documents -----------------------------------------------------------------------------

/**
 * A 7 KB document of 495 root fields, under the size and token limits and refused by the root-field
 * limit: without aliases, so every field is a candidate for graphql-js's O(n²) overlap validation.
 */
const REFUSED_QUERY = `{ ${'apps { appId } '.repeat(495)}}`;

/** One refusal the gateway makes, as a request that provokes it. */
interface Refusal {
  readonly name: string;
  readonly status: number;
  readonly send: (i: number) => { headers: Record<string, string>; body: string };
}

const json = (token: string) => ({
  'content-type': 'application/json',
  authorization: `Bearer ${token}`,
});

/**
 * Every kind of refusal, each from clients of their own (a repeat offender would be throttled,
 * which is a refusal of its own, measured last with one client).
 */
const REFUSALS: readonly Refusal[] = [
  {
    name: 'refused document, first sight (parse + shape)',
    status: 400,
    send: (i) => ({
      headers: json(`fresh-${i}`),
      body: JSON.stringify({ query: `${REFUSED_QUERY} # ${i}` }),
    }),
  },
  {
    name: 'refused document, remembered',
    status: 400,
    send: (i) => ({ headers: json(`again-${i}`), body: JSON.stringify({ query: REFUSED_QUERY }) }),
  },
  {
    name: 'unsupported content type (415)',
    status: 415,
    send: (i) => ({
      headers: { 'content-type': 'text/plain', authorization: `Bearer plain-${i}` },
      body: '{ __typename }',
    }),
  },
  {
    name: 'bad id in an upstream path (". .")',
    status: 200,
    send: (i) => ({
      headers: json(`path-${i}`),
      body: JSON.stringify({ query: '{ app(appId: "..") { name } }' }),
    }),
  },
  {
    name: 'variable of the wrong type',
    status: 400,
    send: (i) => ({
      headers: json(`variable-${i}`),
      body: JSON.stringify({
        query: 'query($id: ID!) { app(appId: $id) { name } }',
        variables: { id: { x: 1 } },
      }),
    }),
  },
  {
    name: 'repeat offender, throttled (429)',
    status: 429,
    send: () => ({ headers: json('offender'), body: JSON.stringify({ query: REFUSED_QUERY }) }),
  },
];

/** CPU per request of each refusal (sequential), and `{ __typename }` p99 idle and under a flood. */
async function refusals(url: string, pid: number | undefined) {
  const count = 200;
  const post = async (refusal: Refusal, i: number) => {
    const { headers, body } = refusal.send(i);
    const response = await request(`${url}/graphql`, { method: 'POST', headers, body });
    await response.body.dump();
    return response.statusCode;
  };
  // The offender earns its throttle first: more than 20 refused documents in 10 s.
  for (let i = 0; i < 25; i += 1) await post(REFUSALS.at(-1)!, i);
  const costs: { name: string; status: number; cpuMs: number | undefined }[] = [];
  for (const refusal of REFUSALS) {
    const status = await post(refusal, -1);
    const before = cpuMs(pid);
    for (let i = 0; i < count; i += 1) await post(refusal, i);
    const after = cpuMs(pid);
    costs.push({
      name: refusal.name,
      status,
      cpuMs: before === undefined || after === undefined ? undefined : (after - before) / count,
    });
  }
  const typename = {
    url: `${url}/graphql`,
    method: 'POST' as const,
    connections: 4,
    headers: json(TOKEN),
    body: JSON.stringify({ query: '{ __typename }' }),
  };
  const idle = await autocannon({ ...typename, duration: DURATION_SEC });
  let variant = 0;
  const [flooded] = await Promise.all([
    autocannon({ ...typename, duration: DURATION_SEC }),
    autocannon({
      ...typename,
      // Another client (the flood is not the victim), each request a new variant (a comment), so
      // the remembered verdict does not help; the refusal throttle does.
      headers: json('flood-client'),
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ query: `${REFUSED_QUERY} # ${(variant += 1)}` }),
          }),
        },
      ],
      duration: DURATION_SEC,
    }),
  ]);
  return { costs, idleP99: idle.latency.p99, floodedP99: flooded.latency.p99 };
}

// --- formatting --------------------------------------------------------------------------------

/** Median, minimum and maximum, rounded. */
const spread = (values: number[]): number[] =>
  [median(values), Math.min(...values), Math.max(...values)].map(Math.round);

const fixed = (value: number | undefined, digits = 1) =>
  value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join('\n');
}

const loadRow = (name: string, l: Load) => [
  name,
  fixed(l.rps, 0),
  fixed(l.p50, 1),
  fixed(l.p99, 1),
  fixed(l.cpuPerRequest, 3),
];

// --- the run ----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = Date.now();
  // e. first, while nothing else of the bench runs.
  const startBody = join(mkdtempSync(join(tmpdir(), 'weft-bench-')), 'start.json');
  writeFileSync(startBody, '{}');
  const simulator = await createSimulator({
    latencyMs: LATENCY_MS,
    rateLimit: 1_000_000_000,
    rateWindowSec: 1399,
  });
  const simUrl = await simulator.listen(0);
  const startup = await startUp(startBody, simUrl);
  const withRedis = await redisAnswers();
  const redisPrefix = `weft-bench-${process.pid}`;

  const base = {
    UPSTREAM_URL: simUrl,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    UPSTREAM_RATE_LIMIT: '1000000000',
    CREDENTIAL_HMAC_SECRET: 'weft-benchmark-secret-0123456789',
  };
  const gateway = async (env: Record<string, string>) =>
    startGatewayProcess({ ...base, ...env, PORT: String(await freePort()) }, 120_000);
  // The limiter pair runs with NODE_ENV=test: production refuses UPSTREAM_LIMITER=off.
  const testMode = { NODE_ENV: 'test', UPSTREAM_CACHE: 'off' };
  const [weft, miss, limiterOn, limiterOff, redisWeft, redisMiss] = await Promise.all([
    gateway({}),
    gateway({ UPSTREAM_CACHE: 'off' }),
    gateway({ ...testMode }),
    gateway({ ...testMode, UPSTREAM_LIMITER: 'off' }),
    withRedis ? gateway({ REDIS_URL, REDIS_KEY_PREFIX: redisPrefix }) : undefined,
    withRedis
      ? gateway({ REDIS_URL, REDIS_KEY_PREFIX: `${redisPrefix}-nc`, UPSTREAM_CACHE: 'off' })
      : undefined,
  ]);
  const processes = [weft, miss, limiterOn, limiterOff, redisWeft, redisMiss].filter(
    (p): p is GatewayProcess => p !== undefined,
  );
  let bare: ChildProcess | undefined;

  try {
    // a. the journey ---------------------------------------------------------------------------
    const count = async (run: () => Promise<void>) => {
      await request(`${simUrl}/__sim/reset`, { method: 'POST' }).then((r) => r.body.dump());
      await run();
      const stats = (await (await request(`${simUrl}/__sim/stats`)).body.json()) as {
        total: number;
      };
      return stats.total;
    };
    const problems: string[] = [];
    const visit = async (query: string, name: string) => {
      const { body } = await weft.gql(query, {}, TOKEN);
      if (body.errors) problems.push(`${name}: ${JSON.stringify(body.errors[0]).slice(0, 200)}`);
    };
    const visitTwice = (query: string, name: string) => async () => {
      await visit(query, name);
      await visit(query, name);
    };
    const rows: (string | number)[][] = [];
    const totals = { minimum: 0, naive: 0, cold: 0, warm: 0 };
    const cold: number[] = [];
    for (const screen of SCREENS) cold.push(await count(visitTwice(screen.query, screen.name)));
    const coldDoneAt = Date.now();
    for (const [i, screen] of SCREENS.entries()) {
      const warm = await count(visitTwice(screen.query, screen.name));
      const rest = createRestClient(simUrl, TOKEN);
      const naive = await count(async () => {
        await screen.naive(rest);
        await screen.naive(rest);
      });
      const minimum = new Set(rest.log).size;
      rows.push([screen.name, minimum, naive, cold[i]!, warm]);
      totals.minimum += minimum;
      totals.naive += naive;
      totals.cold += cold[i]!;
      totals.warm += warm;
    }
    const warmAfterSec = (Date.now() - coldDoneAt) / 1000;
    rows.push(['total', totals.minimum, totals.naive, totals.cold, totals.warm]);

    // b–d. load ----------------------------------------------------------------------------------
    await weft.gql(HIT_QUERY, {}, TOKEN); // fill the caches
    if (redisWeft) await redisWeft.gql(HIT_QUERY, {}, TOKEN);
    const hitBody = JSON.stringify((await weft.gql(HIT_QUERY, {}, TOKEN)).body);
    const bodyFile = join(mkdtempSync(join(tmpdir(), 'weft-bench-')), 'hit.json');
    writeFileSync(bodyFile, hitBody);
    const bareServer = await startBare(bodyFile);
    bare = bareServer.child;

    const bareLoad = await load(bareServer.url, bare.pid);
    const hit = await load(weft.url, weft.child.pid);
    const floor = await load(weft.url, weft.child.pid, '{ __typename }');
    const hitRedis = redisWeft ? await load(redisWeft.url, redisWeft.child.pid) : undefined;
    const missLoad = await load(miss.url, miss.child.pid);
    const missRedis = redisMiss ? await load(redisMiss.url, redisMiss.child.pid) : undefined;
    // Limiter on vs off: alternated three times, best of each, so that one noisy run decides nothing.
    const pair: Load[][] = [[], []];
    for (let round = 0; round < 3; round += 1) {
      pair[0]!.push(await load(limiterOn.url, limiterOn.child.pid));
      pair[1]!.push(await load(limiterOff.url, limiterOff.child.pid));
    }
    const best = (runs: Load[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const [on, off] = [best(pair[0]!), best(pair[1]!)];

    // The layers alone, in this process.
    const detail = (
      (await weft.gql(HIT_QUERY, {}, TOKEN)).body as {
        data: { certificateCustomer: { certificate: unknown } };
      }
    ).data.certificateCustomer.certificate;
    const cacheUs = await cacheHitUs(detail);
    // A store's transaction page as the upstream sends it: the largest answer the graph caches.
    const pageText = await (
      await fetch(`${simUrl}/v2/commerce/stores/${STORE_A}/transactions?page=1`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).text();
    const weight = cacheWeightVsHeap(pageText);
    const limiterMemUs = await limiterMemoryUs();
    const limiterRedis = withRedis ? await limiterRedisUs(REDIS_URL, `${redisPrefix}-micro`) : NaN;
    const flight = withRedis
      ? await crossReplicaMissUs(REDIS_URL, `${redisPrefix}-flight`)
      : { leader: NaN, lateJoiner: NaN };
    const refused = await refusals(weft.url, weft.child.pid);
    const roundTrips = await measureRedisRoundTrips(gateway);
    // h. @defer, on a simulator and gateway of its own (one slow route). Five runs and a warm-up
    // of both queries: 84 hosting reads, within one tenant's 96 a minute (docs/budget.md).
    const deferred = await measureDefer(5);
    // i. latency: cold screens one at a time (5 each after a warm-up), then the drain.
    const coldScreens = await measureColdScreens(COLD_LATENCIES_MS, 5);
    const drain = await measureDrain();
    const trips = (row: RoundTripRow | undefined) => (row ? fixed(row.total, 2) : '–');
    const scriptsPerCall = (row: RoundTripRow | undefined) =>
      row ? fixed(row.byCommand.find(([name]) => name === 'evalsha')?.[1] ?? 0, 2) : '–';
    const breakdown = (row: RoundTripRow | undefined) =>
      row ? row.byCommand.map(([name, calls]) => `${name} ${fixed(calls, 2)}`).join(', ') : '–';

    // --- print ---------------------------------------------------------------------------------
    const cpu = cpus();
    const pct = (value: number) => `${value >= 0 ? '+' : ''}${fixed(value)} %`;
    const out: string[] = [];
    out.push(
      `Weft benchmark — simulator latency ${LATENCY_MS} ms, ${CONNECTIONS} connections, ` +
        `${DURATION_SEC} s per run after ${WARMUP_SEC} s warm-up; Node ${process.version}, ` +
        `${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, load average ${loadavg()[0]?.toFixed(1)}; ` +
        (withRedis ? `Redis at ${REDIS_URL}` : 'Redis not reachable: Redis rows skipped'),
      '',
      'a. Upstream calls of the front-end journey (each screen visited, then revisited)',
      '',
      table(['screen', 'minimum', 'naive REST', 'Weft cold', 'Weft warm'], rows),
      '',
      `   Weft cold = minimum: ${totals.cold === totals.minimum ? 'yes' : 'NO'}; naive / Weft warm: ` +
        (totals.warm === 0
          ? `∞ (warm made no upstream call, ${fixed(warmAfterSec)} s after cold)`
          : `${fixed(totals.naive / totals.warm)}×`) +
        ' (target ≥ 10×)',
    );
    if (problems.length > 0) out.push(`   GraphQL errors seen: ${problems.join(' | ')}`);
    out.push(
      '',
      'b. A cache-hit query beside a bare Fastify route serving the same JSON (d: CPU ms per request)',
      '',
      table(
        ['server', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req'],
        [
          loadRow('bare Fastify route, same JSON', bareLoad),
          loadRow('Weft, cache hit (memory)', hit),
          ...(hitRedis ? [loadRow('Weft, cache hit (Redis)', hitRedis)] : []),
          loadRow('Weft, { __typename } (no upstream layer)', floor),
        ],
      ),
      '',
      `   Weft cache hit / bare route: ${fixed(hit.rps / bareLoad.rps, 2)} (target ≥ 0.4)` +
        (hitRedis ? `; with Redis ${fixed(hitRedis.rps / bareLoad.rps, 2)}` : '') +
        `; the gateway's floor ({ __typename }) is ${fixed(floor.rps / bareLoad.rps, 2)}`,
      `   the cache layer alone: ${fixed(cacheUs)} µs per hit (of ${fixed((hit.cpuPerRequest ?? NaN) * 1000, 0)} µs CPU per request)`,
      `   a cached ${fixed(weight.text / 1024)} KiB transaction page: weighed ${fixed(weight.estimated / 1024)} KiB by the cache bound, ` +
        `${fixed(weight.heap / 1024)} KiB on the heap (weight / heap ${fixed(weight.estimated / weight.heap, 2)}; ≥ 1: the bound holds)`,
      '',
      `c. Ratios (the same query; a miss is one upstream call of ${LATENCY_MS} ms)`,
      '',
      table(
        ['run', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req'],
        [
          loadRow('cache hit (memory)', hit),
          loadRow('cache miss, limiter on (memory)', missLoad),
          ...(missRedis ? [loadRow('cache miss, limiter on (Redis)', missRedis)] : []),
          loadRow('limiter on (NODE_ENV=test, best of 3)', on),
          loadRow('limiter off (NODE_ENV=test, best of 3)', off),
        ],
      ),
      '',
      `   cache hit vs miss: ${fixed(hit.rps / missLoad.rps)}× the throughput, p50 ${fixed(missLoad.p50 / Math.max(hit.p50, 0.01))}× lower`,
      `   limiter on vs off: throughput ${pct((1 - on.rps / off.rps) * 100)} overhead (target ≤ 3 %), ` +
        `CPU per request ${pct(((on.cpuPerRequest ?? NaN) / (off.cpuPerRequest ?? NaN) - 1) * 100)}`,
      `   the limiter alone, per upstream call (take + correction): memory ${fixed(limiterMemUs)} µs` +
        (withRedis
          ? `, Redis ${fixed(limiterRedis)} µs (leases: one Lua EVALSHA per lease of several calls, renewed ahead of need)`
          : ''),
      ...(withRedis
        ? [
            `   one fetch across replicas, per cache miss (Redis; a hit pays nothing): ${fixed(flight.leader)} µs on the replica that fetches ` +
              `(the lease SET before its call; the marker SET and PUBLISH after it, not waited for), ` +
              `${fixed(flight.lateJoiner)} µs on one that asks just after (the SET that finds the marker, before its cache read)`,
          ]
        : []),
      '',
      `d. Gateway CPU per request (user + system, all threads, /proc/<pid>/stat): cache hit ` +
        `${fixed(hit.cpuPerRequest, 3)} ms, cache miss ${fixed(missLoad.cpuPerRequest, 3)} ms, ` +
        `{ __typename } ${fixed(floor.cpuPerRequest, 3)} ms; bare Fastify ${fixed(bareLoad.cpuPerRequest, 3)} ms`,
      '',
      `e. Start-up to the first GraphQL answer (${STARTS} starts each, interleaved, before any load)`,
      '',
      table(
        ['process', 'median ms', 'min ms', 'max ms'],
        [
          ['npm start (embedded simulator, NODE_ENV unset)', ...spread(startup.quickStart)],
          ['npm start (NODE_ENV=production, UPSTREAM_URL)', ...spread(startup.production)],
          ['bare Fastify (node, one route)', ...spread(startup.bare)],
        ],
      ),
      '',
      `   npm start / bare Fastify: ${fixed(median(startup.quickStart) / median(startup.bare))}× ` +
        `embedded, ${fixed(median(startup.production) / median(startup.bare))}× production ` +
        `(target: each ≤ ${START_TARGET_MS} ms on a quiet machine: ` +
        `${Math.max(median(startup.quickStart), median(startup.production)) <= START_TARGET_MS ? 'yes' : 'NO'})`,
      '',
      `f. What each refusal costs the gateway (CPU ms per request, 200 sequential; the refused document`,
      `   is 7 KB with 495 root fields, under the size and token limits; target ≤ 5 ms)`,
      '',
      table(
        ['refusal', 'HTTP', 'CPU ms/req'],
        refused.costs.map((c) => [c.name, c.status, fixed(c.cpuMs, 3)]),
      ),
      '',
      `   { __typename } p99 ${fixed(refused.idleP99, 1)} ms idle, ${fixed(refused.floodedP99, 1)} ms ` +
        `beside 4 connections of another client flooding new variants of the refused document ` +
        `(${fixed(refused.floodedP99 / Math.max(refused.idleP99, 0.1))}×, target ≤ 2×)`,
      '',
      `g. Redis commands per request (INFO commandstats deltas over 100 sequential requests, 40 for hosting,`,
      `   summed over the masters; each command is a round trip, a request sends some in parallel)`,
      '',
      table(
        ['request', 'one Redis', 'Redis Cluster'],
        [
          ['cache hit', trips(roundTrips.single?.hit), trips(roundTrips.cluster?.hit)],
          [
            'UPSTREAM_CACHE=off: one call (certificates)',
            trips(roundTrips.single?.miss),
            trips(roundTrips.cluster?.miss),
          ],
          [
            'UPSTREAM_CACHE=off: one call (hosting, shared class)',
            trips(roundTrips.single?.sharedClass),
            trips(roundTrips.cluster?.sharedClass),
          ],
        ],
      ),
      '',
      `   one Redis: hit ${breakdown(roundTrips.single?.hit)}; call ${breakdown(roundTrips.single?.miss)}; shared class ${breakdown(roundTrips.single?.sharedClass)}`,
      `   cluster: hit ${breakdown(roundTrips.cluster?.hit)}; call ${breakdown(roundTrips.cluster?.miss)}; shared class ${breakdown(roundTrips.cluster?.sharedClass)}`,
      `   budget scripts (EVALSHA) per upstream call, one call per request: one Redis ${scriptsPerCall(roundTrips.single?.miss)}, ` +
        `cluster ${scriptsPerCall(roundTrips.cluster?.miss)} (target ≤ 0.25; a lease serves several calls)`,
      `   (a call of a shared route class also runs the class's script, in the class's slot: docs/redis-keys.md)`,
      ...(roundTrips.note ? [`   not measured: ${roundTrips.note}`] : []),
      '',
      `h. @defer: a dashboard whose deployments (the one slow route, 300 ms) are deferred, 5 cold runs`,
      '',
      table(
        ['ms', 'median', 'min', 'max'],
        [
          ['first part after the last fast call answered', ...spread(deferred.firstAfterFast)],
          [
            'deferred part after the last slow call answered',
            ...spread(deferred.deferredAfterSlow),
          ],
          [
            'not deferred: whole answer after the last fast call',
            ...spread(deferred.wholeAfterFast),
          ],
        ],
      ),
      '',
      `   first part ≤ 50 ms after the fast calls: ${Math.max(...deferred.firstAfterFast) <= 50 ? 'yes' : 'NO'} (max)`,
      '',
      `i. Cold screens: a dashboard with both caches off, one at a time (5 after a warm-up), each call`,
      `   answered after the latency; floor = its two dependent rounds = 2 × latency`,
      '',
      table(
        ['latency ms', 'calls', 'median ms', 'min ms', 'max ms', '÷ floor'],
        coldScreens.map((row) => [
          row.latencyMs,
          row.calls,
          ...spread(row.screensMs),
          fixed(median(row.screensMs) / (2 * row.latencyMs), 2),
        ]),
      ),
      '',
      `   target ≤ 1.15 × the floor at 200 and 500 ms: ${
        coldScreens
          .filter((row) => row.latencyMs >= 200)
          .every((row) => median(row.screensMs) <= 1.15 * 2 * row.latencyMs)
          ? 'yes'
          : 'NO'
      }`,
      `   drain: ${drain.inFlight} reads in flight at 2 s per call, SIGTERM (bound 8 s): ${drain.answered} answered ` +
        `with their data, ${drain.shuttingDown} SHUTTING_DOWN; last answer ${fixed(drain.lastAnswerMs, 0)} ms ` +
        `and exit ${fixed(drain.exitMs, 0)} ms after the signal`,
      '',
      `errors during load: ${[bareLoad, hit, floor, hitRedis, missLoad, missRedis, ...pair.flat()].reduce((n, l) => n + (l?.errors ?? 0), 0)}; ` +
        `bench took ${fixed((Date.now() - started) / 1000, 0)} s. Reproduce: npm run bench`,
    );
    console.log(out.join('\n'));
  } finally {
    bare?.kill('SIGTERM');
    if (bare && bare.exitCode === null) await once(bare, 'exit');
    await Promise.all(processes.map((p) => p.stop()));
    await simulator.close();
    if (withRedis) {
      const client = createClient({ url: REDIS_URL });
      client.on('error', () => undefined);
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${redisPrefix}*`, COUNT: 500 })) {
        if (keys.length > 0) await client.del(keys);
      }
      await client.close();
    }
  }
}

await main();
