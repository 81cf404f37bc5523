/**
 * Subscription behaviour that the flow test does not show: one poller per credential and resource
 * (counted with the simulator's stats), a poller that stops when its last subscriber leaves, errors
 * as results, and a shutdown that completes open streams instead of waiting for them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deferred } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postMultipart, smallZip } from '../../support/graphql-multipart.ts';
import { collectSse, collectWs, wsClient } from '../../support/subscription-clients.ts';

const JOB_ROUTE = 'GET /v1/hosting/nodejs/apps/jobs/{jobId}';
const UPLOAD_ROUTE = 'GET /v1/hosting/nodejs/apps/{appId}/source/status';

const CREATE = `mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } userErrors { message } } }`;
const UPLOAD = `mutation($input: UploadAppSourceInput!) { uploadAppSource(input: $input) { jobId userErrors { message } } }`;
const SUB_JOB = `subscription($jobId: ID!) { appJob(jobId: $jobId) { jobId status app { appId } } }`;
const SUB_UPLOAD = `subscription($appId: ID!, $jobId: ID!) { appSourceUpload(appId: $appId, jobId: $jobId) { status progressMessage } }`;

let stack: Stack;
/** Every API request the simulator received, as `METHOD /path` (to count one job's polls). */
const arrivals: string[] = [];
const pollsOf = (jobId: string) =>
  arrivals.filter((arrival) => arrival === `GET /v1/hosting/nodejs/apps/jobs/${jobId}`).length;
