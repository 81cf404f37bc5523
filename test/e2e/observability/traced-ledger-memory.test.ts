/**
 * Many traced requests of one tenant under the image's heap flags ("one tenant crashes
 * the gateway with the ledger"): a gateway process started as production starts it
 * (`production-command.ts`: `--max-old-space-size=384 --max-semi-space-size=32`, its default
 * limits), the simulator here, the process's peak RSS read from /proc.
 *
 * The finding: 30 concurrent `Weft-Trace: 1` requests of a 32 KB document of long aliases (44
 * certificates × 26 aliased detail fields under four aliased ancestors, all from the cache) ran the
 * heap out — each answer's ledger repeated every ancestor alias in every path: 6 MB beside 1.3 MB of
 * data. Three times that document does not pass the default limits (30 aliases, 32 KiB, a page of
 * 100 certificates at most); the largest that does is the same document over 100 certificates
 * (2.3 times the data; before the fix a 16.6 MB answer). Here 90 of them at once, each a different
 * document so that none is a whole-response replay of another.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { productionCommand } from '../../support/production-command.ts';
import { longAliasCertificates, seedCertificates } from '../../support/long-alias-documents.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { MAX_LEDGER_PATH_BYTES } from '../../../src/upstream/ledger-field-paths.ts';

const MiB = 1024 * 1024;
const REQUESTS = 90;
const CERTIFICATES = 100;
const SHAPE = { fields: 26, aliasChars: 1050, first: CERTIFICATES };
/** A heap flag of the image's command, in MiB (`--max-old-space-size=384` → 384). */
function heapFlagMiB(name: string): number {
  const flag = productionCommand().args.find((arg) => arg.startsWith(`--${name}=`));
  if (!flag) throw new Error(`the image's command has no --${name}`);
  return Number(flag.slice(name.length + 3));
}
/**
 * Peak RSS allowed: the image's heap limits, its old space and young generation (3 semi-spaces).
 * The process's code (~50 MiB) and the answers being written to sockets sit outside the heap, so a
 * burst that stays under the heap's own size leaves the heap room it did not need. Before the
 * ledger was bounded this burst peaked at 1.4–1.9 GiB (30 requests: 870 MiB), each answer 16.6 MB;
 * now 320–370 MiB (30: 340 MiB), each answer 3.0 MB — its data 2.94 MB.
 */
const RSS_BOUND =
  (heapFlagMiB('max-old-space-size') + 3 * heapFlagMiB('max-semi-space-size')) * MiB;
/** What a ledger adds to an answer at most here: 101 calls of ~250 bytes, and its paths. */
const LEDGER_BYTES = 101 * 256 + MAX_LEDGER_PATH_BYTES + 8 * 1024;

let sim: RunningSimulator;
let gateway: GatewayProcess;
beforeAll(async () => {
  sim = await startSimulator({ ipLimits: false, rateLimit: 1_000_000 });
  seedCertificates(sim.simulator.context.state.certificates, CERTIFICATES);
  gateway = await startGatewayProcess({
    UPSTREAM_URL: sim.url,
    UPSTREAM_RATE_LIMIT: '1000000',
    // 90 requests at once on a busy test machine: one whose headers wait behind the others' work
    // must not be cut by the 10 s headers bound (this test is about memory).
    HEADERS_TIMEOUT_MS: '60000',
  });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await sim?.close();
});

/** CPU seconds the process has used (/proc/<pid>/stat: user and system time, in clock ticks). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A /proc/<pid>/status field, bytes. */
async function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (!kb) throw new Error(`no ${field}`);
  return Number(kb) * 1024;
}

/** Bytes of an answer's end kept to read its ledger: the ledger is bounded, the data is not. */
const TAIL_BYTES = 512 * 1024;

/**
 * What one answer was: its size, its start, and its ledger read from its end. The body is read as
 * it arrives and not parsed whole: a client slow to read 90 answers of 3 MB makes the gateway hold
 * them unsent, and that is the client's doing, not the ledger's.
 */
async function answer(query: string, traced: boolean) {
  const res = await request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer demo-token',
      ...(traced ? { 'weft-trace': '1' } : {}),
    },
    body: JSON.stringify({ query }),
  });
  let bytes = 0;
  let head = '';
  let tail = Buffer.alloc(0);
  for await (const chunk of res.body) {
    const data = chunk as Buffer;
    bytes += data.length;
    if (head.length < 8) head += data.toString('utf8', 0, 8);
    tail = Buffer.concat([tail, data]);
    if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
  }
  const end = tail.toString('utf8');
  const at = end.lastIndexOf(',"extensions":');
  const extensions = at < 0 ? undefined : JSON.parse(end.slice(at + 14, end.lastIndexOf('}')));
  return {
    status: res.statusCode,
    bytes,
    // `{"data":` first: no `errors`.
    head: head.slice(0, 8),
    calls: extensions?.upstream?.calls?.length as number | undefined,
  };
}

it(
  `answers ${REQUESTS} concurrent traced requests of long aliases within the heap limits`,
  // 90 traced answers of long aliases took over 60 s beside two busy loops on two cores; what is
  // asserted is memory, not time.
  { timeout: 180_000 },
  async () => {
    const pid = gateway.child.pid!;
    // The certificates and their details in the upstream cache, as in the finding; the answer
    // without a ledger.
    const plain = await answer(longAliasCertificates(SHAPE), false);
    expect(plain.head).toBe('{"data":');
    const before = await statusBytes(pid, 'VmRSS');
    // Resets the peak RSS (VmHWM) to the current RSS: what follows is the burst's own peak.
    await writeFile(`/proc/${pid}/clear_refs`, '5');

    const cpuBefore = await cpuSeconds(pid);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, (_, variant) =>
        answer(longAliasCertificates({ ...SHAPE, variant: variant + 1 }), true),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const peak = await statusBytes(pid, 'VmHWM');
    const cpu = (await cpuSeconds(pid)) - cpuBefore;
    console.log(
      `${REQUESTS} traced answers of ${answers[0]!.bytes} bytes (untraced ${plain.bytes}) in ` +
        `${seconds.toFixed(1)} s, gateway CPU ${cpu.toFixed(1)} s; ` +
        `RSS ${(before / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB`,
    );

    expect(gateway.child.exitCode).toBeNull();
    expect(peak).toBeLessThan(RSS_BOUND);
    for (const traced of answers) {
      expect(traced.status).toBe(200);
      expect(traced.head).toBe('{"data":');
      // Each adds a bounded number of bytes to the same data…
      expect(traced.bytes - plain.bytes).toBeLessThanOrEqual(LEDGER_BYTES);
      // …for its ledger: the list and one detail call per certificate.
      expect(traced.calls).toBe(CERTIFICATES + 1);
    }
    // Still serving.
    const health = await request(`${gateway.url}/healthz`);
    await health.body.dump();
    expect(health.statusCode).toBe(200);
  },
);
