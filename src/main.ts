/**
 * Entry point: config → (embedded simulator when UPSTREAM_URL is unset) → gateway → graceful shutdown.
 */
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './server/logger.js';
import { createGateway } from './server/create-gateway.js';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}

const logger = createLogger(config);

/** Starts the embedded upstream simulator on a free local port (only without UPSTREAM_URL). */
async function startEmbeddedUpstream() {
  const { createSimulator } = await import('./simulator/simulator.js');
  const simulator = await createSimulator({
    latencyMs: config.SIM_LATENCY_MS,
    rateLimit: config.SIM_RATE_LIMIT,
    rateWindowSec: config.SIM_RATE_WINDOW_SEC,
    faultRate: config.SIM_FAULT_RATE,
  });
  const url = await simulator.listen(0);
  logger.warn({ upstream: url }, 'UPSTREAM_URL is unset: serving the embedded upstream simulator');
  return { url, close: () => simulator.close() };
}

const embedded = config.UPSTREAM_URL ? undefined : await startEmbeddedUpstream();
const gateway = await createGateway(config, logger, config.UPSTREAM_URL ?? embedded!.url);
const url = await gateway.listen();
logger.info({ url: `${url}/graphql` }, 'Weft is serving the graph');

let stopping = false;
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info(
    { signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS },
    'shutting down: finishing in-flight requests',
  );
  const force = setTimeout(() => {
    logger.error('in-flight requests did not finish in time; exiting');
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  force.unref();
  try {
    await gateway.close();
    await embedded?.close();
    logger.info('stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
}

process.once('SIGTERM', (signal) => void shutdown(signal));
process.once('SIGINT', (signal) => void shutdown(signal));
