/**
 * The gateway as production runs it (NODE_ENV=production, the budget raised out of the way), inside
 * the bench's process for Fastify's `inject`, logging to a file as stdout would be: what the
 * in-process benches (`hit-path.ts`, `miss-path.ts`) measure. Older checkouts compared with a bench
 * (copied into them with this file) log with one asynchronous write at a time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import * as logging from '../../src/server/logger.ts';
import { createGateway } from '../../src/server/create-gateway.ts';

export async function inProcessProductionGateway(upstreamUrl: string) {
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    UPSTREAM_URL: upstreamUrl,
    UPSTREAM_RATE_LIMIT: '1000000000',
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const logFile = join(mkdtempSync(join(tmpdir(), 'weft-bench-')), 'log.jsonl');
  const destination =
    'batchedStdout' in logging
      ? (logging.batchedStdout as (dest: string) => pino.DestinationStream)(logFile)
      : pino.destination({ dest: logFile, sync: false });
  const gateway = await createGateway(
    config,
    logging.createLogger(config, destination),
    upstreamUrl,
  );
  await gateway.app.ready();
  return gateway;
}
