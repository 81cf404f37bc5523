/**
 * Entry point: config → upstream (a URL, or the embedded simulator on purpose) → gateway → signals.
 *
 * Weft owns SIGTERM/SIGINT (Apollo's own handler is off, see create-gateway.ts): the gateway drains
 * within SHUTDOWN_TIMEOUT_MS, then the pools, Redis and tracing close, "stopped" is logged and the
 * process exits 0. close-with-grace is the watchdog: a second signal, or a close that hangs past the
 * bound plus {@link RESOURCE_CLOSE_MARGIN_MS}, exits 1.
 */
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.ts';

/*
 * Node's compile cache — the type-stripped sources and V8's code — for every module loaded after
 * this line, so a restart does not strip and compile some 300 modules again, on every
 * start-up. Hence the dynamic imports below: a static one would load before this runs. It lives
 * beside the dependencies, owned by the user that runs Weft; entries are keyed by Node's version
 * and each file's content, and where the directory cannot be written Node simply goes without.
 * `npm start` and the image also set NODE_COMPILE_CACHE to the same directory, which turns it on
 * before this file loads: then not even this file is stripped again and Node's type stripper is
 * never loaded (less work again at start-up); this call covers `node src/main.ts` run by hand.
 */
enableCompileCache(
  fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url)),
);
const { default: closeWithGrace } = await import('close-with-grace');
const { ConfigError, loadConfig } = await import('./config.ts');
const { createLogger, linesWritten } = await import('./server/logger.ts');

/** Time left after the drain for closing the upstream pool, Redis and tracing. */
const RESOURCE_CLOSE_MARGIN_MS = 5_000;

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}

const logger = createLogger(config);
// After the configuration is accepted: a refused one exits before the gateway's libraries load.
const { createGateway } = await import('./server/create-gateway.ts');

/** Starts the embedded upstream simulator on a free local port (UPSTREAM=embedded only). */
async function startEmbeddedUpstream() {
  // A dynamic import: the simulator is not part of the production image.
  const { createSimulator } = await import('./simulator/simulator.ts').catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error('UPSTREAM=embedded: the simulator is not part of this build', {
      cause: error,
    });
  });
  const { onDemandSchemaCompilers } = await import('./server/schema-compilers.ts');
  const simulator = await createSimulator({
    schemaController: { compilersFactory: onDemandSchemaCompilers },
    latencyMs: config.SIM_LATENCY_MS,
    rateLimit: config.SIM_RATE_LIMIT,
    rateWindowSec: config.SIM_RATE_WINDOW_SEC,
    faultRate: config.SIM_FAULT_RATE,
  });
  const url = await simulator.listen(0);
  return { url, close: () => simulator.close() };
}

const embedded = config.UPSTREAM === 'embedded' ? await startEmbeddedUpstream() : undefined;
// A configuration can also be refused while the gateway is assembled (a TTL override naming a cache
// kind no upstream route declares): the same one line and exit 1, before anything is logged.
const gateway = await createGateway(config, logger, embedded?.url ?? config.UPSTREAM_URL!).catch(
  (error: unknown) => {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  },
);
if (embedded) {
  logger.warn({ upstream: embedded.url }, 'serving the embedded upstream simulator (fake data)');
}

closeWithGrace(
  {
    delay: config.SHUTDOWN_TIMEOUT_MS + RESOURCE_CLOSE_MARGIN_MS,
    logger: false,
    onTimeout: (delayMs) => logger.error({ delayMs }, 'shutdown did not finish in time; exiting'),
    onSecondSignal: (signal) => logger.error({ signal }, 'second signal; exiting now'),
  },
  async ({ signal, err }) => {
    if (err) logger.fatal({ err }, 'unexpected error; shutting down');
    logger.info(
      { signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS },
      'shutting down: finishing in-flight requests',
    );
    await gateway.close();
    await embedded?.close();
    if (logger.isLevelEnabled('info')) {
      logger.info('stopped');
      await linesWritten(logger);
    }
  },
);

const url = await gateway.listen();
logger.info({ url: `${url}/graphql` }, 'Weft is serving the graph');
