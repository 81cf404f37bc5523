/**
 * A call made while an answer is read goes out before the answers that arrived with that one are
 * handed on (docs/performance.md, cold screens). undici writes a request on a reused keep-alive
 * connection only after the event loop's next poll phase; without the transport stepping aside,
 * a screen's second round waited there for every other first-round answer to be processed.
 *
 * The upstream runs in a worker, so that this thread can be kept busy while it answers: both
 * answers are then waiting on their sockets together, as a screen's first round arrives.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialFactory } from '../../../../src/upstream/credential.ts';
import { createTransport } from '../../../../src/upstream/http/http-transport.ts';
import type { UpstreamCall } from '../../../../src/upstream/upstream-call.ts';

const credential = createCredentialFactory('transport-test-secret-0123')('tok-123');

/** Answers `/held/*` only when told to, all in one tick; anything else at once. */
const UPSTREAM = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const answered = new Int32Array(workerData);
const held = [];
const server = createServer((req, res) => {
  const answer = () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ path: req.url })); return res; };
  if (!req.url.startsWith('/held/')) return answer();
  held.push(answer);
  parentPort.postMessage({ held: held.length });
});
parentPort.on('message', (message) => {
  if (message !== 'answer') return;
  const answers = held.splice(0);
  let finished = 0;
  // 'finish': the answer's last bytes are handed to the kernel, which on loopback puts them on the
  // other end's socket before the write returns.
  const onFinish = () => {
    finished += 1;
    if (finished < answers.length) return;
    Atomics.store(answered, 0, 1);
    Atomics.notify(answered, 0);
  };
  for (const answer of answers) answer().once('finish', onFinish);
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

const answeredFlag = new Int32Array(new SharedArrayBuffer(4));
let worker: Worker;
let port: number;
const held: ((count: number) => void)[] = [];

beforeAll(async () => {
  worker = new Worker(UPSTREAM, { eval: true, workerData: answeredFlag.buffer });
  port = await new Promise<number>((resolve) => {
    worker.on('message', (message: { port?: number; held?: number }) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.held !== undefined) for (const waiter of held) waiter(message.held);
    });
  });
});
afterAll(() => worker.terminate());

const get = (route: string): UpstreamCall => ({ method: 'GET', route, credential });

describe('the http transport, a call made while answers are read', () => {
  it('goes out before the answers that came with the one that made it are handed on', async () => {
    const transport = createTransport({
      baseUrl: `http://127.0.0.1:${port}`,
      connectTimeoutMs: 1_000,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 5_000,
      maxResponseBytes: 10_000,
      connections: 4,
    });
    const signal = new AbortController().signal;
    // Keep-alive connections the calls below reuse, as a screen's second round does.
    await Promise.all(['/warm/1', '/warm/2', '/warm/3'].map((r) => transport.send(get(r), signal)));

    const order: string[] = [];
    const sent = ({ request }: { request: { path: string } }) => {
      if (request.path === '/next') order.push('/next written');
    };
    subscribe('undici:client:sendHeaders', sent as (message: unknown) => void);
    try {
      const bothHeld = new Promise<void>((resolve) =>
        held.push((count) => {
          if (count === 2) resolve();
        }),
      );
      let next: Promise<unknown> | undefined;
      const first = transport.send(get('/held/first'), signal).then(() => {
        order.push('/held/first handed on');
        next = transport.send(get('/next'), signal);
      });
      const second = transport.send(get('/held/second'), signal).then(() => {
        order.push('/held/second handed on');
      });
      await bothHeld;
      worker.postMessage('answer');
      // This thread stays busy until both answers are on their sockets.
      Atomics.wait(answeredFlag, 0, 0, 5_000);
      await Promise.all([first, second]);
      await next;
      expect(order).toEqual(['/held/first handed on', '/next written', '/held/second handed on']);
    } finally {
      unsubscribe('undici:client:sendHeaders', sent as (message: unknown) => void);
      await transport.close();
    }
  });
});
