/**
 * Starts Weft once and stops it as soon as it serves, so that Node's compile cache holds every
 * module a start-up loads: the next start reads their stripped sources and V8's code instead of
 * stripping and compiling them again (docs/deploy.md "Start-up"). `npm ci` runs it (the project's
 * `prepare`), so the first `npm start` of a clone is as quick as a restart; the image's build runs
 * it, so is every container's first start.
 *
 * The process gets an environment of its own, not the caller's: a shell's REDIS_URL, OTLP endpoint
 * or PORT would make a start that needs them, or fails without them. Any free port, on loopback;
 * the embedded upstream where the simulator is present, otherwise (the image) an address nothing
 * listens on: start-up makes no upstream call. `NODE_ENV=production`, so that the modules loaded are
 * production's.
 *
 * The command is `npm start`'s, read from package.json (the image's CMD is the same, as
 * test/unit/runtime.test.ts holds): some of Node's flags (`--expose-gc`, `--initial-old-space-size`)
 * are part of the cache's key, so a cache made with other flags would be one the start never reads.
 * So is the user's id: the image runs this step as the user its CMD runs as.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A start that has not served by then is a broken start, not a slow one. */
const START_TIMEOUT_MS = 60_000;
const SERVING = 'Weft is serving the graph';

/** `npm start`'s variables (MALLOC_ARENA_MAX, NODE_COMPILE_CACHE) and the arguments after `node`. */
const startScript = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start.split(' ');
const startVariables = Object.fromEntries(
  startScript.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('=', 2)),
) as Record<string, string>;
const nodeArguments = startScript.slice(startScript.indexOf('node') + 1);
const cacheDir = process.env.NODE_COMPILE_CACHE ?? startVariables.NODE_COMPILE_CACHE;

const upstream = existsSync(new URL('../src/simulator/simulator.ts', import.meta.url))
  ? { UPSTREAM: 'embedded' }
  : { UPSTREAM_URL: 'http://127.0.0.1:9' };

const child = spawn(process.execPath, nodeArguments, {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...startVariables,
    NODE_ENV: 'production',
    ...(cacheDir === undefined ? {} : { NODE_COMPILE_CACHE: cacheDir }),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...upstream,
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});

const output: string[] = [];
child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
const fail = (reason: string): never => {
  child.kill('SIGKILL');
  process.stderr.write(`warm-compile-cache: ${reason}\n${output.join('\n')}\n`);
  process.exit(1);
};
const timer = setTimeout(
  () => fail(`Weft did not serve within ${START_TIMEOUT_MS} ms`),
  START_TIMEOUT_MS,
);

let serving = false;
createInterface({ input: child.stdout }).on('line', (line) => {
  output.push(line);
  if (serving || !line.includes(SERVING)) return;
  serving = true;
  clearTimeout(timer);
  // Serving means the cache is on disk (main.ts writes it then); SIGTERM checks the stop too.
  child.kill('SIGTERM');
});

child.once('exit', (code, signal) => {
  clearTimeout(timer);
  if (!serving) fail(`Weft exited before it served (${signal ?? `exit code ${code}`})`);
  if (code !== 0)
    fail(`Weft did not stop cleanly after it served (${signal ?? `exit code ${code}`})`);
  console.log(`compile cache warmed: ${cacheDir ?? 'node_modules/.cache/node-compile-cache'}`);
});
