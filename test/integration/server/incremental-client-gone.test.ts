/**
 * A client that goes away in the middle of an answer in parts (`@defer`) stops the deferred work
 * that has not started: the fields below a deferred list still being read never run, so their
 * upstream calls are never made. The witness is the same query from a client that stays, on the
 * same gateway at the same moment: its calls are made.
 *
 * The upstream cache is off so that the two requests share nothing (no cached or shared read).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deferred, until } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { postForParts } from '../../support/multipart-parts.ts';

const PARTS = {
  authorization: 'Bearer demo-token',
  accept:
    'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9',
};
const isAppList = (url: string) => url.split('?')[0]!.endsWith('/apps');

let stack: Stack;
const release = deferred();
let held = 0;
const runtimeReads: string[] = [];

beforeAll(async () => {
  stack = await startStack({
    env: { UPSTREAM_CACHE: 'off' },
    sim: {
      onArrival: async ({ url }) => {
        if (isAppList(url)) {
          held += 1;
          await release.promise;
        } else runtimeReads.push(url);
      },
    },
  });
});
afterAll(() => stack.close());

it('stops the deferred work not started yet', async () => {
  // The deferred app list is held at the upstream; each app's runtime status is read after it.
  const query = `{ __typename ... @defer { apps { appId runtimeStatus { __typename } } } }`;
  // The token has been answered before: a never-seen token's first calls go one at a time (its
  // probe first), and both app lists must be in flight together here.
  const proven = await stack.gql(
    '{ certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }',
  );
  expect(proven.body.errors).toBeUndefined();
  runtimeReads.length = 0;
  const gone = await postForParts(`${stack.url}/graphql`, { query }, PARTS);
  const kept = await postForParts(`${stack.url}/graphql`, { query }, PARTS);
  await gone.partsArrived(1);
  await kept.partsArrived(1);
  await until(() => held === 2, 'both app lists held at the upstream');
  gone.abort();
  const requestId = gone.headers['x-request-id']!;
  await until(
    () => stack.logs.some((line) => line.includes(requestId) && line.includes('client went away')),
    'the gateway to see the client go',
  );
  release.resolve();
  const [, last] = await kept.parts;
  const apps = last!.body.incremental[0].data.apps.length as number;
  expect(apps).toBeGreaterThan(0);
  // Only the client that stayed had its apps' runtime status read.
  expect(runtimeReads).toHaveLength(apps);
});
