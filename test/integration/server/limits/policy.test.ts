/**
 * Demand control in upstream calls (docs/budget.md): an operation is held against its upper bound
 * of upstream calls before it spends anything — over the per-operation maximum it is refused as a
 * limit, over what is left of the credential's window it is refused with RATE_LIMITED (429,
 * Retry-After), unless the client accepts partial results; the bound travels with the ledger.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { documentHash } from '../../../../src/server/persisted-operations/trusted-documents.ts';
import { boundOf } from '../../../support/call-bound.ts';
import { startStack, type Stack } from '../../../support/gateway-harness.ts';

const DETAILS = (alias: string) =>
  `${alias}: certificateCustomer(customerId: "demo-customer") {
    certificates(first: 100) { edges { node { certificateId csr } } } }`;
/** Over 300 calls: three lists of 100 certificates, each detail its own call. */
const HUGE = `{ ${DETAILS('a')} ${DETAILS('b')} ${DETAILS('c')} }`;
const ONE = `{ certificateCustomer(customerId: "demo-customer") {
  certificate(certificateId: "cert-0001") { certificateId csr } } }`;
const FEW = `{ certificateCustomer(customerId: "demo-customer") {
  certificates(first: 8) { edges { node { certificateId csr } } } } }`;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('the upstream-call bound of an operation', () => {
  it('refuses an operation of hundreds of calls before its first, naming the bound and the limit', async () => {
    stack = await startStack();
    const bound = (await boundOf(HUGE)).calls;
    expect(bound).toBeGreaterThanOrEqual(300);
    const result = await stack.gql(HUGE);
    expect(result.status).toBe(400);
    expect(result.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      limit: 'upstreamCalls',
      max: 150,
      actual: bound,
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('runs a one-call operation with 5 calls left, and refuses one the window cannot pay', async () => {
    stack = await startStack({
      sim: { rateLimit: 40, rateWindowSec: 300 },
      env: { UPSTREAM_RATE_LIMIT: '40', UPSTREAM_RATE_WINDOW_SEC: '300', UPSTREAM_CACHE: 'off' },
    });
    // Spend the window down to 5 + the write reserve (4 of 40): 9 left, 5 of them for queries.
    for (let i = 1; stack && i <= 31; i += 1) {
      const id = `cert-${String(i).padStart(4, '0')}`;
      await stack.gql(`{ certificateCustomer(customerId: "demo-customer") {
        certificate(certificateId: "${id}") { certificateId } } }`);
    }
    const viewer = await stack.gql('{ viewer { rateLimit { remaining writeReserve } } }');
    expect(viewer.body.data.viewer.rateLimit).toEqual({ remaining: 9, writeReserve: 4 });
    await stack.resetCounts();

    // More than the 5 left for queries: refused before any call, with when to retry.
    const refused = await stack.gql(FEW, {}, { headers: { 'weft-trace': '1' } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'OPERATION_BOUND',
      bound: (await boundOf(FEW)).calls,
      remaining: 5,
    });
    expect(refused.body.errors[0].extensions.retryAfterSec).toBeGreaterThan(0);
    expect(await stack.upstreamCalls()).toBe(0);

    // The same with its details deferred, from a client that reads parts: the same refusal, as one
    // JSON answer before any part (deferring changes when fields arrive, not what they cost).
    const deferred = await stack.gql(
      FEW.replace('csr', '... @defer { csr }'),
      {},
      {
        headers: { accept: 'multipart/mixed;deferSpec=20220824,application/json;q=0.9' },
      },
    );
    expect(deferred.status).toBe(429);
    expect(deferred.headers['content-type']).toMatch(/^application\/json/);
    expect(deferred.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limiter: 'OPERATION_BOUND',
      bound: (await boundOf(FEW)).calls,
    });
    expect(await stack.upstreamCalls()).toBe(0);

    // One call: it runs, and its ledger shows the bound beside what it spent.
    const one = await stack.gql(ONE, {}, { headers: { 'weft-trace': '1' } });
    expect(one.body.errors).toBeUndefined();
    expect(one.body.extensions.upstream.estimate).toEqual({ calls: (await boundOf(ONE)).calls });
    expect(one.body.extensions.upstream.totals.upstream).toBe(1);
    expect(await stack.upstreamCalls()).toBe(1);

    // Partial results accepted: it runs, the fields the budget cannot pay fail alone.
    const partial = await stack.gql(FEW, {}, { headers: { 'weft-accept-partial': '1' } });
    expect(partial.status).toBe(200);
    expect(partial.body.data.certificateCustomer.certificates.edges.length).toBe(8);
    const codes = new Set(partial.body.errors.map((e: any) => e.extensions.code));
    expect(codes).toEqual(new Set(['RATE_LIMITED']));
    expect(await stack.upstreamCalls()).toBeLessThanOrEqual(5);
  });
});

describe('the bound of a request at a lower priority', () => {
  it('is held to what its priority leaves, where a user request of the same bound runs', async () => {
    // A window of 40: reads leave 4 calls, background 6, the explorer 8 (docs/budget.md).
    stack = await startStack({
      sim: { rateLimit: 40, rateWindowSec: 300 },
      env: { UPSTREAM_RATE_LIMIT: '40', UPSTREAM_RATE_WINDOW_SEC: '300', UPSTREAM_CACHE: 'off' },
    });
    for (let i = 1; stack && i <= 28; i += 1) {
      const id = `cert-${String(i).padStart(4, '0')}`;
      await stack.gql(`{ certificateCustomer(customerId: "demo-customer") {
        certificate(certificateId: "${id}") { certificateId } } }`);
    }
    // 12 left: 8 for a user's query, 6 for background work, 4 for the explorer.
    const FIVE = FEW.replace('first: 8', 'first: 4');
    const SEVEN = FEW.replace('first: 8', 'first: 6');
    expect((await boundOf(FIVE)).calls).toBe(5);
    expect((await boundOf(SEVEN)).calls).toBe(7);
    await stack.resetCounts();

    for (const [query, priority, bound, left] of [
      [FIVE, 'explorer', 5, 4],
      [SEVEN, 'background', 7, 6],
    ] as const) {
      const refused = await stack.gql(query, {}, { headers: { 'weft-priority': priority } });
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0].extensions).toMatchObject({
        code: 'RATE_LIMITED',
        limiter: 'OPERATION_BOUND',
        bound,
        remaining: left,
      });
    }
    expect(await stack.upstreamCalls()).toBe(0);

    const user = await stack.gql(SEVEN);
    expect(user.body.errors).toBeUndefined();
    expect(await stack.upstreamCalls()).toBe(7);
  });
});

