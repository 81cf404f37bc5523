/**
 * Entry point: config → upstream (a URL, or the embedded simulator on purpose) → gateway → signals.
 *
 * Weft owns SIGTERM/SIGINT (Apollo's own handler is off, see create-gateway.ts): the gateway drains
 * within SHUTDOWN_TIMEOUT_MS, then the pools, Redis and tracing close, "stopped" is logged and the
 * process exits 0. close-with-grace is the watchdog: a close that hangs past the bound plus
 * {@link RESOURCE_CLOSE_MARGIN_MS} exits 1, and so does a second signal (shutdown-signals.ts: not
 * the copy npm forwards under `npm start`).
 */
import type { Options as CloseWithGraceOptions } from 'close-with-grace';
import { enableCompileCache, flushCompileCache } from 'node:module';
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
const { ConfigError, loadConfig, nodeOptionFlags, retiredVariablesIn, startedByNpm } =
  await import('./config.ts');
const { createLogger, linesWritten } = await import('./server/logger.ts');
const { onShutdownSignals } = await import('./server/shutdown/shutdown-signals.ts');
const { diagnosticSignals } = await import('./server/shutdown/diagnostic-signals.ts');

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
for (const retired of retiredVariablesIn()) logger.warn(retired);
if (embedded) {
  logger.warn({ upstream: embedded.url }, 'serving the embedded upstream simulator (fake data)');
  // UPSTREAM=embedded said so on purpose (config.ts refuses the guess): one process, not replicas.
  if (config.REDIS_URL !== undefined || config.REDIS_CLUSTER_NODES !== undefined) {
    logger.warn(
      "the embedded simulator is this process's own: other replicas on this Redis share its budgets " +
        'but not its data; point every replica at one UPSTREAM_URL (docs/replicas.md)',
    );
  }
}

/** The events close-with-grace may be told to leave alone. */
type ClosedOnEvents = NonNullable<CloseWithGraceOptions['skip']>;

/** The signal that started the drain (close-with-grace sees a manual close). */
let shutdownSignal: string | undefined;
// close-with-grace handles every other signal and an uncaught error; SIGTERM and SIGINT are
// counted by shutdown-signals.ts (under `npm start` a group's signal arrives twice), and a signal
// Node answers with a heap snapshot or a report is a diagnosis, not a stop.
const shutdown = closeWithGrace(
  {
    delay: config.SHUTDOWN_TIMEOUT_MS + RESOURCE_CLOSE_MARGIN_MS,
    logger: false,
    // A signal close-with-grace does not listen to is skipped to no effect.
    skip: [
      'SIGTERM',
      'SIGINT',
      ...diagnosticSignals([...nodeOptionFlags(), ...process.execArgv], process.report),
    ] as ClosedOnEvents,
    onTimeout: (delayMs) => logger.error({ delayMs }, 'shutdown did not finish in time; exiting'),
    onSecondSignal: (signal) => logger.error({ signal }, 'second signal; exiting now'),
  },
  async ({ signal, err, manual }) => {
    if (err) logger.fatal({ err }, 'unexpected error; shutting down');
    logger.info(
      { signal: manual ? shutdownSignal : signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS },
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
onShutdownSignals(
  {
    onFirst: (signal) => {
      shutdownSignal = signal;
      void shutdown.close();
    },
    onForce: (signal) => {
      logger.error({ signal }, 'second signal; exiting now');
      process.exit(1);
    },
  },
  startedByNpm() ? 1 : 0,
);

/**
 * The one line an operator needs when the port cannot be had (another Weft, or anything else, on
 * it; a port below 1024 without the right): which variable to change, not a stack.
 */
function listenRefusal(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${config.HOST}:${config.PORT}`;
  if (code === 'EADDRINUSE')
    return `PORT ${config.PORT} is already in use (${where}, EADDRINUSE): stop what listens there or set PORT to a free port`;
  if (code === 'EACCES')
    return `PORT ${config.PORT} may not be opened by this user (${where}, EACCES): set PORT to 1024 or above`;
  if (code === 'EADDRNOTAVAIL')
    return `HOST ${config.HOST} is not an address of this machine (${where}, EADDRNOTAVAIL): set HOST`;
  return undefined;
}

const url = await gateway.listen().catch(async (error: unknown) => {
  const refusal = listenRefusal(error);
  if (refusal === undefined) throw error;
  console.error(refusal);
  // Nothing was served: close what started (Redis, the embedded simulator) without the drain's wait.
  await Promise.allSettled([gateway.close(), embedded?.close()]);
  process.exit(1);
});
// Node writes its compile cache only when the process exits cleanly: a replica that is killed or
// crashes would never write it, and every start of it would strip and compile again. So once it
// serves, what start-up loaded is written for the next start (scripts/warm-compile-cache.ts); a
// start that read it all from the cache has nothing to write.
flushCompileCache();
logger.info({ url: `${url}/graphql` }, 'Weft is serving the graph');