beforeAll(async () => {
  stack = await startStack({
    // What is shared and what stops is the subject here, not the backoff (job-pollers.test.ts):
    // poll at the shortest intervals the configuration allows.
    env: { SUBSCRIPTION_POLL_MIN_MS: '50', SUBSCRIPTION_POLL_MAX_MS: '200' },
    sim: {
      onArrival: ({ method, url }) => {
        arrivals.push(`${method} ${url.split('?')[0]}`);
      },
    },
  });
  // Each transport's module loads with its first subscription (docs/deploy.md "Start-up"): one
  // subscription over each first, so that two started together below reach the poller together.
  const warmUp = await newJob();
  const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
  await collectWs(client, SUB_JOB, { jobId: warmUp });
  await client.dispose();
  await collectSse(stack.url, SUB_JOB, { jobId: warmUp });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

let names = 0;
async function newJob(): Promise<string> {
  names += 1;
  const { body } = await stack.gql(CREATE, { name: `watch-${names}` });
  return body.data.createApp.job.jobId;
}

async function newUpload(): Promise<{ appId: string; jobId: string }> {
  const appId = 'app-0002'; // marketing-site, account A
  const { body } = await postMultipart({
    url: stack.url,
    query: UPLOAD,
    variables: { input: { appId, zipFile: null } },
    filePath: 'input.zipFile',
    file: smallZip(),
  });
  return { appId, jobId: body.data.uploadAppSource.jobId };
}

describe('one poller per credential and resource', () => {
  it('polls a job once for two subscribers (graphql-ws and SSE) as for one', async () => {
    const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    try {
      const single = await newJob();
      await stack.resetCounts();
      const alone = await collectWs(client, SUB_JOB, { jobId: single });
      const onePoller = await stack.upstreamCalls(JOB_ROUTE);

      const shared = await newJob();
      await stack.resetCounts();
      const [viaWs, viaSse] = await Promise.all([
        collectWs(client, SUB_JOB, { jobId: shared }),
        collectSse(stack.url, SUB_JOB, { jobId: shared }),
      ]);
      const twoSubscribers = await stack.upstreamCalls(JOB_ROUTE);
      console.log(
        `job polls: one subscriber ${onePoller}, two subscribers ${twoSubscribers} (upstream ${JOB_ROUTE})`,
      );

      expect(alone.results.map((r) => r.data.appJob.status)).toEqual(['PENDING', 'ACTIVE']);
      expect(viaWs.results.map((r) => r.data.appJob.status)).toEqual(['PENDING', 'ACTIVE']);
      expect(viaSse.results).toEqual(viaWs.results);
      expect(twoSubscribers).toBe(onePoller);
      expect(await stack.upstreamCalls()).toBe(twoSubscribers); // nothing else was called
    } finally {
      await client.dispose();
    }
  });

  it('polls an upload once for two subscribers as for one', async () => {
    const first = wsClient(stack.url, { token: 'demo-token' });
    const second = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    try {
      const single = await newUpload();
      await stack.resetCounts();
      const alone = await collectWs(first, SUB_UPLOAD, single);
      const onePoller = await stack.upstreamCalls(UPLOAD_ROUTE);

      const shared = await newUpload();
      await stack.resetCounts();
      const [a, b] = await Promise.all([
        collectWs(first, SUB_UPLOAD, shared),
        collectWs(second, SUB_UPLOAD, shared),
      ]);
      const twoSubscribers = await stack.upstreamCalls(UPLOAD_ROUTE);
      console.log(
        `upload polls: one subscriber ${onePoller}, two subscribers ${twoSubscribers} (upstream ${UPLOAD_ROUTE})`,
      );

      expect(alone.results.at(-1).data.appSourceUpload.status).toBe('DONE');
      expect(a.results.at(-1).data.appSourceUpload.status).toBe('DONE');
      expect(b.results).toEqual(a.results);
      expect(twoSubscribers).toBe(onePoller);
    } finally {
      await Promise.all([first.dispose(), second.dispose()]);
    }
  });

  it('does not share a poller between two credentials', async () => {
    const jobId = await newJob();
    await stack.resetCounts();
    const [owner, reader] = await Promise.all([
      collectSse(stack.url, SUB_JOB, { jobId }, 'demo-token'),
      collectSse(stack.url, SUB_JOB, { jobId }, 'demo-readonly'),
    ]);
    expect(owner.results.at(-1).data.appJob.status).toBe('ACTIVE');
    expect(reader.results.at(-1).data.appJob.status).toBe('ACTIVE');
    // Two pollers, each reading at least once more than one shared poller would in all.
    expect(await stack.upstreamCalls(JOB_ROUTE)).toBeGreaterThanOrEqual(3);
  });

  it('stops polling when the last subscriber leaves', async () => {
    const jobId = await newJob();
    await stack.resetCounts();
    const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    try {
      const iterator = client.iterate({ query: SUB_JOB, variables: { jobId } });
      const first = await iterator.next();
      expect(first.value.data.appJob.status).toBe('PENDING');
      await iterator.return?.();
      const atLeave = pollsOf(jobId);
      expect(atLeave).toBe(1);
      // A witness watch started now polls twice, a minimum interval apart (pending, then active).
      // The left poller's next poll was due a minimum interval after its first, so on the same
      // timers it would have come before the witness's second.
      const witness = await newJob();
      const watched = await collectWs(client, SUB_JOB, { jobId: witness });
      expect(watched.results.map((result) => result.data.appJob.status)).toEqual([
        'PENDING',
        'ACTIVE',
      ]);
      expect(pollsOf(witness)).toBe(2);
      expect(pollsOf(jobId)).toBe(atLeave);
    } finally {
      await client.dispose();
    }
  });
});

describe('errors as results', () => {
  it('ends with NOT_FOUND for an unknown job, over both transports', async () => {
    const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    try {
      const ws = await collectWs(client, SUB_JOB, { jobId: 'job-9999' });
      const sse = await collectSse(stack.url, SUB_JOB, { jobId: 'job-9999' });
      for (const { results } of [ws, sse]) {
        expect(results).toHaveLength(1);
        expect(results[0].data).toBeNull();
        expect(results[0].errors[0].extensions).toMatchObject({
          code: 'NOT_FOUND',
          requestId: expect.any(String),
        });
      }
    } finally {
      await client.dispose();
    }
  });

  it('closes a WebSocket without a token (4403), and is UNAUTHENTICATED over SSE, before any upstream call', async () => {
    const client = wsClient(stack.url, {});
    try {
      const ws = await collectWs(client, SUB_JOB, { jobId: 'job-0001' });
      const sse = await collectSse(stack.url, SUB_JOB, { jobId: 'job-0001' }, null);
      expect(ws.results).toEqual([]);
      expect((ws.failure as { code?: number }).code).toBe(4403);
      expect(sse.results[0].errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(await stack.upstreamCalls()).toBe(0);
    } finally {
      await client.dispose();
    }
  });

  it('serves only subscriptions on the streaming transports, and queries as JSON whatever the Accept', async () => {
    const client = wsClient(stack.url, { authorization: 'Bearer demo-token' });
    try {
      const ws = await collectWs(client, '{ apps { appId } }');
      // graphql-ws reports request errors with an `error` message, which the client throws.
      expect(ws.failure).toEqual([
        expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) }),
      ]);
      // Over HTTP a query never becomes an event stream: asking for nothing but a stream is 406
      // before the query runs, and urql's default Accept (JSON types first, then text/event-stream) is answered as JSON.
      const post = (accept: string) =>
        fetch(`${stack.url}/graphql`, {
          method: 'POST',
          headers: {
            accept,
            'content-type': 'application/json',
            authorization: 'Bearer demo-token',
          },
          body: JSON.stringify({ query: '{ apps { appId } }' }),
        });
      const streamOnly = await post('text/event-stream');
      expect(streamOnly.status).toBe(406);
      expect(streamOnly.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await streamOnly.json()) as any).errors[0]).toMatchObject({
        message: expect.stringMatching(/Accept/),
        extensions: { code: 'BAD_USER_INPUT', header: 'accept' },
      });
      expect(await stack.upstreamCalls()).toBe(0);
      const urql = await post(
        'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed',
      );
      expect(urql.status).toBe(200);
      expect(urql.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
      expect(((await urql.json()) as any).data.apps.length).toBeGreaterThan(0);
    } finally {
      await client.dispose();
    }
  });

  it('reports an invalid subscription document as a validation error', async () => {
    const sse = await collectSse(stack.url, 'subscription { appJob(jobId: "x") { nope } }');
    expect(sse.results[0].errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('shutdown', () => {
  it('completes open streams instead of waiting for them', async () => {
    const slow = await startStack({
      env: { SUBSCRIPTION_POLL_MIN_MS: '60000', SUBSCRIPTION_POLL_MAX_MS: '60000' },
    });
    const { body } = await slow.gql(CREATE, { name: 'shutdown-watch' });
    const jobId = body.data.createApp.job.jobId;
    const client = wsClient(slow.url, { authorization: 'Bearer demo-token' });
    const [wsOpen, sseOpen] = [deferred(), deferred()];
    const ws = collectWs(client, SUB_JOB, { jobId }, () => wsOpen.resolve());
    const sse = collectSse(slow.url, SUB_JOB, { jobId }, 'demo-token', () => sseOpen.resolve());
    // Both streams are open: each has had its first state.
    await Promise.all([wsOpen.promise, sseOpen.promise]);
    const started = Date.now();
    await slow.close();
    const [wsResult, sseResult] = await Promise.all([ws, sse]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(wsResult.results.map((r) => r.data.appJob.status)).toEqual(['PENDING']);
    expect(sseResult.results.map((r) => r.data.appJob.status)).toEqual(['PENDING']);
    await client.dispose();
  });
});
