/**
 * The hosting declarations (src/hosting/hosting.call-bounds.ts) held against execution: for
 * operations that select every hosting field that calls the upstream, the calls the simulator counts
 * with an empty cache never exceed the bound computed before the run (docs/budget.md § Hosting).
 * And the operations are tight enough to notice an undercount: each calling declaration, lowered
 * (its calls to 0, a per-app field to once per request, the apps list to one item), makes some
 * operation's bound fall below what it actually cost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { buildGatewaySchema } from '../../../../src/graph/build-schema.ts';
import { callBounds } from '../../../../src/graph/call-bounds.ts';
import { APPS_LIST_MAX, HOSTING_CALL_BOUNDS } from '../../../../src/hosting/hosting.call-bounds.ts';
import type { CallBoundDeclarations, FieldCallBound } from '../../../../src/kit/call-bounds.ts';
import { upstreamCallBound } from '../../../../src/server/demand-control/upstream-call-bound.ts';
import { boundOf } from '../../../support/call-bound.ts';
import { startStack, type Stack } from '../../../support/gateway-harness.ts';
import { postMultipart, smallZip } from '../../../support/graphql-multipart.ts';
import { setAppCount } from '../../../support/hosting-account.ts';

interface Case {
  readonly name: string;
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  /** A multipart upload of a small zip to `variables.input.zipFile`. */
  readonly upload?: boolean;
  /** Checks the answer ran as meant (a refused or failed field would cost less than it should). */
  readonly check: (data: any) => void;
}

const LOGS =
  'logs(target: PUBLISH, source: "app", since: "2h", lines: 5) { total logs { message } }';
const SUB_RESOURCES = `name runtimeStatus { appStatus } deployments(limit: 3) { totalCount }
  secrets { shared { name } } ${LOGS}`;

/** The bench's apps dashboard (test/bench/journey.ts). */
const DASHBOARD = `{ apps { appId name status urls { publish }
  runtimeStatus { __typename } deployments(limit: 3) { __typename } } }`;
const APPS_PER_APP_READS = `{ apps { appId variantsWithLifecycle { variant lifecycleState }
  secrets { shared { name } } ${LOGS} } }`;

