/**
 * The yardstick of the cache-hit benchmark: a bare Fastify route on the same machine that answers
 * `POST /graphql` with the same JSON the gateway sends for the cached query (request body parsed,
 * response pre-serialized). Started as its own process by `run-bench.ts`.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.env.BENCH_BODY_FILE ?? '', 'utf8');
const app = Fastify({ logger: false });
app.post('/graphql', async (_request, reply) => reply.type('application/json').send(body));
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
