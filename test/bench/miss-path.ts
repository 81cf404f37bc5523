/**
 * `node test/bench/miss-path.ts`: the CPU of one single-read miss inside the process — the peer
 * harness's b2 request (transactions only, `updatedAtAfter` varied per request, so neither cache
 * answers it) through Fastify's `inject`, `MISS_CONCURRENCY` at a time, in production mode, logging
 * to a file as stdout would be, against the simulator in its own process (its CPU is not counted).
 * Prints µs per request: the whole process (main thread, collector and compiler threads) and the
 * main thread alone, the median of rounds. Knobs: MISS_ROUNDS (7), MISS_PER_ROUND (1500),
 * MISS_CONCURRENCY (10), MISS_SIM_LATENCY_MS (0). Run it with the heap flags of `npm start`
 * (`node --max-old-space-size=384 --max-semi-space-size=32 test/bench/miss-path.ts`): the young
 * generation's size decides most of the collector's share. Two checkouts alternated on one machine
 * compare a change; `--trace-gc-nvp` adds what each scavenge promoted. `inject` closes the raw
 * response before it counts as finished, so each request also aborts its `gone` controller (~1 %
 * of the main thread that a socket does not pay).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { inProcessProductionGateway } from './in-process-gateway.ts';

const ROUNDS = Number(process.env.MISS_ROUNDS ?? 7);
const PER_ROUND = Number(process.env.MISS_PER_ROUND ?? 1500);
const CONCURRENCY = Number(process.env.MISS_CONCURRENCY ?? 10);
const DOCUMENT = `query Transactions($storeId: ID!, $txAfter: String) {
  store(storeId: $storeId) {
    storeId
    transactions(first: 10, filter: { updatedAtAfter: $txAfter }) {
      edges { node { transactionId status amount { amount currency } createdAt } }
    }
  }
}`;

const simulator = spawn(
  process.execPath,
  [new URL('../../src/simulator/standalone.ts', import.meta.url).pathname],
  {
    env: {
      ...process.env,
      SIM_PORT: '0',
      SIM_LATENCY_MS: process.env.MISS_SIM_LATENCY_MS ?? '0',
      SIM_RATE_LIMIT: '1000000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const [line] = (await once(simulator.stdout!, 'data')) as [Buffer];
const upstreamUrl = /listening on (\S+)/.exec(line.toString())?.[1];
if (!upstreamUrl) throw new Error(`simulator: ${line.toString()}`);
const gateway = await inProcessProductionGateway(upstreamUrl);

let counter = 0;
const request = () => ({
  method: 'POST' as const,
  url: '/graphql',
  headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
  payload: JSON.stringify({
    query: DOCUMENT,
    variables: {
      storeId: '11111111-1111-4111-8111-111111111111',
      txAfter: new Date(Date.UTC(2026, 0, 1) + (counter += 1) * 1000).toISOString(),
    },
  }),
});
const run = async (count: number) => {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const answer = await gateway.app.inject(request());
      if (answer.statusCode !== 200 || answer.body.includes('"errors"'))
        throw new Error(`not an answer: ${answer.body.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
};
await run(PER_ROUND); // warm-up
const whole: number[] = [];
const main: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const before = process.cpuUsage();
  const mainBefore = process.threadCpuUsage();
  await run(PER_ROUND);
  const used = process.cpuUsage(before);
  const mainUsed = process.threadCpuUsage(mainBefore);
  whole.push((used.user + used.system) / PER_ROUND);
  main.push((mainUsed.user + mainUsed.system) / PER_ROUND);
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(
  `single-read miss in process, median of ${ROUNDS} × ${PER_ROUND} (${CONCURRENCY} at a time): ${median(whole).toFixed(0)} µs CPU, main thread ${median(main).toFixed(0)} µs (min ${Math.min(...whole).toFixed(0)} / ${Math.min(...main).toFixed(0)})`,
);
await gateway.close();
simulator.kill('SIGTERM');
