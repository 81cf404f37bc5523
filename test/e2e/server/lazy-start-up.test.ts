/**
 * Start-up loads what the first ordinary request needs and nothing else (docs/deploy.md "Start-up")
 *: after the image's command starts and answers one query, the subscription transports
 * (graphql-ws with ws, graphql-sse), the upload reader (graphql-upload's processRequest with
 * busboy), Fastify's JSON-schema compilers (ajv, fast-json-stringify), Apollo's usage-reporting
 * protobuf, OpenTelemetry's SDK, the Redis client, undici's entry point and the explorer's file
 * sender (`@fastify/send`; `glob`, which `@fastify/static` loaded with it, never) are not loaded,
 * nor the MCP endpoint and its SDK (MCP off, the default: `/mcp` answers 404).
 * Then the first subscription over each transport, the first upload and the first explorer file
 * load their modules and work.
 *
 * `@graphql-tools/executor` is not on the list: the stitching that serves the subgraphs imports it
 * (through `@graphql-tools/delegate`), so every start-up loads it.
 *
 * What the process loaded comes from a module hook put in with NODE_OPTIONS=--import
 * (test/support/module-probe.ts), read on SIGWINCH.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.ts';
import { postMultipart, smallZip } from '../../support/graphql-multipart.ts';
import type { ModuleReport } from '../../support/module-probe.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { wsClient } from '../../support/subscription-clients.ts';

const PROBE = pathToFileURL(join(import.meta.dirname, '../../support/module-probe.ts')).href;

const CREATE = `mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } } }`;
const SUB_JOB = `subscription($jobId: ID!) { appJob(jobId: $jobId) { jobId status } }`;
const UPLOAD = `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) {
  jobId bytes userErrors { code message path } } }`;

/** Each library a first ordinary request does not need, by the package path its files load from. */
const ON_DEMAND = {
  'graphql-ws': '/node_modules/graphql-ws/',
  ws: '/node_modules/ws/',
  'graphql-sse': '/node_modules/graphql-sse/',
  'graphql-upload processRequest': '/node_modules/graphql-upload/processRequest.mjs',
  busboy: '/node_modules/busboy/',
  ajv: '/node_modules/ajv/',
  'fast-json-stringify compiler': '/node_modules/@fastify/fast-json-stringify-compiler/',
  'Apollo usage-reporting protobuf': '/node_modules/@apollo/usage-reporting-protobuf/',
  'OpenTelemetry SDK': '/node_modules/@opentelemetry/sdk-trace-base/',
  'Redis client': '/node_modules/@redis/client/',
  // Never, in fact: the transport loads undici's pool by itself (src/upstream/http/undici-pool.ts).
  "undici's entry point": '/node_modules/undici/index.js',
  "the explorer's file sender": '/node_modules/@fastify/send/',
  // Never: @fastify/static loaded it to list the bundle's folder (explorer-assets.ts).
  glob: '/node_modules/glob/',
  // Never with MCP off (the default): the endpoint and its SDK load only with MCP=on.
  'MCP SDK': '/node_modules/@modelcontextprotocol/sdk/',
  'MCP endpoint': '/src/server/mcp/',
} as const;
type Library = keyof typeof ON_DEMAND;

let sim: RunningSimulator;
let gateway: GatewayProcess;
let probeDir: string;
let reports = 0;

/** The libraries of {@link ON_DEMAND} the gateway process has loaded so far. */
async function loaded(): Promise<Library[]> {
  const out = join(probeDir, 'modules.json');
  reports += 1;
  gateway.child.kill('SIGWINCH');
  const read = (): ModuleReport | undefined =>
    existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as ModuleReport) : undefined;
  await expect.poll(() => read()?.sequence, { interval: 10, timeout: 10_000 }).toBe(reports);
  const { modules } = read()!;
  return (Object.keys(ON_DEMAND) as Library[]).filter((library) =>
    modules.some((url) => url.includes(ON_DEMAND[library])),
  );
}

beforeAll(async () => {
  sim = await startSimulator();
  probeDir = mkdtempSync(join(tmpdir(), 'weft-module-probe-'));
  gateway = await startGatewayProcess({
    UPSTREAM_URL: sim.url,
    NODE_OPTIONS: `--import=${PROBE}`,
    MODULE_PROBE_OUT: join(probeDir, 'modules.json'),
  });
});
afterAll(async () => {
  await gateway?.stop();
  await sim?.close();
  rmSync(probeDir, { recursive: true, force: true });
});

describe('start-up in production mode', () => {
  it('loads none of the on-demand libraries for a first ordinary query', async () => {
    const { status, body } = await gateway.gql(
      '{ certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId } }',
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    // MCP is off: no endpoint answers.
    const mcp = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(mcp.status).toBe(404);
    expect(await loaded()).toEqual([]);
  });

  it('loads graphql-ws and ws with the first WebSocket subscription, which works', async () => {
    const { body } = await gateway.gql(CREATE, { name: 'lazy-ws' });
    const jobId = body.data.createApp.job.jobId as string;
    const client = wsClient(gateway.url, { authorization: 'Bearer demo-token' });
    try {
      for await (const result of client.iterate({ query: SUB_JOB, variables: { jobId } })) {
        expect(result).toMatchObject({ data: { appJob: { jobId } } });
        break;
      }
    } finally {
      await client.dispose();
    }
    expect(await loaded()).toEqual(expect.arrayContaining(['graphql-ws', 'ws']));
  });

  it('loads graphql-sse with the first SSE subscription, which works', async () => {
    expect(await loaded()).not.toContain('graphql-sse');
    const { body } = await gateway.gql(CREATE, { name: 'lazy-sse' });
    const jobId = body.data.createApp.job.jobId as string;
    const client = createSseClient({
      url: `${gateway.url}/graphql`,
      singleConnection: false,
      retryAttempts: 0,
      headers: { authorization: 'Bearer demo-token' },
    });
    try {
      for await (const result of client.iterate({ query: SUB_JOB, variables: { jobId } })) {
        expect(result).toMatchObject({ data: { appJob: { jobId } } });
        break;
      }
    } finally {
      client.dispose();
    }
    expect(await loaded()).toContain('graphql-sse');
  });

  it('loads the upload reader with the first upload, which works', async () => {
    expect(await loaded()).not.toContain('graphql-upload processRequest');
    const { status, body } = await postMultipart({
      url: gateway.url,
      query: UPLOAD,
      variables: { input: { appId: 'app-0001', zipFile: null } },
      filePath: 'input.zipFile',
      file: smallZip(),
      token: 'demo-token',
    });
    expect(status).toBe(200);
    expect(body.data.uploadAppSource.userErrors).toEqual([]);
    expect(await loaded()).toEqual(
      expect.arrayContaining(['graphql-upload processRequest', 'busboy']),
    );
  });

  it('loads the file sender with the first explorer file, which is served, and never glob', async () => {
    expect(await loaded()).not.toContain("the explorer's file sender");
    const page = await fetch(`${gateway.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    const script = /<script type="module" src="(\/explorer\/[^"]+\.js)">/.exec(await page.text());
    expect(script).not.toBeNull();
    const file = await fetch(`${gateway.url}${script![1]}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/javascript/);
    expect(file.headers.get('cache-control')).toContain('immutable');
    expect((await file.text()).length).toBeGreaterThan(1_000);
    const now = await loaded();
    expect(now).toContain("the explorer's file sender");
    expect(now).not.toContain('glob');
  });
});
