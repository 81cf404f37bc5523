/**
 * Gives memory back once a burst of work is over. Under load V8 grows its young generation to the
 * semi-space bound (2 × 32 MiB) and lets the old generation fill with garbage between full
 * collections; when the load stops, nothing shrinks them again: V8's own memory reducer waits for a
 * low allocation rate that it measures only at collections, and an idle process has none, so a
 * process that had served a burst kept its peak RSS, though most of it was garbage and empty
 * young-generation room.
 *
 * So when no request has been in flight for `idleMs` and the heap has grown by at least
 * `growthBytes` since the last release (or since start-up), one memory-reducing full collection
 * runs (V8's "last resort" flavour: it compacts and gives the freed pages and the young
 * generation's room back to the system). It blocks the event loop while it runs, which is why it
 * waits for a quiet moment and runs once per burst, never under load. It needs `globalThis.gc`
 * (`node --expose-gc`, as `npm start` and the image run Weft); without it nothing happens.
 *
 * Probes are not requests here: an orchestrator asks `/healthz` and `/readyz` every few seconds and
 * Prometheus scrapes `/metrics`, so counting them, a deployed replica was never quiet and kept its
 * peak for good. They make next to no garbage, and a collection between two of them delays one
 * probe by its pause, well within any probe's timeout.
 */
import { getHeapStatistics } from 'node:v8';
import type { FastifyBaseLogger } from 'fastify';

export interface IdleMemoryReleaseOptions {
  /** Quiet time (no request arriving or in flight) before memory is released; 0 for never. */
  readonly idleMs: number;
  /** Where requests arrive: the HTTP server (a count, and a listener for the response's end). */
  readonly server: {
    on(
      event: 'request',
      listener: (request: { url?: string }, response: ResponseEnd) => void,
    ): unknown;
  };
  readonly logger: FastifyBaseLogger;
  /** Heap growth since the last release that makes another worth its pause. */
  readonly growthBytes?: number;
  /** The memory-reducing collection; by default V8's, when Node exposes it. */
  readonly collect?: (() => void) | undefined;
  readonly heapBytes?: () => number;
  readonly rssBytes?: () => number;
}

/** The part of a response the release listens to: its end (sent, or its connection gone). */
interface ResponseEnd {
  once(event: 'close', listener: () => void): unknown;
}

const MiB = 1024 * 1024;

/** The paths of probes and scrapes, which do not end a quiet moment. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** Whether a request is a probe: its path, without a query string, is one of {@link PROBE_PATHS}. */
function isProbe(url: string | undefined): boolean {
  if (url === undefined) return false;
  const query = url.indexOf('?');
  return PROBE_PATHS.has(query === -1 ? url : url.slice(0, query));
}

/** V8's memory-reducing full collection, when Node exposes it (`--expose-gc`). */
function lastResortCollection(): (() => void) | undefined {
  const gc = globalThis.gc;
  return gc
    ? () => void gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
    : undefined;
}

/** Starts watching for quiet moments; `stop` ends it (the timer never keeps the process alive). */
export function startIdleMemoryRelease(options: IdleMemoryReleaseOptions): { stop(): void } {
  const collect = 'collect' in options ? options.collect : lastResortCollection();
  if (options.idleMs <= 0) return { stop: () => undefined };
  if (!collect) {
    options.logger.info('idle memory release off: node runs without --expose-gc');
    return { stop: () => undefined };
  }
  const heapBytes = options.heapBytes ?? (() => getHeapStatistics().total_heap_size);
  const rssBytes = options.rssBytes ?? (() => process.memoryUsage.rss());
  const growthBytes = options.growthBytes ?? 32 * MiB;

  // A quiet moment starts when the last request has ended, not when it arrived: a burst (or an
  // upload) that takes longer than `idleMs` is still work.
  let requests = 0;
  let inFlight = 0;
  const ended = () => {
    inFlight -= 1;
    requests += 1;
  };
  options.server.on('request', (request, response) => {
    if (isProbe(request.url)) return;
    requests += 1;
    inFlight += 1;
    response.once('close', ended);
  });
  let requestsSeen = 0;
  let quietSince = Date.now();
  let baseline = heapBytes();

  const check = () => {
    if (requests !== requestsSeen || inFlight > 0) {
      requestsSeen = requests;
      quietSince = Date.now();
      return;
    }
    if (Date.now() - quietSince < options.idleMs) return;
    const heapBefore = heapBytes();
    if (heapBefore - baseline < growthBytes) return;
    const rssBefore = rssBytes();
    const started = performance.now();
    collect();
    baseline = heapBytes();
    options.logger.info(
      {
        heapMiB: [Math.round(heapBefore / MiB), Math.round(baseline / MiB)],
        rssMiB: [Math.round(rssBefore / MiB), Math.round(rssBytes() / MiB)],
        pauseMs: Math.round(performance.now() - started),
      },
      'idle: memory released',
    );
  };
  // Checked a few times per quiet period.
  const timer = setInterval(check, Math.max(100, Math.floor(options.idleMs / 3))).unref();
  return { stop: () => clearInterval(timer) };
}
