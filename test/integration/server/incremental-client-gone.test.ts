/**
 * A client that goes away in the middle of an answer in parts (`@defer`, `@stream`) stops the work
 * that has not started: the fields below a deferred list still being read, or below the items of a
 * streamed one, never run, so their upstream calls are never asked for (not merely dropped by the
 * upstream layer, which drops the reads of a client that left). The witness is the same query
 * from a client that stays, on the same gateway at the same moment: its calls are made. (The items
 * of a page already read have all started: their calls, in flight, are not recalled.)
 *
 * The upstream cache is off so that the two requests share nothing (no cached or shared read).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
let release = deferred();
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

/** Status reads the upstream layer dropped because their client had left (none was asked for). */
async function droppedStatusReads(): Promise<number> {
  const line =
    'weft_upstream_calls_dropped_total{route="GET /v1/hosting/nodejs/apps/{appId}/status"}';
  const response = await stack.gateway.app.inject({ method: 'GET', url: '/metrics' });
  const found = response.body.split('\n').find((row) => row.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

beforeEach(() => {
  release = deferred();
  held = 0;
});

/** The app list is held at the upstream; each app's runtime status is read after it. */
const QUERIES = {
  'a deferred list': `{ __typename ... @defer { apps { appId runtimeStatus { __typename } } } }`,
  'a streamed list in a deferred fragment': `{ __typename ... @defer { apps @stream(initialCount: 1) { appId runtimeStatus { __typename } } } }`,
};

describe('a client that goes away', () => {
  for (const [name, query] of Object.entries(QUERIES)) {
    it(`stops the work not started yet of ${name}`, async () => {
      // The token has been answered before: a never-seen token's first calls go one at a time (its
      // probe first), and both app lists must be in flight together here.
      const proven = await stack.gql(
        '{ certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }',
      );
      expect(proven.body.errors).toBeUndefined();
      runtimeReads.length = 0;
      const droppedBefore = await droppedStatusReads();
      const gone = await postForParts(`${stack.url}/graphql`, { query }, PARTS);
      const kept = await postForParts(`${stack.url}/graphql`, { query }, PARTS);
      await gone.partsArrived(1);
      await kept.partsArrived(1);
      await until(() => held === 2, 'both app lists held at the upstream');
      gone.abort();
      const requestId = gone.headers['x-request-id']!;
      await until(
        () =>
          stack.logs.some((line) => line.includes(requestId) && line.includes('client went away')),
        'the gateway to see the client go',
      );
      release.resolve();
      const parts = await kept.parts;
      const apps = parts
        .flatMap((part) => part.body.incremental ?? [])
        .flatMap((entry: { data?: { apps: unknown[] }; items?: unknown[] }) =>
          entry.data ? entry.data.apps : (entry.items ?? []),
        );
      expect(apps.length).toBeGreaterThan(1);
      // Only the client that stayed had its apps' runtime status read; the one that left did not
      // even ask (its reads are not dropped on the way: they never started).
      expect(runtimeReads).toHaveLength(apps.length);
      expect(await droppedStatusReads()).toBe(droppedBefore);
    });
  }
});
