/**
 * A client that leaves stops its queued calls. A credential's send window is held
 * full: a fresh gateway's view of a credential is stale, so it lets one call out (docs/budget.md
 * "Send window"), and the simulator holds that one — the app list — until the test releases it.
 * Clients then ask for certificate details (one upstream read each, cert-0001…), which wait in line
 * behind it, and close their connections. Once the held call is answered, none of the departed
 * clients' reads may reach the upstream — except one a client that stays shares (the same read,
 * coalesced), which must still answer it.
 *
 * Counted at the simulator by certificate. Whether a departed read was sent or dropped, each ends in
 * one of two witnesses — its arrival at the simulator or the gateway's "dropped" log line — so the
 * test waits for all of them, never for a delay.
 */
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { deferred, until } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postForParts } from '../../support/multipart-parts.ts';

const PARTS = {
  authorization: 'Bearer demo-token',
  accept:
    'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9',
};
const DETAIL_ROUTE = 'GET /v2/customers/{customerId}/certificates/{certificateId}';
const certId = (n: number) => `cert-${String(n).padStart(4, '0')}`;
const detail = (n: number) =>
  `certificateCustomer(customerId: "demo-customer") { certificate(certificateId: "${certId(n)}") { certificateId } }`;
/** A dashboard whose certificate comes in a deferred part (the first part costs no call). */
const dashboard = (n: number) => `{ __typename ... @defer { ${detail(n)} } }`;

interface Scene {
  readonly stack: Stack;
  /** Certificate ids whose detail read reached the simulator, in order. */
  readonly arrived: string[];
  /** Answers the held app list (and lets the window open). */
  release(): void;
  readonly held: () => number;
}

let scene: Scene | undefined;
afterEach(async () => {
  scene?.release();
  await scene?.stack.close();
  scene = undefined;
});

async function startScene(): Promise<Scene> {
  const gate = deferred();
  let held = 0;
  const arrived: string[] = [];
  const stack = await startStack({
    // The test's own keep-alive sockets need not hold the close for the default bound.
    env: { SHUTDOWN_TIMEOUT_MS: '500' },
    sim: {
      onArrival: async ({ url }) => {
        const path = url.split('?')[0]!;
        if (path.endsWith('/apps')) {
          held += 1;
          await gate.promise;
        }
        const cert = /\/certificates\/(cert-\d+)$/.exec(path);
        if (cert) arrived.push(cert[1]!);
      },
    },
  });
  return { stack, arrived, release: () => gate.resolve(), held: () => held };
}

/** A counter of the gateway's metrics, read in process (no socket of its own). */
async function metric(stack: Stack, line: string): Promise<number> {
  const response = await stack.gateway.app.inject({ method: 'GET', url: '/metrics' });
  const found = response.body.split('\n').find((row) => row.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}
const misses = (stack: Stack) => metric(stack, 'weft_cache_lookups_total{result="miss"}');
const droppedLines = (stack: Stack) =>
  stack.logs.filter((line) => line.includes('upstream call dropped') && line.includes(DETAIL_ROUTE))
    .length;

/** Holds the credential's one call in flight (the app list) at the simulator. */
async function holdTheWindow(s: Scene) {
  const holder = s.stack.gql('{ apps { appId } }');
  await until(() => s.held() === 1, 'the app list held at the upstream');
  return { holder, baseline: await misses(s.stack) };
}

it('drops the queued deferred reads of @defer clients that left, not the one a staying request shares', async () => {
  scene = await startScene();
  const { stack } = scene;
  const { holder, baseline } = await holdTheWindow(scene);

  // Ten dashboards whose deferred certificate reads queue behind the held call.
  const departing = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      postForParts(`${stack.url}/graphql`, { query: dashboard(i + 1) }, PARTS),
    ),
  );
  await Promise.all(departing.map((client) => client.partsArrived(1)));
  await until(async () => (await misses(stack)) === baseline + 10, 'ten reads in line');
  // A client that stays asks for cert-0001 too: it joins the first dashboard's queued read.
  const staying = stack.gql(`{ ${detail(1)} }`);
  await until(async () => (await misses(stack)) === baseline + 11, 'the staying read joined');

  for (const client of departing) client.abort();
  const ids = departing.map((client) => client.headers['x-request-id']!);
  await until(
    () =>
      ids.every((id) =>
        stack.logs.some((line) => line.includes(id) && line.includes('client went away')),
      ),
    'the gateway to see the ten clients go',
  );
  scene.release();

  expect((await holder).status).toBe(200);
  const answer = await staying;
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data.certificateCustomer.certificate.certificateId).toBe('cert-0001');
  // Every departed read ends either at the simulator or in the gateway's "dropped" line.
  await until(
    () => scene!.arrived.length + droppedLines(stack) === 10,
    'each queued read sent or dropped',
  );
  const departedOnly = scene.arrived.filter((id) => id !== certId(1));
  expect(
    departedOnly,
    `departed clients' reads that reached the upstream: ${departedOnly.length} of 9`,
  ).toEqual([]);
  // The shared read went out once, for the client that stayed.
  expect(scene.arrived).toEqual([certId(1)]);
  expect(droppedLines(stack)).toBe(9);
  expect(await metric(stack, `weft_upstream_calls_dropped_total{route="${DETAIL_ROUTE}"}`)).toBe(9);
});

it('drops the queued reads of plain JSON clients that closed their connection', async () => {
  scene = await startScene();
  const { stack } = scene;
  const { holder, baseline } = await holdTheWindow(scene);
  const connections = () =>
    new Promise<number>((resolve, reject) =>
      stack.gateway.app.server.getConnections((error, count) =>
        error ? reject(error) : resolve(count),
      ),
    );
  const before = await connections();

  const departing = Array.from({ length: 10 }, (_, i) => {
    const controller = new AbortController();
    const answer = request(`${stack.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer demo-token',
        'x-request-id': `departed-${i}`,
      },
      body: JSON.stringify({ query: `{ ${detail(i + 11)} }` }),
      signal: controller.signal,
    }).catch(() => undefined);
    return { controller, answer };
  });
  await until(async () => (await misses(stack)) === baseline + 10, 'ten reads in line');

  for (const client of departing) client.controller.abort();
  await Promise.all(departing.map((client) => client.answer));
  await until(async () => (await connections()) === before, 'the gateway to see them close');
  scene.release();

  expect((await holder).status).toBe(200);
  await until(
    () => scene!.arrived.length + droppedLines(stack) === 10,
    'each queued read sent or dropped',
  );
  expect(
    scene.arrived,
    `departed clients' reads that reached the upstream: ${scene.arrived.length} of 10`,
  ).toEqual([]);
  // Each drop is logged with the request it was for.
  const droppedFor = stack.logs
    .filter((line) => line.includes('upstream call dropped'))
    .map((line) => (JSON.parse(line) as { reqId?: string }).reqId)
    .sort();
  expect(droppedFor).toEqual(departing.map((_, i) => `departed-${i}`).sort());
  // Their places in line are free: the credential's next read is answered.
  const next = await stack.gql(`{ ${detail(21)} }`);
  expect(next.body.data.certificateCustomer.certificate.certificateId).toBe(certId(21));
});