/** On the seeded account (3 apps): reads first, then the writes (the last one deletes an app). */
const CASES: readonly Case[] = [
  {
    name: 'apps dashboard (bench screen)',
    query: DASHBOARD,
    check: (data) => expect(data.apps).toHaveLength(3),
  },
  {
    name: 'apps with lifecycle, secrets and logs',
    query: APPS_PER_APP_READS,
    check: (data) => expect(data.apps).toHaveLength(3),
  },
  {
    name: 'apps list',
    query: `{ apps { id appId name statusRaw createdAt variants { variant status } } }`,
    check: (data) => expect(data.apps).toHaveLength(3),
  },
  {
    name: 'app record only',
    query: `{ app(appId: "app-0001") { id appId name status statusRaw createdAt updatedAt
      urls { preview publish } variants { variant variantRaw status statusRaw } } }`,
    check: (data) => expect(data.app.name).toBe('storefront'),
  },
  {
    name: 'app details',
    query: `{ app(appId: "app-0001") { name status urls { preview publish }
      variantsWithLifecycle { variant status lifecycleState lifecycleStateRaw }
      runtimeStatus { appStatus appStatusRaw variants { variant status lifecycleState } }
      deployments(limit: 5) { totalCount hasMore deployments { deploymentId appId status gitHash createdAt errorMessage } }
      secrets { shared { name systemManaged } preview { name } publish { name updatedAt } }
      sourceUpload(jobId: "upl-0001") { appId jobId status statusRaw errorStage } } }`,
    check: (data) => expect(data.app.sourceUpload.jobId).toBe('upl-0001'),
  },
  {
    name: 'two apps by id, every sub-resource',
    query: `{ a: app(appId: "app-0001") { ${SUB_RESOURCES} }
      b: app(appId: "app-0002") { ${SUB_RESOURCES} } }`,
    check: (data) => expect([data.a.name, data.b.name]).toEqual(['storefront', 'marketing-site']),
  },
  {
    name: 'logs (lines:)',
    query: `{ app(appId: "app-0001") {
      most: logs(target: PUBLISH, source: "app", since: "2h", lines: 500) { total logs { timestamp source message level levelRaw } }
      fallback: logs(target: PREVIEW, source: "build", since: "7d") { total logs { message } }
      same: logs(target: PUBLISH, source: "app", since: "2h", lines: 500) { total } } }`,
    check: (data) => expect(data.app.most.logs).toHaveLength(500),
  },
  {
    name: 'secrets by scope',
    query: `{ app(appId: "app-0001") {
      all: secrets { shared { name } preview { name } publish { name } }
      preview: secrets(variant: PREVIEW) { shared { name } preview { name } publish { name } }
      again: secrets(variant: PREVIEW) { preview { createdAt } } } }`,
    check: (data) => expect(data.app.preview.publish).toBeNull(),
  },
  {
    name: 'deployments with limits',
    query: `{ app(appId: "app-0001") {
      one: deployments(limit: 1) { totalCount deployments { deploymentId } }
      most: deployments(limit: 50) { hasMore deployments { deploymentId status } }
      fallback: deployments { deployments { deploymentId } }
      again: deployments(limit: 1) { hasMore } } }`,
    check: (data) => expect(data.app.one.deployments).toHaveLength(1),
  },
  {
    name: 'appJob with its app',
    query: `{ appJob(jobId: "job-0001") { jobId status statusRaw
      app { appId name status runtimeStatus { appStatus } sourceUpload(jobId: "upl-0001") { status } } } }`,
    check: (data) => expect(data.appJob.app.appId).toBe('app-0001'),
  },
  {
    name: 'createApp',
    query: `mutation { createApp(input: { name: "bounds-app" }) {
      job { jobId status app { appId name } } userErrors { code } } }`,
    check: (data) => expect(data.createApp.userErrors).toEqual([]),
  },
  {
    name: 'updateApp with the changed app',
    query: `mutation { updateApp(input: { appId: "app-0002", name: "marketing-site-2" }) {
      app { appId name updatedAt deployments(limit: 1) { totalCount } } userErrors { code } } }`,
    check: (data) => expect(data.updateApp.app.name).toBe('marketing-site-2'),
  },
  {
    name: 'changeAppSecrets',
    query: `mutation { changeAppSecrets(input: { appId: "app-0001", variant: PREVIEW,
      additions: [{ name: "BOUNDS_TEST", value: "x" }] }) {
      secrets { shared { name } preview { name } } userErrors { code } } }`,
    check: (data) => expect(data.changeAppSecrets.userErrors).toEqual([]),
  },
  {
    name: 'uploadAppSource',
    query: `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) {
      jobId bytes userErrors { code } } }`,
    variables: { input: { appId: 'app-0002', zipFile: null } },
    upload: true,
    check: (data) => expect(data.uploadAppSource.jobId).toEqual(expect.any(String)),
  },
  {
    name: 'deployApp',
    query: `mutation { deployApp(input: { appId: "app-0001" }) {
      deployment { deploymentId status gitHash } userErrors { code } } }`,
    check: (data) => expect(data.deployApp.userErrors).toEqual([]),
  },
  {
    name: 'deleteApp',
    query: `mutation { deleteApp(input: { appId: "app-0003" }) { deletedAppId userErrors { code } } }`,
    check: (data) => expect(data.deleteApp.deletedAppId).toBe('app-0003'),
  },
];

/**
 * On an account holding exactly APPS_LIST_MAX apps: the list is as long as the bound assumes, so the
 * per-app declarations are held tight (an undercount of one per app shows).
 */
const FULL_CASES: readonly Case[] = [
  {
    name: `apps dashboard, ${APPS_LIST_MAX} apps`,
    query: DASHBOARD,
    check: (data) => expect(data.apps).toHaveLength(APPS_LIST_MAX),
  },
  {
    name: `apps with lifecycle, secrets, logs, ${APPS_LIST_MAX} apps`,
    query: APPS_PER_APP_READS,
    check: (data) => expect(data.apps).toHaveLength(APPS_LIST_MAX),
  },
];

/** The hosting fields that call the upstream: each must be selected by some case. */
const CALLING = Object.entries(HOSTING_CALL_BOUNDS)
  .filter(([, bound]) => bound.calls !== 0)
  .map(([field]) => field);

interface Measured {
  readonly case: Case;
  readonly bound: number;
  readonly actual: number;
  readonly fields: readonly string[];
}

/** An empty cache for every operation: no upstream cache, no response cache. The per-operation
 * maximum is lifted: the subject is the bound against the calls, not the policy that applies it. */
const startColdStack = () =>
  startStack({
    env: { UPSTREAM_CACHE: 'off', RESPONSE_CACHE: 'false', LIMIT_MAX_UPSTREAM_CALLS: '100000' },
    sim: { ipLimits: false },
  });

let seeded: Stack | undefined;
const measured: Measured[] = [];

beforeAll(async () => {
  seeded = await startColdStack();
}, 30_000);
afterAll(() => seeded?.close());

