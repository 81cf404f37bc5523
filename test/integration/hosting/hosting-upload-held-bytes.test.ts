/**
 * What the gateway holds in memory of an archive it is streaming. The upstream stops reading a
 * little way into the upload (a gate in front of the simulator) while the client sends the whole
 * archive; with the upload stalled mid-stream, a full collection leaves only what the gateway keeps
 * alive, which for a streamed file is a few chunks and buffers, whatever the file's size. A gateway
 * that read the file into memory before (or while) sending it would hold all of it here.
 *
 * Counted as the process's array-buffer memory (where Buffers live) after a forced collection, so the
 * figure is the live bytes, not garbage awaiting collection; the gateway runs in this process.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postMultipart, zipStream } from '../../support/graphql-multipart.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;
/** Bytes the upstream reads before it stops. */
const OPEN_BYTES = 1 * MiB;
/**
 * What a streaming gateway may hold: chunks in flight and stream buffers, the same whatever the
 * file's size. A gateway that held the file would pass it with neither archive below.
 */
const HELD_BOUND = 8 * MiB;
const UPLOAD = `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) {
  jobId bytes userErrors { code message } } }`;
const SOURCE_PATH = /^\/v1\/hosting\/nodejs\/apps\/[^/]+\/source$/;

/** Lets OPEN_BYTES through, then holds every further chunk until `open()`. */
class Gate extends Transform {
  passed = 0;
  private held: Array<() => void> = [];
  private opened = false;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const pass = () => {
      this.passed += chunk.length;
      done(null, chunk);
    };
    if (this.opened || this.passed < OPEN_BYTES) pass();
    else this.held.push(pass);
  }
  open(): void {
    this.opened = true;
    for (const pass of this.held.splice(0)) pass();
  }
}

let stack: Stack;
let proxy: Server;
let gate: Gate | undefined;
/** Resolves when an upload's body has reached the gate and stopped there. */
let stalled: () => void = () => undefined;

beforeAll(async () => {
  stack = await startStack({
    async upstream(simulatorUrl) {
      // A plain HTTP proxy to the simulator; a source upload goes through the gate when one is set.
      const target = new URL(simulatorUrl);
      proxy = createServer((req, res) => {
        const out = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        const current = SOURCE_PATH.test(req.url ?? '') ? gate : undefined;
        if (!current) return void req.pipe(out);
        current.on('data', () => {
          if (current.passed >= OPEN_BYTES) stalled();
        });
        req.pipe(current).pipe(out);
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    },
  });
});
// Every code path once, through an open gate, with an archive as large as the smaller case: pools
// and buffers a first large upload grows are not what the gateway holds of a file.
beforeAll(async () => {
  gate = new Gate();
  gate.open();
  const warm = await postMultipart({
    url: stack.url,
    query: UPLOAD,
    variables: { input: { appId: 'app-0001', zipFile: null } },
    filePath: 'input.zipFile',
    file: zipStream(16 * MiB),
  });
  expect(warm.body.data.uploadAppSource.userErrors).toEqual([]);
});
afterAll(async () => {
  await stack.close();
  proxy.close();
});

/**
 * The process's live Buffer memory after a full collection, the least of a few readings a moment
 * apart: what the previous upload's streams release as they close, and writes still queued to the
 * spool, drain; a file held in memory stays.
 */
async function liveBufferBytes(): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < 5; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    collectGarbage();
    least = Math.min(least, process.memoryUsage().arrayBuffers);
  }
  return least;
}

it.each([16 * MiB, 64 * MiB])(
  'holds a few chunks of a %i-byte archive, not the archive, while the upstream is slow to read it',
  async (fileBytes) => {
    const before = await liveBufferBytes();
    gate = new Gate();
    const atGate = new Promise<void>((resolve) => (stalled = resolve));
    let sent = false;
    const file = zipStream(fileBytes);
    const answer = postMultipart({
      url: stack.url,
      query: UPLOAD,
      variables: { input: { appId: 'app-0001', zipFile: null } },
      filePath: 'input.zipFile',
      async *file() {
        yield* file();
        sent = true;
      },
    });
    await atGate;
    // The client sends the whole archive while the upstream reads nothing more (the gateway spools
    // it); then the gateway has had every chance to hold it.
    while (!sent) await new Promise((resolve) => setTimeout(resolve, 20));
    const held = (await liveBufferBytes()) - before;
    expect(gate.passed).toBeLessThan(OPEN_BYTES + 1 * MiB);
    console.log(
      `held while stalled: ${(held / MiB).toFixed(1)} MiB of a ${fileBytes / MiB} MiB archive ` +
        `(the upstream had read ${(gate.passed / MiB).toFixed(1)} MiB)`,
    );
    expect(held).toBeLessThan(HELD_BOUND);

    gate.open();
    const { body } = await answer;
    expect(body.data.uploadAppSource).toMatchObject({ bytes: fileBytes, userErrors: [] });
    const stored = stack.sim.simulator.context.state.hosting.apps.get('app-0001')!.uploads.at(-1)!;
    expect(stored.bytes).toBe(fileBytes);
  },
);
