/**
 * Which operations become MCP tools, and how (docs/agents.md "Choose the tools"): a folder stops
 * the start-up on anything that cannot be a tool, naming the file; a manifest leaves such documents
 * out; the endpoint's own checks (trusted documents, limits) hold for tools too; the input schema
 * follows the variables' types through input objects, lists and enums.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';
import { callBounds } from '../../../src/graph/call-bounds.ts';
import { operationLimitsOf } from '../../../src/server/limits/operation-limits.ts';
import {
  operationsOfFolder,
  operationsOfManifest,
} from '../../../src/server/mcp/chosen-operations.ts';
import { toolsOf } from '../../../src/server/mcp/mcp-tools.ts';
import { createOperationPipeline } from '../../../src/server/operation-pipeline.ts';
import {
  documentHash,
  trustedDocumentsFrom,
  type TrustedDocuments,
} from '../../../src/server/persisted-operations/trusted-documents.ts';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGatewaySchema();
});

const pipelineOf = (trusted?: TrustedDocuments) =>
  createOperationPipeline(operationLimitsOf(loadConfig({})), trusted, {
    callBounds: callBounds(),
    maxWaitMs: 5_000,
  });
const checksOf = (trusted?: TrustedDocuments) => {
  const pipeline = pipelineOf(trusted);
  return {
    schema,
    refuseDocument: pipeline.refuseDocument,
    validationRules: pipeline.validationRules,
  };
};
const TERMS = {
  windowCalls: 600,
  windowSec: 1399,
  idempotencyTtlSec: 86_400,
  estimateTool: 'weft_estimate',
};
const toolsOfTexts = async (files: Record<string, string>) => {
  const folder = mkdtempSync(join(tmpdir(), 'weft-mcp-unit-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(folder, name, '..'), { recursive: true });
    writeFileSync(join(folder, name), text);
  }
  const operations = await operationsOfFolder(folder, checksOf());
  return toolsOf(operations, schema, pipelineOf().callPolicy!, TERMS);
};

const APPS = 'query Apps { apps { appId } }';

describe('a folder of operations', () => {
  it('gives one tool per named query and mutation, subfolders included, with its comment', async () => {
    const tools = await toolsOfTexts({
      'a.graphql': `# Lists the apps.\n# Two lines.\n${APPS}`,
      'deep/b.gql':
        'mutation Rename($id: ID!) { updateApp(input: { appId: $id, name: "x" }) { userErrors { code } } }',
      'notes.txt': 'query NotATool { apps { appId } }',
    });
    expect(tools.map((tool) => tool.definition.name)).toEqual(['Apps', 'Rename']);
    expect(tools[0]!.definition.description).toMatch(/^Lists the apps\. Two lines\.\n\nCost: /);
    expect(tools[1]!.definition.description).toMatch(/^Runs the GraphQL mutation Rename\./);
  });

  it.each([
    [
      'a subscription',
      'subscription Job { appJob(jobId: "j") { status } }',
      /Job is a subscription/,
    ],
    ['an anonymous operation', '{ apps { appId } }', /an anonymous operation/],
    ['an invalid document', 'query Bad { noSuchField }', /invalid against the graph/],
    ['a document that does not parse', 'query {', /does not parse/],
    [
      'an upload',
      'mutation Up($input: UploadAppSourceInput!) { uploadAppSource(input: $input) { jobId } }',
      /\$input\.zipFile is an Upload/,
    ],
    [
      "the estimate tool's name",
      'query weft_estimate { apps { appId } }',
      /weft_estimate is the name of Weft's own estimate tool/,
    ],
    [
      'a variable named as the key argument',
      'mutation Rename($idempotencyKey: String!) { updateApp(input: { appId: "a", name: $idempotencyKey }) { userErrors { code } } }',
      /\$idempotencyKey is the tool's own argument/,
    ],
    [
      'a document over a limit',
      `query Many { ${Array.from({ length: 21 }, (_, i) => `a${i}: apps { appId }`).join(' ')} }`,
      /refused \(.*root fields/i,
    ],
  ])('stops the start-up on %s, naming the file', async (_case, text, message) => {
    await expect(toolsOfTexts({ 'tool.graphql': text })).rejects.toThrow(message);
    await expect(toolsOfTexts({ 'tool.graphql': text })).rejects.toThrow(/tool\.graphql/);
  });

  it('stops the start-up on a name used twice, naming both files', async () => {
    await expect(toolsOfTexts({ 'a.graphql': APPS, 'b.graphql': APPS })).rejects.toThrow(
      /b\.graphql: Apps is also in .*a\.graphql/,
    );
  });

  it('stops the start-up on an empty folder', async () => {
    await expect(toolsOfTexts({ 'readme.md': '' })).rejects.toThrow(/no named query or mutation/);
  });

  it('holds its documents to the trusted manifest when there is one', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'weft-mcp-unit-'));
    writeFileSync(join(folder, 'apps.graphql'), APPS);
    const other = 'query Other { apps { name } }';
    const trusted = trustedDocumentsFrom({ [documentHash(other)]: other }, 'test');
    await expect(operationsOfFolder(folder, checksOf(trusted))).rejects.toThrow(
      /apps\.graphql: refused \(This server only runs trusted documents/,
    );
    const allowed = trustedDocumentsFrom({ [documentHash(APPS)]: APPS }, 'test');
    expect((await operationsOfFolder(folder, checksOf(allowed))).map((op) => op.name)).toEqual([
      'Apps',
    ]);
  });
});

describe('a trusted-documents manifest', () => {
  it("gives its named queries and mutations, leaving out what cannot be a tool and a name's versions", () => {
    const documents = [
      APPS,
      'query Twice { apps { appId } }',
      'query Twice { apps { name } }',
      '{ apps { appId } }',
      'subscription Job { appJob(jobId: "j") { status } }',
      'mutation Deploy($appId: ID!) { deployApp(input: { appId: $appId }) { userErrors { code } } }',
    ];
    const trusted = trustedDocumentsFrom(
      Object.fromEntries(documents.map((text) => [documentHash(text), text])),
      'test',
    );
    const { operations, leftOut } = operationsOfManifest(trusted, checksOf(trusted));
    expect(operations.map((operation) => operation.name).sort()).toEqual(['Apps', 'Deploy']);
    expect(leftOut).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Twice: defined by 2 documents/),
        expect.stringMatching(/an anonymous operation/),
        expect.stringMatching(/Job is a subscription/),
      ]),
    );
  });
});

describe('the input schema', () => {
  it('follows input objects, lists, enums and scalars, with the SDL descriptions', async () => {
    const [secrets, customer] = await toolsOfTexts({
      'a.graphql': `mutation Secrets($input: ChangeAppSecretsInput!) {
        changeAppSecrets(input: $input) { userErrors { code } } }`,
      'b.graphql': `mutation Customer($input: CreateStoreCustomerInput!) {
        createStoreCustomer(input: $input) { userErrors { code } } }`,
    });
    const { properties, required } = secrets!.definition.inputSchema as any;
    expect(required).toEqual(['input', 'idempotencyKey']);
    const input = properties.input;
    expect(input).toMatchObject({
      type: 'object',
      required: ['appId'],
      additionalProperties: false,
      description: 'The app, the scope and the secret operations (at least one).',
    });
    expect(input.properties.variant).toMatchObject({
      type: 'string',
      enum: ['PREVIEW', 'PUBLISH'],
      description: 'The variant whose secrets change; omitted = the shared secrets.',
    });
    expect(input.properties.deletions).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(input.properties.additions.items).toMatchObject({
      type: 'object',
      required: ['name', 'value'],
    });
    expect(properties.idempotencyKey).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 255,
    });
    // JSON takes any value: no type.
    const record = (customer!.definition.inputSchema as any).properties.input.properties.customer;
    expect(record).not.toHaveProperty('type');
    expect(record.description).toBe('The customer record to create (a JSON object).');
  });
});

describe('the output schema', () => {
  it('follows aliases and fragments: a narrower fragment adds optional fields, a directive makes one optional', async () => {
    const [tool] = await toolsOfTexts({
      'node.graphql': `query Node($id: ID!, $withName: Boolean = false) {
        thing: node(id: $id) { id ... on App { appId name @include(if: $withName) } ...Cert }
        viewer { __typename }
      }
      fragment Cert on Certificate { commonName }`,
    });
    const output = tool!.definition.outputSchema as any;
    expect(Object.keys(output.properties)).toEqual(['thing', 'viewer', 'errors', 'budget']);
    const thing = output.properties.thing;
    // A Node or null; only `id` is on every Node.
    expect(thing.type).toEqual(['object', 'null']);
    expect(thing.required).toEqual(['id']);
    expect(Object.keys(thing.properties).sort()).toEqual(['appId', 'commonName', 'id', 'name']);
    expect(thing.properties.commonName.type).toEqual(['string', 'null']);
    expect(output.properties.viewer).toMatchObject({
      type: 'object',
      required: ['__typename'],
      properties: { __typename: { type: 'string' } },
    });
  });

  it('is left out when a root key would hide what an error result holds', async () => {
    const [tool] = await toolsOfTexts({ 'a.graphql': 'query A { errors: apps { appId } }' });
    expect(tool!.definition.outputSchema).toBeUndefined();
  });
});