async function run(stack: Stack, c: Case): Promise<any> {
  if (c.upload) {
    const { body } = await postMultipart({
      url: stack.url,
      query: c.query,
      variables: c.variables ?? {},
      filePath: 'input.zipFile',
      file: smallZip('bounds'),
    });
    return body;
  }
  return (await stack.gql(c.query, c.variables)).body;
}

/** Runs each case on `stack`, cold, and holds its calls to its bound. */
async function measure(stack: Stack, cases: readonly Case[]): Promise<void> {
  for (const c of cases) {
    const bound = await boundOf(c.query, c.variables ?? {});
    await stack.resetCounts();
    const body = await run(stack, c);
    expect(body.errors, c.name).toBeUndefined();
    c.check(body.data);
    const actual = await stack.upstreamCalls();
    measured.push({
      case: c,
      bound: bound.calls,
      actual,
      fields: bound.byField.map(({ field }) => field),
    });
    expect(actual, c.name).toBeGreaterThan(0);
    expect(actual, `${c.name}: bound ${bound.calls}`).toBeLessThanOrEqual(bound.calls);
  }
}

const operationOf = (query: string): OperationDefinitionNode => {
  const operation = parse(query).definitions.find(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (!operation) throw new Error('no operation');
  return operation as OperationDefinitionNode;
};

describe('hosting call bounds against the simulator, cold cache', () => {
  it('never count fewer calls than an operation makes', async () => {
    await measure(seeded!, CASES);
    // One stack per full case: a tenant may spend 96 hosting reads a minute (the gateway's fair
    // share of the upstream's 120 per IP), and the two cases together need 102.
    for (const c of FULL_CASES) {
      const full = await startColdStack();
      try {
        await setAppCount(full, APPS_LIST_MAX);
        await measure(full, [c]);
      } finally {
        await full.close();
      }
    }
    console.log(
      `hosting bounds (apps list assumed ≤ ${APPS_LIST_MAX}):\n` +
        measured
          .map(
            (m) =>
              `  ${m.case.name.padEnd(42)} bound ${String(m.bound).padStart(4)}  actual ${String(m.actual).padStart(3)}  ratio ${(m.bound / m.actual).toFixed(2)}`,
          )
          .join('\n'),
    );
    // The bench's dashboard: one list read, then a status and a deployments read per app.
    const dashboards = measured.filter((m) => m.case.query === DASHBOARD);
    expect(dashboards.map((m) => [m.bound, m.actual])).toEqual([
      [1 + 2 * APPS_LIST_MAX, 1 + 2 * 3],
      [1 + 2 * APPS_LIST_MAX, 1 + 2 * APPS_LIST_MAX],
    ]);
  }, 60_000);

  it('select every hosting field that calls the upstream', () => {
    expect(measured).toHaveLength(CASES.length + FULL_CASES.length);
    const selected = new Set(measured.flatMap((m) => m.fields));
    expect(CALLING.filter((field) => !selected.has(field))).toEqual([]);
  });

  it('notice a declaration that undercounts', async () => {
    expect(measured).toHaveLength(CASES.length + FULL_CASES.length);
    const schema = await buildGatewaySchema();
    const all = callBounds();
    /** Does some case's bound fall below its actual calls with this declaration lowered? */
    const caught = (field: string, lowered: FieldCallBound): boolean => {
      const declarations: CallBoundDeclarations = { ...all, [field]: lowered };
      return measured.some(({ case: c, actual }) => {
        const bound = upstreamCallBound(
          schema,
          parse(c.query),
          operationOf(c.query),
          c.variables ?? {},
          declarations,
        );
        return bound.calls < actual;
      });
    };
    const lowerings: [string, FieldCallBound][] = [
      ...CALLING.map((field): [string, FieldCallBound] => [
        field,
        { ...HOSTING_CALL_BOUNDS[field]!, calls: 0 },
      ]),
      // A per-app call declared as if one call served every app of the request.
      ...[
        'App.variantsWithLifecycle',
        'App.runtimeStatus',
        'App.deployments',
        'App.secrets',
        'App.logs',
      ].map((field): [string, FieldCallBound] => [
        field,
        { ...HOSTING_CALL_BOUNDS[field]!, oncePerRequest: true },
      ]),
      // The apps list sized below the maximum assumed.
      ['Query.apps', { ...HOSTING_CALL_BOUNDS['Query.apps']!, items: APPS_LIST_MAX - 1 }],
    ];
    const missed = lowerings
      .filter(([field, lowered]) => !caught(field, lowered))
      .map(([field, lowered]) => `${field} ${JSON.stringify(lowered)}`);
    expect(missed).toEqual([]);
  });
});
