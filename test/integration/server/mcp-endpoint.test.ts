/**
 * The MCP endpoint (docs/agents.md) through the SDK's own client over HTTP, against a real gateway
 * and simulator, with the operations shipped in examples/mcp as its tools: listing (input schemas,
 * write hints, the bound of each), a query tool and a mutation tool answering structured content
 * with their ledger, a write run once per idempotencyKey, arguments refused by name, the token as
 * the GraphQL endpoint demands it, and the log line and metrics naming the tool.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { documentHash } from '../../../src/server/persisted-operations/trusted-documents.ts';
import { boundOf } from '../../support/call-bound.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { connectMcp, type McpSession } from '../../support/mcp-client.ts';

const EXAMPLES = 'examples/mcp';
const example = (file: string) => readFileSync(`${EXAMPLES}/${file}`, 'utf8');
const TOOLS = [
  'ListApps',
  'CertificatesExpiringSoon',
  'CertificateDomainChecks',
  'DeployApp',
  'FollowDeployment',
  'StoreRecentTransactions',
  'weft_estimate',
];

let stack: Stack;
let agent: McpSession;
beforeAll(async () => {
  stack = await startStack({ env: { MCP: 'on', MCP_OPERATIONS_DIR: EXAMPLES } });
  agent = await connectMcp(stack.url);
});
afterAll(async () => {
  await agent?.close();
  await stack?.close();
});
beforeEach(() => stack.resetCounts());

describe('tools/list', () => {
  it('lists every chosen operation with its input schema, its write hints and its bound', async () => {
    const { tools } = await agent.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    const byName = new Map(tools.map((tool) => [tool.name, tool]));

    // The bound is the one the gateway computes for the operation with its default arguments.
    const apps = byName.get('ListApps')!;
    const appsBound = await boundOf(example('apps.graphql'), {}, 'ListApps');
    expect(appsBound.calls).toBe(21);
    expect(apps.description).toContain('at most 21 upstream calls with the default arguments');
    expect(apps.description).toMatch(/^The caller's Node\.js apps with their status/);
    expect(apps._meta?.['weft/upstream']).toEqual({
      bound: 21,
      byField: appsBound.byField,
      unpaged: ['Query.apps'],
    });
    expect(apps.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
    // The data's shape from the selections (the SDK's client validates every result against it),
    // beside what an error result holds.
    expect(apps.outputSchema).toMatchObject({
      type: 'object',
      properties: {
        apps: {
          type: 'array',
          items: {
            type: 'object',
            required: ['appId', 'name', 'status', 'urls', 'runtimeStatus'],
            properties: {
              status: { type: 'string', enum: ['ACTIVE', 'UNKNOWN'] },
              urls: { type: ['object', 'null'], required: ['preview', 'publish'] },
            },
          },
        },
        errors: { type: 'array' },
        budget: { type: 'object' },
      },
    });
    expect(apps.outputSchema).not.toHaveProperty('required');

    const checks = byName.get('CertificateDomainChecks')!;
    const checksBound = await boundOf(
      example('certificates.graphql'),
      {},
      'CertificateDomainChecks',
    );
    expect(checks.description).toContain(`at most ${checksBound.calls} upstream calls`);
    // Variables as JSON Schema: non-null → required, the SDL's descriptions, `@range`, defaults.
    expect(checks.inputSchema).toEqual({
      type: 'object',
      properties: {
        customerId: {
          type: 'string',
          description: "The customer's id in the upstream's certificate API; must not be empty.",
        },
        first: {
          type: 'integer',
          description: 'How many certificates to return: 1–100; omitted or null = 20.',
          minimum: 1,
          maximum: 100,
          default: 20,
        },
      },
      required: ['customerId'],
      additionalProperties: false,
    });

    const deploy = byName.get('DeployApp')!;
    expect(deploy.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(deploy.inputSchema.required).toEqual(['appId', 'idempotencyKey']);
    expect(deploy.description).toContain('pass a new idempotencyKey');
    // Listing costs nothing upstream.
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('tools/call', () => {
  it('answers a query tool with its data as structured content, and its ledger', async () => {
    const result = await agent.call('ListApps');
    expect(result.isError).toBeFalsy();
    const graphql = await stack.gql(example('apps.graphql'));
    expect(result.structuredContent).toEqual(graphql.body.data);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(graphql.body.data);
    const upstream = result._meta?.['weft/upstream'] as Record<string, any>;
    expect(upstream.tool).toBe('ListApps');
    // The ledger counts what the upstream saw: the list and one status per app (3 apps).
    expect(upstream.totals.upstream).toBe(4);
    expect(upstream.estimate).toEqual({ calls: 21, refinedCalls: 4 });
    expect(upstream.calls.map((call: { route: string }) => call.route)).toContain(
      '/v1/hosting/nodejs/apps/{appId}/status',
    );
  });

  it('runs a mutation tool once per idempotencyKey, and follows what it started', async () => {
    const key = randomUUID();
    const first = await agent.call('DeployApp', { appId: 'app-0002', idempotencyKey: key });
    expect(first.isError).toBeFalsy();
    const { deployment, userErrors } = (first.structuredContent as any).deployApp;
    expect(userErrors).toEqual([]);
    expect(deployment.status).toBe('PENDING');
    const deploys = () => stack.upstreamCalls('POST /v1/hosting/nodejs/apps/{appId}/deployments');
    expect(await deploys()).toBe(1);

    // An agent's retry with the same key: the first answer again, no second write.
    const retry = await agent.call('DeployApp', { appId: 'app-0002', idempotencyKey: key });
    expect((retry.structuredContent as any).deployApp.deployment.deploymentId).toBe(
      deployment.deploymentId,
    );
    expect(retry._meta?.['weft/idempotentReplayed']).toBe(true);
    expect(await deploys()).toBe(1);
    // The same key for another change: refused, nothing written.
    const reused = await agent.call('DeployApp', { appId: 'app-0003', idempotencyKey: key });
    expect(reused.isError).toBe(true);
    expect((reused.structuredContent as any).errors[0].extensions.code).toBe('CONFLICT');
    expect(await deploys()).toBe(1);

    const followed = await agent.call('FollowDeployment', { appId: 'app-0002' });
    const listed = (followed.structuredContent as any).app.deployments.deployments;
    expect(listed.map((entry: { deploymentId: string }) => entry.deploymentId)).toContain(
      deployment.deploymentId,
    );
  });

  it('refuses arguments it does not take, and a write without its key, naming the argument', async () => {
    const unknown = await agent.call('FollowDeployment', { appId: 'app-0001', lmit: 2 });
    expect(unknown.isError).toBe(true);
    expect((unknown.structuredContent as any).errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'lmit',
    });
    const keyless = await agent.call('DeployApp', { appId: 'app-0001' });
    expect((keyless.structuredContent as any).errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'idempotencyKey',
    });
    // A value that does not fit its variable: the pipeline's own error, naming the variable.
    const badValue = await agent.call('CertificateDomainChecks', {
      customerId: 'demo-customer',
      first: 500,
    });
    expect(badValue.isError).toBe(true);
    expect((badValue.structuredContent as any).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect((badValue.content[0] as { text: string }).text).toContain('first');
    expect(await stack.upstreamCalls()).toBe(0);
    // A tool that does not exist is a protocol error.
    await expect(agent.call('NoSuchTool')).rejects.toThrow(/Unknown tool: NoSuchTool/);
  });

  it('names the tool on the log line and in the metrics', async () => {
    await agent.call('CertificatesExpiringSoon', { first: 5 });
    const line = stack.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .findLast((entry) => entry['tool'] === 'CertificatesExpiringSoon');
    expect(line).toMatchObject({
      msg: 'graphql operation',
      operationName: 'CertificatesExpiringSoon',
      req: { method: 'POST', path: '/mcp' },
    });
    const metrics = (await stack.http('GET', '/metrics')).text;
    expect(metrics).toMatch(
      /weft_mcp_tool_calls_total\{tool="CertificatesExpiringSoon",outcome="success"\} 1\b/,
    );
    expect(metrics).toMatch(
      /weft_mcp_tool_upstream_calls_total\{tool="CertificatesExpiringSoon"\} 1\b/,
    );
  });
});

describe('the bearer token', () => {
  const initialize = (headers: Record<string, string>) =>
    stack.http('POST', '/mcp', {
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });

  it('is required as for GraphQL: 401 with the same typed error, before anything runs', async () => {
    const graphql = await stack.gql('{ apps { appId } }', {}, { token: null });
    const expected = graphql.body.errors[0];
    const missingOrBad: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Basic abc' },
    ];
    for (const headers of missingOrBad) {
      const refused = await initialize(headers);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer');
      expect(refused.body.error.message).toBe(expected.message);
      expect(refused.body.error.data.code).toBe('UNAUTHENTICATED');
      expect(refused.body.error.data.requestId).toBe(refused.headers['x-request-id']);
    }
    // The SDK's client reads it as what it is: an HTTP 401 with Weft's code.
    await expect(connectMcp(stack.url, null)).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('"code":"UNAUTHENTICATED"'),
    });
    expect((await initialize({ authorization: 'Bearer demo-token' })).status).toBe(200);
  });

  it("lets an allowed origin's page connect: the preflight allows the protocol's headers", async () => {
    const preflight = await stack.http('OPTIONS', '/mcp', {
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(preflight.headers['access-control-allow-headers']).toContain('mcp-protocol-version');
  });

  it('opens no stream: GET answers 405', async () => {
    const get = await stack.http('GET', '/mcp', {
      headers: { accept: 'text/event-stream', authorization: 'Bearer demo-token' },
    });
    expect(get.status).toBe(405);
  });
});

describe('tools from the trusted-documents manifest', () => {
  it('serves its named operations when no folder is set, and runs them', async () => {
    const documents = [example('apps.graphql'), example('transactions.graphql')];
    const manifest = join(mkdtempSync(join(tmpdir(), 'weft-mcp-manifest-')), 'manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify(Object.fromEntries(documents.map((text) => [documentHash(text), text]))),
    );
    const trusted = await startStack({ env: { MCP: 'on', TRUSTED_DOCUMENTS_PATH: manifest } });
    const session = await connectMcp(trusted.url);
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'ListApps',
        'StoreRecentTransactions',
        'weft_estimate',
      ]);
      const apps = await session.call('ListApps');
      expect((apps.structuredContent as any).apps).toHaveLength(3);
    } finally {
      await session.close();
      await trusted.close();
    }
  });
});