describe('the bound alone (Weft-Estimate: 1)', () => {
  it('answers the bound and its costliest fields without running anything, a mutation included', async () => {
    stack = await startStack();
    const estimate = await stack.gql(FEW, {}, { headers: { 'weft-estimate': '1' } });
    expect(estimate.status).toBe(200);
    expect(estimate.body.data).toBeUndefined();
    expect(estimate.body.extensions.upstream.estimate).toEqual({
      calls: (await boundOf(FEW)).calls,
      byField: (await boundOf(FEW)).byField,
    });
    // With the ledger asked for as well, the answer is still the bound, by field.
    const traced = await stack.gql(
      FEW,
      {},
      { headers: { 'weft-estimate': '1', 'weft-trace': '1' } },
    );
    expect(traced.body.extensions.upstream).toEqual(estimate.body.extensions.upstream);
    const CREATE = `mutation { createApp(input: { name: "estimate-only" }) { job { jobId } } }`;
    const headers = { 'weft-estimate': '1', 'idempotency-key': 'estimate-then-run-0001' };
    const mutation = await stack.gql(CREATE, {}, { headers });
    expect(mutation.body.extensions.upstream.estimate.calls).toBeGreaterThan(0);
    expect(await stack.upstreamCalls()).toBe(0);
    // The key was not taken by the estimate: the same mutation then runs, once.
    const run = await stack.gql(
      CREATE,
      {},
      { headers: { 'idempotency-key': 'estimate-then-run-0001' } },
    );
    expect(run.body.errors).toBeUndefined();
    expect(run.body.data.createApp.job.jobId).toBeTruthy();
    expect(await stack.upstreamCalls()).toBe(1);
  });
});

describe('npm run cost', () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, ['scripts/cost.ts', ...args], {
      cwd: process.cwd(),
    }).then(
      (done) => ({ code: 0, stdout: done.stdout }),
      (failed: { code: number; stdout: string }) => ({ code: failed.code, stdout: failed.stdout }),
    );

  it('prints each operation of a folder and a manifest, and fails above the threshold', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-cost-'));
    writeFileSync(join(dir, 'few.graphql'), `query Few ${FEW}`);
    writeFileSync(join(dir, 'huge.graphql'), `query Huge ${HUGE}`);
    const fine = await run([join(dir, 'few.graphql')]);
    expect(fine.code).toBe(0);
    expect(fine.stdout).toContain(`Few: at most ${(await boundOf(FEW)).calls} upstream calls`);
    const all = await run([dir]);
    expect(all.code).toBe(1);
    expect(all.stdout).toMatch(/Huge: at most \d+ upstream calls — over 150/);
    expect((await run([dir, '--max', '1000'])).code).toBe(0);

    const manifest = join(dir, 'manifest.json');
    const text = `query Few ${FEW}`;
    writeFileSync(manifest, JSON.stringify({ [documentHash(text)]: text }));
    const fromManifest = await run([manifest, '--max', '5']);
    expect(fromManifest.code).toBe(1);
    expect(fromManifest.stdout).toContain('Few: at most');

    writeFileSync(join(dir, 'broken.graphql'), '{ noSuchField }');
    expect((await run([join(dir, 'broken.graphql')])).code).toBe(1);
  });

  it('bounds an unpaged list per item, a known length as the ledger refines it, and variables by their defaults', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-cost-'));
    const file = join(dir, 'apps.graphql');
    writeFileSync(
      file,
      `query Apps { apps { appId runtimeStatus { __typename } deployments(limit: 3) { totalCount } } }`,
    );
    const assumed = await run([file]);
    expect(assumed.stdout).toContain('Apps: at most 41 upstream calls');
    expect(assumed.stdout).toContain('once its unpaged lists arrive: 1 + 2 × Query.apps');
    // The seeded account has three apps: what the gateway's refined bound (and its run) says.
    const known = await run([file, '--length', 'Query.apps=3']);
    expect(known.stdout).toContain('Apps: at most 7 upstream calls');
    expect((await run([file, '--length', 'apps=3'])).code).toBe(2);

    const defaults = join(dir, 'certs.graphql');
    writeFileSync(
      defaults,
      `query Certs($first: Int = 2) { certificateCustomer(customerId: "demo-customer") {
        certificates(first: $first) { edges { node { commonName domainVerifications { domain } } } } } }`,
    );
    expect((await run([defaults])).stdout).toContain('Certs: at most 3 upstream calls');
  });
});
