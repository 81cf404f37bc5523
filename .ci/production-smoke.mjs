// Production smoke test: Weft started exactly as the Dockerfile starts it, without Docker.
//
// 1. The image's file set in a temporary folder: package.json, the lockfile, schema/, src/
//    without the simulator, and the explorer's bundle (dist/explorer, which the checkout's `npm ci`
//    built, as the image's explorer stage does); `npm ci --omit=dev --ignore-scripts` there, as the
//    image does (no dev tool, no simulator package). Then the runtime stage's own `RUN` steps
//    (the compile cache's warm-up, scripts/warm-compile-cache.ts), with the Dockerfile's ENV: here
//    there is no simulator, so the step starts Weft on an upstream address it never calls.
// 2. The Dockerfile's ENV and CMD, read from the Dockerfile itself as the e2e tests read them
//    (test/support/production-command.ts), with UPSTREAM_URL pointing at a standalone simulator
//    (run from the checkout) that answers after 1.5 s.
// 3. One query answered, with the idle memory release on (V8's collector exposed); then SIGTERM
//    while a slow query is in flight: the query gets its answer, the log says "stopped", the
//    process exits 0.
import { spawn, execFileSync } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { productionCommand } from '../test/support/production-command.ts';

const root = new URL('..', import.meta.url).pathname;
const fail = (message) => {
  console.error(`production smoke: FAILED: ${message}`);
  process.exit(1);
};
const step = (message) => console.log(`production smoke: ${message}`);

/** Spawns a process and resolves with the first stdout line that matches. */
function startAndWait(command, args, options, match) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = [];
  const ready = new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const found = match(line);
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${lines.join('\n')}`)));
  });
  return { child, lines, ready };
}

const image = await mkdtemp(join(tmpdir(), 'weft-image-'));
let simulator;
try {
  step(`assembling the image's files in ${image}`);
  const entries = [
    'package.json',
    'package-lock.json',
    'schema',
    'src',
    'dist/explorer',
    'scripts/warm-compile-cache.ts',
  ];
  for (const entry of entries) {
    await cp(join(root, entry), join(image, entry), { recursive: true });
  }
  await rm(join(image, 'src/simulator'), { recursive: true });
  execFileSync(
    'npm',
    ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd: image, stdio: 'inherit' },
  );
  const { env, args, buildSteps } = productionCommand();
  for (const [command, ...stepArgs] of buildSteps) {
    if (command !== 'node') fail(`the runtime stage runs ${command}, not node`);
    step(`build step \`node ${stepArgs.join(' ')}\``);
    execFileSync(process.execPath, stepArgs, {
      cwd: image,
      env: { PATH: process.env.PATH, ...env },
      stdio: 'inherit',
    });
  }
  const cached = await readdir(join(image, env.NODE_COMPILE_CACHE), { recursive: true });
  if (cached.length < 1_000)
    fail(`the compile cache holds ${cached.length} entries after the build`);
  step(`the compile cache holds ${cached.length} entries`);

  const sim = startAndWait(
    process.execPath,
    ['src/simulator/standalone.ts'],
    { cwd: root, env: { ...process.env, SIM_PORT: '0', SIM_LATENCY_MS: '1500' } },
    (line) => /listening on (http:\S+)/.exec(line)?.[1],
  );
  simulator = sim.child;
  const upstreamUrl = await sim.ready;

  step(`starting \`node ${args.join(' ')}\` with the Dockerfile's ENV on ${process.version}`);
  const weft = startAndWait(
    process.execPath,
    args,
    {
      cwd: image,
      env: {
        PATH: process.env.PATH,
        ...env,
        PORT: '0',
        HOST: '127.0.0.1',
        UPSTREAM_URL: upstreamUrl,
        // "incoming request" lines, which say when the slow query has arrived.
        LOG_LEVEL: 'debug',
      },
    },
    (line) => {
      const entry = JSON.parse(line);
      return entry.msg === 'Weft is serving the graph' ? entry.url : undefined;
    },
  );
  const graphqlUrl = await weft.ready;

  const query = (text) =>
    fetch(graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: JSON.stringify({ query: text }),
    }).then(async (res) => ({ status: res.status, body: await res.json() }));

  const first = await query('{ certificateCustomer(customerId: "demo-customer") { customerId } }');
  if (first.body.data?.certificateCustomer?.customerId !== 'demo-customer') {
    fail(`unexpected answer ${JSON.stringify(first)}`);
  }
  step('answered a query');
  // The explorer: its page names the bundle's module script, which the image serves.
  const page = await fetch(graphqlUrl, { headers: { accept: 'text/html' } }).then((res) =>
    res.text(),
  );
  const script = /<script type="module" src="([^"]+)"/.exec(page)?.[1];
  if (!script || (await fetch(new URL(script, graphqlUrl))).status !== 200) {
    fail(`the explorer's bundle is not served: ${page.slice(0, 300)}`);
  }
  step('served the explorer');
  // The image's command exposes V8's collector, so memory a burst grew goes back when idle.
  if (weft.lines.some((line) => JSON.parse(line).msg?.startsWith('idle memory release off'))) {
    fail('the idle memory release is off: the CMD lacks --expose-gc');
  }

  const slow = query(
    '{ certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId } }',
  );
  // SIGTERM once the slow query has arrived (its "incoming request" line), not after a guessed delay.
  const arrived = weft.lines.filter((line) => line.includes('"incoming request"')).length;
  while (weft.lines.filter((line) => line.includes('"incoming request"')).length === arrived) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const exited = new Promise((resolve) =>
    weft.child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  weft.child.kill('SIGTERM');
  const answer = await slow;
  if (answer.status !== 200 || answer.body.data?.certificatesByEntitlement?.length !== 1) {
    fail(`the in-flight request was not answered: ${JSON.stringify(answer)}`);
  }
  const { code, signal } = await exited;
  if (code !== 0) fail(`exit code ${code} (signal ${signal})`);
  if (!weft.lines.some((line) => JSON.parse(line).msg === 'stopped')) fail('no "stopped" log line');
  step('SIGTERM during a slow request: answered, "stopped" logged, exit 0');
} finally {
  simulator?.kill('SIGTERM');
  await rm(image, { recursive: true, force: true });
}
