/**
 * `@stream` with the mainstream clients, each with its set-up (docs/clients.md "Incremental
 * delivery"): Apollo Client 4 with `Defer20220824Handler` and with `GraphQL17Alpha9Handler`, urql
 * with its default exchanges. Each shows a streamed transactions page with its first items, then
 * whole; and a streamed list whose items each wait on their own upstream call item by item — each
 * item's call held at the simulator until the client has shown the items before it.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler, GraphQL17Alpha9Handler } from '@apollo/client/incremental';
import { cacheExchange, createClient, fetchExchange } from '@urql/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deferred, type Deferred } from '../../support/clock.ts';
import { heldStatusReads } from '../../support/held-status-reads.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const STORE = '11111111-1111-4111-8111-111111111111';
const AUTH = { authorization: 'Bearer demo-token', 'x-store-id': STORE };
const page = (stream: string) => `query Page {
  store(storeId: "${STORE}") {
    transactions(first: 6) {
      edges ${stream} { cursor node { transactionId } }
    }
  }
}`;
const APPS = `query Apps {
  apps @stream(initialCount: 1, label: "apps") { appId runtimeStatus { appStatus } }
}`;

/** The app whose runtime status read is held, by app id, until the test lets it go. */
const statusReads = heldStatusReads();
const held = statusReads.held;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    // Each client's reads reach the upstream (no cache shared between the clients' runs).
    env: { UPSTREAM_CACHE: 'off', RESPONSE_CACHE: 'false' },
    sim: { onArrival: statusReads.onArrival },
  });
});
afterAll(() => stack.close());
beforeEach(() => held.clear());

interface Shown {
  readonly data: any;
  readonly complete: boolean;
}

/** What a client shows of a query, result by result; `until` waits for a result that fits. */
function shownBy(watch: (show: (shown: Shown) => void, fail: (e: unknown) => void) => () => void) {
  const shown: Shown[] = [];
  const waiters: { fits: (s: Shown) => boolean; done: Deferred<Shown> }[] = [];
  let failure: unknown;
  const stop = watch(
    (result) => {
      shown.push(result);
      for (const waiter of [...waiters]) {
        if (!waiter.fits(result)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done.resolve(result);
      }
    },
    (error) => {
      failure = error;
      for (const waiter of waiters.splice(0)) waiter.done.reject(error);
    },
  );
  return {
    shown,
    stop,
    until(fits: (s: Shown) => boolean): Promise<Shown> {
      if (failure) return Promise.reject(failure);
      const seen = shown.find(fits);
      if (seen) return Promise.resolve(seen);
      const done = deferred<Shown>();
      waiters.push({ fits, done });
      return done.promise;
    },
  };
}

type Watch = (query: string) => ReturnType<typeof shownBy>;

const apolloClient =
  (handler: () => Defer20220824Handler | GraphQL17Alpha9Handler): Watch =>
  (query) =>
    shownBy((show, fail) => {
      const client = new ApolloClient({
        link: new HttpLink({ uri: `${stack.url}/graphql`, headers: AUTH }),
        cache: new InMemoryCache(),
        incrementalHandler: handler(),
      });
      const subscription = client
        .watchQuery({ query: gql(query), fetchPolicy: 'network-only' })
        .subscribe({
          next: (result) => {
            if (result.dataState !== 'streaming' && result.dataState !== 'complete') return;
            // A list still streaming is 'complete' data (every item shown is whole) while the
            // query is still loading (networkStatus `streaming`).
            show({
              data: result.data,
              complete: result.dataState === 'complete' && !result.loading,
            });
          },
          error: fail,
        });
      return () => subscription.unsubscribe();
    });

const urql: Watch = (query) =>
  shownBy((show, fail) => {
    const client = createClient({
      url: `${stack.url}/graphql`,
      exchanges: [cacheExchange, fetchExchange],
      fetchOptions: { headers: AUTH },
    });
    const { unsubscribe } = client.query(query, {}).subscribe((result) => {
      if (result.error) return fail(result.error);
      show({ data: result.data, complete: result.hasNext !== true });
    });
    return unsubscribe;
  });

const CLIENTS: Record<string, Watch> = {
  'Apollo Client 4 with Defer20220824Handler': apolloClient(() => new Defer20220824Handler()),
  'Apollo Client 4 with GraphQL17Alpha9Handler': apolloClient(() => new GraphQL17Alpha9Handler()),
  'urql with its default exchanges': urql,
};

/** The page's edges as shown, without the `__typename`s urql's cache adds to a query. */
const edgesOf = (shown: Shown) =>
  JSON.parse(JSON.stringify(shown.data.store.transactions.edges), (key, value) =>
    key === '__typename' ? undefined : value,
  ) as unknown[];

for (const [name, watch] of Object.entries(CLIENTS)) {
  describe(name, () => {
    it('shows a streamed transactions page with its first items, then whole', async () => {
      const whole = await stack.gql(page(''), {}, { headers: AUTH });
      const edges = whole.body.data.store.transactions.edges as unknown[];
      expect(edges).toHaveLength(6);
      const client = watch(page('@stream(initialCount: 2, label: "page")'));
      const last = await client.until((shown) => shown.complete);
      client.stop();
      const [first] = client.shown;
      expect(first!.complete).toBe(false);
      expect(edgesOf(first!)).toEqual(edges.slice(0, 2));
      expect(edgesOf(last)).toEqual(edges);
    });

    it('shows a streamed list item by item, each as its own upstream call answers', async () => {
      const list = await stack.gql('{ apps { appId } }', {}, { headers: AUTH });
      const appIds = (list.body.data.apps as { appId: string }[]).map((app) => app.appId);
      expect(appIds.length).toBeGreaterThanOrEqual(3);
      for (const appId of appIds.slice(1)) statusReads.hold(appId);
      const client = watch(APPS);
      const shownApps = (shown: Shown) =>
        (shown.data.apps as { appId: string }[]).map((app) => app.appId);
      for (let count = 1; count <= appIds.length; count += 1) {
        // The client shows the first `count` items while the next item's call is still held.
        const shown = await client.until((s) => shownApps(s).length === count);
        expect(shownApps(shown)).toEqual(appIds.slice(0, count));
        if (count < appIds.length) expect(shown.complete).toBe(false);
        held.get(appIds[count]!)?.resolve();
      }
      await client.until((shown) => shown.complete);
      client.stop();
      // Never more than one item more than the result before.
      const lengths = client.shown.map((shown) => shownApps(shown).length);
      expect([...new Set(lengths)]).toEqual(appIds.map((_id, index) => index + 1));
    });
  });
}
