/** The log's last lines before an exit: written, in order, before the process ends. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, linesWritten } from '../../../src/server/logger.ts';

describe('linesWritten', () => {
  it('resolves once every line logged so far is on disk, in order (an asynchronous destination)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'weft-log-')), 'out.log');
    const destination = pino.destination({ dest: file, sync: false, mkdir: true });
    await new Promise((resolve) => destination.once('ready', resolve));
    const logger = createLogger({ LOG_LEVEL: 'info' }, destination);
    for (let i = 0; i < 500; i += 1) logger.info({ i }, 'line');
    logger.info('stopped');
    // Written off the event loop: not all there yet.
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean).length).toBeLessThan(501);

    await linesWritten(logger, 10_000);
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
