/**
 * `node test/bench/hit-path.ts`: the CPU of one whole-response cache hit inside the process — the
 * warm dashboard replayed through Fastify's `inject` (no socket), in production mode, logging to a
 * file as stdout would be — in µs, the median of rounds. It isolates Weft's own code of a hit (hooks,
 * credential, replay, log line, metrics) from the socket write and the load generator, which a
 * load test measures together with it. Knobs: HIT_ROUNDS (7), HIT_PER_ROUND (20000).
 */
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { createSimulator } from '../../src/simulator/simulator.ts';
import { inProcessProductionGateway } from './in-process-gateway.ts';

const ROUNDS = Number(process.env.HIT_ROUNDS ?? 7);
const PER_ROUND = Number(process.env.HIT_PER_ROUND ?? 20_000);
const DOCUMENT = readFileSync(new URL('./hit-dashboard.graphql', import.meta.url), 'utf8');

const simulator = await createSimulator({
  latencyMs: 0,
  rateLimit: 1e9,
  rateWindowSec: 1399,
  ipLimits: false,
});
const upstreamUrl = await simulator.listen(0);
const gateway = await inProcessProductionGateway(upstreamUrl);

const request = {
  method: 'POST' as const,
  url: '/graphql',
  headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
  payload: JSON.stringify({
    query: DOCUMENT,
    variables: {
      customerId: 'demo-customer',
      storeId: '11111111-1111-4111-8111-111111111111',
      certOffset: 0,
    },
  }),
};
for (let i = 0; i < 5; i += 1) await gateway.app.inject(request);
const probe = await gateway.app.inject(request);
if (probe.headers['x-weft-response-cache'] !== 'hit')
  throw new Error(`not a hit: ${probe.body.slice(0, 300)}`);

// The same request answered by a bare route with the same bytes: what `inject` itself costs.
const bare = Fastify({ logger: false });
const body = probe.body;
bare.post('/graphql', async (_request, reply) => reply.type('application/json').send(body));
await bare.ready();

const weft: number[] = [];
const floor: number[] = [];
const cpuPerRequest = async (app: FastifyInstance): Promise<number> => {
  const before = process.cpuUsage();
  for (let i = 0; i < PER_ROUND; i += 1) await app.inject(request);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / PER_ROUND;
};
for (let round = 0; round < ROUNDS; round += 1) {
  weft.push(await cpuPerRequest(gateway.app));
  floor.push(await cpuPerRequest(bare));
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(
  `hit in process, median of ${ROUNDS} × ${PER_ROUND}: Weft ${median(weft).toFixed(1)} µs CPU, bare route ${median(floor).toFixed(1)}, Weft's own ${(median(weft) - median(floor)).toFixed(1)}`,
);
await gateway.close();
await simulator.close();
