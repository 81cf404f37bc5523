/**
 * `@defer` with the mainstream clients, each with its set-up (docs/clients.md "Incremental
 * delivery"): Apollo Client 4 with `Defer20220824Handler` (the 2022 format) and with
 * `GraphQL17Alpha9Handler` (the `incrementalSpec=v0.2` format), urql with its default exchanges (its
 * fetchExchange reads `multipart/mixed` by itself). The deferred part's upstream calls are held at the simulator
 * until the client has shown the first part, so each client is seen to get two parts: the first
 * without the deferred fields, then the whole.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler, GraphQL17Alpha9Handler } from '@apollo/client/incremental';
import { cacheExchange, createClient, fetchExchange } from '@urql/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deferred, type Deferred } from '../../support/clock.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const AUTH = { authorization: 'Bearer demo-token' };
const DASHBOARD = `query Dashboard {
  apps {
    appId
    name
    ... @defer {
      deployments(limit: 3) {
        totalCount
      }
    }
  }
}`;

let stack: Stack;
/** Holds every deployments read until the test lets it go. */
let slow: Deferred<void>;
beforeAll(async () => {
  stack = await startStack({
    // Each client's reads reach the upstream (no cache shared between the two clients' runs).
    env: { UPSTREAM_CACHE: 'off', RESPONSE_CACHE: 'false' },
    sim: {
      onArrival: async ({ url }) => {
        if (url.split('?')[0]!.endsWith('/deployments')) await slow.promise;
      },
    },
  });
});
afterAll(() => stack.close());
beforeEach(() => {
  slow = deferred();
});

interface Seen {
  readonly apps: { appId: string; deployments?: { totalCount: number } }[];
  readonly complete: boolean;
}

/** Collects what a client shows; `first` resolves with the first result. */
function collector() {
  const seen: Seen[] = [];
  const first = deferred<Seen>();
  const last = deferred<Seen>();
  return {
    seen,
    first: first.promise,
    last: last.promise,
    add(result: Seen) {
      seen.push(result);
      if (seen.length === 1) first.resolve(result);
      if (result.complete) last.resolve(result);
    },
    fail: (error: unknown) => {
      first.reject(error);
      last.reject(error);
    },
  };
}

function expectTwoParts(first: Seen, last: Seen) {
  expect(first.complete).toBe(false);
  expect(first.apps.length).toBeGreaterThan(0);
  for (const app of first.apps) expect(app.deployments).toBeUndefined();
  expect(last.apps.map((app) => app.appId)).toEqual(first.apps.map((app) => app.appId));
  for (const app of last.apps) expect(app.deployments?.totalCount).toBeGreaterThanOrEqual(0);
}

/** What a watched query of Apollo Client 4 shows, with the given incremental handler. */
async function apolloClientShows(
  incrementalHandler: Defer20220824Handler | GraphQL17Alpha9Handler,
): Promise<{ first: Seen; last: Seen }> {
  const client = new ApolloClient({
    link: new HttpLink({ uri: `${stack.url}/graphql`, headers: AUTH }),
    cache: new InMemoryCache(),
    incrementalHandler,
  });
  const results = collector();
  const subscription = client
    .watchQuery({ query: gql(DASHBOARD), fetchPolicy: 'network-only' })
    .subscribe({
      next: (result) => {
        if (result.dataState !== 'streaming' && result.dataState !== 'complete') return;
        results.add({
          apps: (result.data as { apps: Seen['apps'] }).apps,
          complete: result.dataState === 'complete',
        });
      },
      error: results.fail,
    });
  const first = await results.first;
  // The deferred reads are still held: the first part came without them.
  slow.resolve();
  const last = await results.last;
  subscription.unsubscribe();
  return { first, last };
}

describe('Apollo Client 4 with Defer20220824Handler', () => {
  it('shows the first part, then the deferred one', async () => {
    const { first, last } = await apolloClientShows(new Defer20220824Handler());
    expectTwoParts(first, last);
  });
});

describe('Apollo Client 4 with GraphQL17Alpha9Handler (incrementalSpec=v0.2)', () => {
  it('shows the first part, then the deferred one', async () => {
    const { first, last } = await apolloClientShows(new GraphQL17Alpha9Handler());
    expectTwoParts(first, last);
  });
});

describe('urql with its default exchanges', () => {
  it('shows the first part, then the deferred one', async () => {
    const client = createClient({
      url: `${stack.url}/graphql`,
      exchanges: [cacheExchange, fetchExchange],
      fetchOptions: { headers: AUTH },
    });
    const results = collector();
    const { unsubscribe } = client.query(DASHBOARD, {}).subscribe((result) => {
      if (result.error) return results.fail(result.error);
      results.add({
        apps: (result.data as { apps: Seen['apps'] }).apps,
        complete: result.hasNext !== true,
      });
    });
    const first = await results.first;
    slow.resolve();
    const last = await results.last;
    unsubscribe();
    expectTwoParts(first, last);
  });
});
