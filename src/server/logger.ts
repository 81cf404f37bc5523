/**
 * Structured JSON logs (pino). Credentials and cookies are redacted wherever they appear, and request
 * URLs are logged without their query string (GET operations may carry variables).
 */
import { EventEmitter, once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import pino, { type Logger } from 'pino';
import type { Config } from '../config.ts';

/**
 * Credentials logged anywhere under these names are replaced. A request or a reply logged as `req`
 * or `res` never needs them: their serializers below keep an allow-list (id, method, path; status
 * code), so no header of theirs reaches a line. Redacting under `req` and `res` as well cost a
 * path walk of each on every access line (pino's redaction parses its paths on each call).
 */
export const REDACTED_PATHS = [
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  'token',
  'hmacKey',
  'variables',
];

/**
 * pino's ISO-8601 `time`, formatting the date once a second: `toISOString` on every line was a
 * quarter of an access line's cost. The same text as `pino.stdTimeFunctions.isoTime`.
 */
export function isoTimeBySecond(now: () => number = Date.now): () => string {
  let second = Number.NaN;
  let prefix = '';
  return () => {
    const ms = now();
    const secondStart = ms - (((ms % 1000) + 1000) % 1000);
    if (secondStart !== second) {
      second = secondStart;
      // "2026-11-26T06:09:47." — the milliseconds and the zone follow.
      prefix = `,"time":"${new Date(secondStart).toISOString().slice(0, -4)}`;
    }
    return `${prefix}${String(ms - secondStart).padStart(3, '0')}Z"`;
  };
}

export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'>,
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    base: { service: 'weft' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: { method?: string; url?: string; id?: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url?.split('?')[0],
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
    timestamp: isoTimeBySecond(),
  };
  return pino(options, destination ?? batchedStdout());
}

/** Bytes of lines gathered before stdout is written (a write carries some forty access lines). */
export const LOG_BATCH_BYTES = 16 * 1024;
/** How long a line may wait for its batch to fill, at most (ms): the next flush writes it. */
export const LOG_FLUSH_MS = 50;

/** The parts of pino's destination (sonic-boom) that {@link gatherLines} wraps. */
interface SonicBoomLike {
  minLength: number;
  write(line: string): boolean;
  flush(callback?: ((error?: Error) => void) | null): void;
  flushSync(): void;
  end(): void;
}

/**
 * stdout, written asynchronously, off the event loop, in batches: a write per line handed each line
 * to a libuv thread and back — at thousands of cached answers a second, a write and two thread
 * wake-ups per answer, more than building the line. Lines wait until {@link LOG_BATCH_BYTES} have
 * gathered or the next flush, every {@link LOG_FLUSH_MS} ms; pino writes what is left when the
 * process exits (an uncaught error included), or when {@link linesWritten} asks; only a hard kill
 * (`SIGKILL`, an out-of-memory abort) loses the lines of those last milliseconds.
 */
export function batchedStdout(
  dest: number | string = 1,
  flushMs: number = LOG_FLUSH_MS,
): pino.DestinationStream {
  const stream = pino.destination({
    dest,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    // A batch is one write of at most this many bytes (sonic-boom wants it above minLength).
    maxWrite: 4 * LOG_BATCH_BYTES,
    periodicFlush: flushMs,
  });
  gatherLines(stream as unknown as SonicBoomLike);
  return stream;
}

/**
 * Hands sonic-boom one string per batch instead of one per line. Given lines, it appends each to
 * the batch's string and measures the batch's UTF-8 length again, which flattens it: every line
 * copied the whole batch so far (a batch's cost grew with the square of its size). Gathered in an
 * array, a line costs a push; the batch is joined once. Flushing — periodic, `linesWritten`, exit —
 * hands over what has gathered first, so no line is left behind.
 */
function gatherLines(stream: SonicBoomLike): void {
  const write = stream.write.bind(stream);
  const flush = stream.flush.bind(stream);
  const flushSync = stream.flushSync.bind(stream);
  const end = stream.end.bind(stream);
  let lines: string[] = [];
  let chars = 0;
  const handOver = () => {
    if (lines.length === 0) return;
    const batch = lines.join('');
    lines = [];
    chars = 0;
    write(batch);
  };
  stream.write = (line) => {
    lines.push(line);
    chars += line.length;
    // sonic-boom's own threshold: `linesWritten` lowers it to 0 so that no batch waits.
    if (chars >= stream.minLength) handOver();
    return true;
  };
  stream.flush = (callback) => {
    handOver();
    flush(callback);
  };
  stream.flushSync = () => {
    // Given to sonic-boom without starting an asynchronous write (which an exit would cut short):
    // its flushSync writes everything that is not already being written.
    const minLength = stream.minLength;
    stream.minLength = Number.POSITIVE_INFINITY;
    try {
      handOver();
    } finally {
      stream.minLength = minLength;
    }
    flushSync();
  };
  stream.end = () => {
    handOver();
    end();
  };
}

/**
 * Resolves once the lines logged so far have been written (at most `timeoutMs` later). Called after
 * the last line before an exit: at exit pino writes what is still queued at once, even while an
 * earlier line is being written off the event loop, so that earlier line could land after it.
 * Only useful right after a line was logged (an idle destination never says it drained).
 */
export async function linesWritten(logger: Logger, timeoutMs = 1_000): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  if (!(stream instanceof EventEmitter) || (stream as { sync?: boolean }).sync !== false) return;
  const drained = once(stream, 'drain');
  // Written now, every batch to its last line, rather than at the next flush: nothing is batched
  // after the last line.
  const batched = stream as { minLength?: number; flush?: () => void };
  batched.flush?.();
  // Then no batch waits: a write under way is followed by the rest (flush first: without a batch
  // size it writes nothing).
  if (batched.minLength) batched.minLength = 0;
  await Promise.race([drained, delay(timeoutMs, undefined, { ref: false })]);
}
