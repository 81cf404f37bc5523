/** The log's last lines before an exit: written, in order, before the process ends. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs, { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import {
  batchedStdout,
  createLogger,
  isoTimeBySecond,
  LOG_BATCH_BYTES,
  LOG_FLUSH_MS,
  linesWritten,
} from '../../../src/server/logger.ts';

type Destination = ReturnType<typeof pino.destination>;

const readyDestination = async (file: string, flushMs?: number): Promise<Destination> => {
  const destination = batchedStdout(file, flushMs) as Destination;
  await new Promise((resolve) => destination.once('ready', resolve));
  return destination;
};
const linesIn = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe("production's stdout (batchedStdout)", () => {
  it('writes access lines in batches: lines arriving one at a time are not written one by one', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-log-')), 'out.log');
    // No periodic flush within the test: only a full batch is written.
    const destination = await readyDestination(file, 60_000);
    // sonic-boom starts each write with fs.write (or fs.writeSync): counted as it starts, not when
    // the write has finished.
    const writes = [vi.spyOn(fs, 'write'), vi.spyOn(fs, 'writeSync')];
    const logger = createLogger({ LOG_LEVEL: 'info' }, destination);
    const line = { req: { id: 'a'.repeat(36), method: 'POST', url: '/graphql' } };
    const lineBytes = 200; // at least, as written
    const perBatch = Math.floor(LOG_BATCH_BYTES / lineBytes);
    // Each line after the previous one's turn of the event loop, where a write per line would start.
    for (let i = 0; i < perBatch - 1; i += 1) {
      logger.info(line, 'graphql operation');
      await new Promise(setImmediate);
    }
    expect(writes.map((spy) => spy.mock.calls.length)).toEqual([0, 0]);
    for (const spy of writes) spy.mockRestore();
    expect(linesIn(file)).toHaveLength(0);
    await linesWritten(logger);
    expect(linesIn(file)).toHaveLength(perBatch - 1);
    destination.destroy();
  });

  it('writes a lone line by itself soon, without another line or an exit to push it out', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-log-')), 'out.log');
    const destination = await readyDestination(file);
    const logger = createLogger({ LOG_LEVEL: 'info' }, destination);
    logger.info('alone');
    expect(linesIn(file)).toHaveLength(0); // waiting for its batch
    // The periodic flush writes it: polled with a deadline, since only real time tells.
    const deadline = performance.now() + 20 * LOG_FLUSH_MS;
    while (linesIn(file).length === 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, LOG_FLUSH_MS / 5));
    }
    expect(linesIn(file)).toHaveLength(1);
    destination.destroy();
  });
});

describe('lines gathered when the process exits', () => {
  it('writes every line of an unfinished batch before an exit that does not wait', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-log-')), 'out.log');
    const logger = new URL('../../../src/server/logger.ts', import.meta.url).href;
    // A child process: pino's exit handler writes what is left synchronously, as production exits.
    const script = `
      const { batchedStdout, createLogger } = await import(${JSON.stringify(logger)});
      const destination = batchedStdout(${JSON.stringify(file)}, 60_000);
      await new Promise((resolve) => destination.once('ready', resolve));
      const log = createLogger({ LOG_LEVEL: 'info' }, destination);
      for (let i = 0; i < 20; i += 1) log.info({ i }, 'line');
      process.exit(0);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: 'inherit',
    });
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    const lines = linesIn(file).map((line) => (JSON.parse(line) as { i: number }).i);
    expect(lines).toEqual([...Array(20).keys()]);
  });
});

describe('linesWritten', () => {
  it.each([
    [
      'an asynchronous destination',
      (file: string) => pino.destination({ dest: file, sync: false }),
    ],
    ["production's stdout, written in batches", (file: string) => batchedStdout(file)],
  ])('resolves once every line logged so far is on disk, in order (%s)', async (_name, open) => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-log-')), 'out.log');
    const destination = open(file);
    await new Promise((resolve) => (destination as Destination).once('ready', resolve));
    const logger = createLogger({ LOG_LEVEL: 'info' }, destination);
    for (let i = 0; i < 500; i += 1) logger.info({ i }, 'line');
    logger.info('stopped');
    // Written off the event loop: not all there yet.
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean).length).toBeLessThan(501);

    // With production's bound (main.ts waits with the default before it exits).
    await linesWritten(logger);
    const messages = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; i?: number });
    expect(messages).toHaveLength(501);
    expect(messages.at(-1)?.msg).toBe('stopped');
    expect(messages.slice(0, -1).map((line) => line.i)).toEqual([...Array(500).keys()]);
  });

  it('returns at once for a synchronous destination', async () => {
    const lines: string[] = [];
    const logger = createLogger({ LOG_LEVEL: 'info' }, { write: (line) => lines.push(line) });
    logger.info('stopped');
    const started = performance.now();
    await linesWritten(logger, 5_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(lines).toHaveLength(1);
  });
});

describe('isoTimeBySecond', () => {
  it("writes the same time as pino's isoTime, across seconds and back again", () => {
    const instants = [
      Date.UTC(2026, 10, 26, 6, 9, 47, 0),
      Date.UTC(2026, 10, 26, 6, 9, 47, 7),
      Date.UTC(2026, 10, 26, 6, 9, 47, 42),
      Date.UTC(2026, 10, 26, 6, 9, 47, 999),
      Date.UTC(2026, 10, 26, 6, 9, 48, 0),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 1),
      Date.UTC(2026, 10, 26, 6, 9, 47, 500), // an earlier second again (the clock stepped back)
      ...Array.from({ length: 200 }, (_, i) => 1_790_000_000_000 + i * 137),
    ];
    let current = 0;
    const time = isoTimeBySecond(() => current);
    for (const instant of instants) {
      current = instant;
      expect(time()).toBe(`,"time":"${new Date(instant).toISOString()}"`);
    }
  });
});

describe('what a line may hold', () => {
  const linesOf = (log: (logger: ReturnType<typeof createLogger>) => void) => {
    const lines: string[] = [];
    log(createLogger({ LOG_LEVEL: 'info' }, { write: (line) => lines.push(line) }));
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  it('keeps only id, method and path of a request, and the status of a reply', () => {
    const [line] = linesOf((logger) =>
      logger.info(
        {
          req: {
            id: 'r-1',
            method: 'POST',
            url: '/graphql?variables=%7B%22card%22%3A1%7D',
            headers: { authorization: 'Bearer tok-secret', cookie: 'sid=cookie-secret' },
          },
          res: { statusCode: 200, headers: { 'set-cookie': 'sid=set-secret' } },
        },
        'request completed',
      ),
    );
    expect(line?.req).toEqual({ id: 'r-1', method: 'POST', path: '/graphql' });
    expect(line?.res).toEqual({ statusCode: 200 });
    expect(JSON.stringify(line)).not.toMatch(/secret|variables/);
  });

  it('redacts credentials and variables logged under their own names', () => {
    const [line] = linesOf((logger) =>
      logger.info(
        {
          headers: { authorization: 'Bearer tok-secret', cookie: 'c-secret', accept: 'x' },
          token: 'tok-secret',
          hmacKey: 'hmac-secret',
          variables: { card: 'card-secret' },
        },
        'upstream',
      ),
    );
    expect(line).toMatchObject({
      headers: { authorization: '[redacted]', cookie: '[redacted]', accept: 'x' },
      token: '[redacted]',
      hmacKey: '[redacted]',
      variables: '[redacted]',
    });
    expect(JSON.stringify(line)).not.toContain('secret');
  });
});
