/**
 * The shared pollers of several replicas on one real Redis (one registry and one connection per
 * replica, as each gateway process has): one poll loop per watch for all of them, its states and
 * errors fanned out to every replica's subscribers, the lease moving on when its holder leaves or
 * dies, and a replica that cannot reach Redis polling for itself instead of waiting.
 */
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { until } from '../../support/clock.ts';
import { UpstreamError } from '../../../src/errors/gateway-errors.ts';
import {
  createPollerRegistry,
  type PollerRegistry,
} from '../../../src/watching/poller-registry.ts';
import { createRedisWatchRelay } from '../../../src/watching/redis-watch-relay.ts';
import type { WatchEvent, WatchSpec } from '../../../src/watching/watch-spec.ts';
import {
  createRedisConnection,
  type RedisConnection,
} from '../../../src/redis/redis-connection.ts';
import {
  DEAD_REDIS_URL,
  connectTestRedis,
  deleteUnder,
  keysUnder,
  openTestConnection,
  testPrefix,
  testRedisAvailable,
} from '../../support/redis.ts';

const logger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const prefix = testPrefix('pollers');
const LEASE_MS = 300;
/**
 * For the tests that count polls: a lease no stall of a loaded machine outlasts (a 300 ms lease
 * lapses when a replica's event loop stalls 200 ms, and the replica that takes it over polls too).
 */
const STEADY_LEASE_MS = 10_000;
const options = { minIntervalMs: 10, maxIntervalMs: 40, maxLifetimeMs: 20_000 };

let resources = 0;

/**
 * A resource whose state the test sets, read by every replica's polls (counted). Each its own
 * deployment: a terminal state kept from one watch is the answer to the next watch of the same.
 */
function resource(initial: string) {
  resources += 1;
  const deployment = `dep-${resources}`;
  let state: string | Error = initial;
  let polls = 0;
  return {
    set(next: string | Error) {
      state = next;
    },
    polls: () => polls,
    spec(key = `cred-1\u0000deployment\u0000app-1\u0000${deployment}`): WatchSpec<string> {
      return {
        key,
        credentialId: key.split('\u0000')[0]!,
        poll: async () => {
          polls += 1;
          if (state instanceof Error) throw state;
          return state;
        },
        isTerminal: (value) => value === 'succeeded' || value === 'failed',
      };
    },
  };
}

/** A stream read in the background; `states` grows as events arrive. */
function consume(events: AsyncIterableIterator<WatchEvent<string>>) {
  const seen: WatchEvent<string>[] = [];
  const done = (async () => {
    for await (const event of events) seen.push(event);
  })();
  return {
    seen,
    done,
    states: () => seen.map((event) => (event.kind === 'state' ? event.state : 'error')),
  };
}

describe.skipIf(!testRedisAvailable)('shared pollers across replicas on one Redis', () => {
  const open: { registry: PollerRegistry; connection: RedisConnection }[] = [];

  async function replica(connection?: RedisConnection, leaseMs = LEASE_MS) {
    const own = connection ?? (await openTestConnection());
    const registry = createPollerRegistry({
      ...options,
      logger,
      replicas: { relay: createRedisWatchRelay({ connection: own, prefix }), leaseMs },
    });
    open.push({ registry, connection: own });
    return registry;
  }

  afterEach(async () => {
    for (const { registry, connection } of open.splice(0)) {
      await registry.closeAll();
      await connection.close();
    }
  });

  afterAll(async () => {
    const admin = await connectTestRedis();
    await deleteUnder(admin, prefix);
    await admin.close();
  });

  it('polls once for three replicas × ten subscribers, as one replica does', async () => {
    // Each poll moves the deployment a step (as the simulator's does): one loop sees each state once
    // in three polls; a loop per replica would take five.
    const steps = ['pending', 'in_progress', 'succeeded'];
    let polls = 0;
    const spec: WatchSpec<string> = {
      ...resource('').spec(),
      poll: async () => steps[Math.min(polls++, steps.length - 1)]!,
    };
    const replicas = await Promise.all([
      replica(undefined, STEADY_LEASE_MS),
      replica(undefined, STEADY_LEASE_MS),
      replica(undefined, STEADY_LEASE_MS),
    ]);
    const watching = replicas.flatMap((registry) =>
      Array.from({ length: 10 }, () => consume(registry.watch(spec))),
    );
    await Promise.all(watching.map((w) => w.done));
    expect(polls).toBe(3);
    for (const w of watching) {
      // A subscriber whose replica joined once the loop was under way starts from the state kept.
      expect(steps.slice(steps.length - w.states().length)).toEqual(w.states());
    }
    expect(watching[0]!.states()).toEqual(steps);
    expect(replicas.map((registry) => registry.size)).toEqual([0, 0, 0]);
  });

  it('gives the state so far, without a poll, to a subscriber on another replica', async () => {
    const deploy = resource('pending');
    const [a, b] = await Promise.all([
      replica(undefined, STEADY_LEASE_MS),
      replica(undefined, STEADY_LEASE_MS),
    ]);
    const first = consume(a.watch(deploy.spec()));
    await until(() => first.seen.length === 1, 'the first state');
    const late = b.watch(deploy.spec());
    const event = await late.next();
    expect(event.value).toMatchObject({ kind: 'state', state: 'pending' });
    expect(event.value.upstream.totals).toEqual({ upstream: 0, withoutUpstream: 0 });
    deploy.set('succeeded');
    await first.done;
    expect((await late.next()).value).toMatchObject({ kind: 'state', state: 'succeeded' });
    expect((await late.next()).done).toBe(true);
  });

  it('answers a watch of a resource that just ended elsewhere with its terminal state, without a poll', async () => {
    const deploy = resource('succeeded');
    const [a, b] = await Promise.all([
      replica(undefined, STEADY_LEASE_MS),
      replica(undefined, STEADY_LEASE_MS),
    ]);
    const first = consume(a.watch(deploy.spec()));
    await first.done;
    expect(deploy.polls()).toBe(1);
    const after = consume(b.watch(deploy.spec()));
    await after.done;
    expect(after.states()).toEqual(['succeeded']);
    expect(deploy.polls()).toBe(1);
  });

  it("relays the holder's poll ledger, marked relayed, with each new state", async () => {
    const deploy = resource('pending');
    const [a, b] = await Promise.all([replica(), replica()]);
    const holder = consume(a.watch(deploy.spec()));
    await until(() => holder.seen.length === 1, 'the first state');
    const follower = consume(b.watch(deploy.spec()));
    await until(() => follower.seen.length === 1, 'the state so far');
    deploy.set('succeeded');
    await Promise.all([holder.done, follower.done]);
    const last = follower.seen.at(-1)!;
    expect(last).toMatchObject({ kind: 'state', state: 'succeeded', upstream: { relayed: true } });
    expect(holder.seen.at(-1)!.upstream!.relayed).toBeUndefined();
  });

  it('ends every replica’s subscribers with the error the holder got', async () => {
    const deploy = resource('pending');
    const [a, b] = await Promise.all([replica(), replica()]);
    const holder = consume(a.watch(deploy.spec()));
    await until(() => holder.seen.length === 1, 'the first state');
    const follower = consume(b.watch(deploy.spec()));
    await until(() => follower.seen.length === 1, 'the state so far');
    deploy.set(
      new UpstreamError({
        kind: 'http',
        method: 'GET',
        route: 'GET /apps/{appId}/deployments',
        status: 404,
        upstreamCode: 'NOT_FOUND',
        message: 'app not found',
      }),
    );
    await Promise.all([holder.done, follower.done]);
    const error = follower.seen.at(-1) as { kind: 'error'; error: UpstreamError };
    expect(error.kind).toBe('error');
    expect(error.error).toBeInstanceOf(UpstreamError);
    expect(error.error).toMatchObject({
      status: 404,
      upstreamCode: 'NOT_FOUND',
      route: 'GET /apps/{appId}/deployments',
    });
  });

  it('moves the poll loop to a replica still watching when the holder leaves', async () => {
    const deploy = resource('pending');
    const [a, b] = await Promise.all([replica(), replica()]);
    const holder = consume(a.watch(deploy.spec()));
    await until(() => holder.seen.length === 1, 'the first state');
    const follower = consume(b.watch(deploy.spec()));
    await until(() => follower.seen.length === 1, 'the state so far');
    await a.closeAll();
    await holder.done;
    const atLeave = deploy.polls();
    // The follower takes over at once (the holder said it released the lease): polls go on.
    await until(() => deploy.polls() > atLeave + 2, 'polls by the replica that took over');
    deploy.set('succeeded');
    await follower.done;
    expect(follower.states()).toEqual(['pending', 'succeeded']);
  });

  it('moves the poll loop when the holder dies without a word (its lease lapses)', async () => {
    const deploy = resource('pending');
    const doomed = await openTestConnection();
    const a = await replica(doomed);
    const b = await replica();
    const holder = consume(a.watch(deploy.spec()));
    await until(() => holder.seen.length === 1, 'the first state');
    const follower = consume(b.watch(deploy.spec()));
    await until(() => follower.seen.length === 1, 'the state so far');
    // The holder loses Redis, then stops: it cannot release its lease, which lapses.
    await doomed.close();
    const died = performance.now();
    await a.closeAll();
    open.splice(
      open.findIndex((entry) => entry.connection === doomed),
      1,
    );
    const atDeath = deploy.polls();
    await until(() => deploy.polls() > atDeath, 'a poll by the replica that took over');
    const tookOverMs = performance.now() - died;
    deploy.set('succeeded');
    await follower.done;
    expect(follower.states()).toEqual(['pending', 'succeeded']);
    // Within a lease and a third, and a margin for the machine.
    expect(tookOverMs).toBeLessThan(LEASE_MS * (4 / 3) + 500);
  });

  it('polls for itself, never waiting, when it cannot reach Redis', async () => {
    const dead = createRedisConnection({
      url: DEAD_REDIS_URL,
      connectTimeoutMs: 100,
      commandTimeoutMs: 50,
      logger,
    });
    const deploy = resource('pending');
    const [healthy, cut] = [await replica(), await replica(dead)];
    const a = consume(healthy.watch(deploy.spec()));
    const b = consume(cut.watch(deploy.spec()));
    await until(() => a.seen.length === 1 && b.seen.length === 1, 'a state on both');
    deploy.set('succeeded');
    await Promise.all([a.done, b.done]);
    expect(b.states()).toEqual(['pending', 'succeeded']);
    // Nor does shutdown wait on the subscribe that Redis never answered.
    const again = consume(cut.watch(resource('pending').spec()));
    await until(() => again.seen.length === 1, 'a state without Redis');
    const closing = performance.now();
    await cut.closeAll();
    await again.done;
    expect(performance.now() - closing).toBeLessThan(LEASE_MS);
  });

  it('makes a follower that loses Redis mid-watch poll for itself', async () => {
    const deploy = resource('pending');
    const cut = await openTestConnection();
    const holderReplica = await replica();
    const followerReplica = await replica(cut);
    const holder = consume(holderReplica.watch(deploy.spec()));
    await until(() => holder.seen.length === 1, 'the first state');
    const follower = consume(followerReplica.watch(deploy.spec()));
    await until(() => follower.seen.length === 1, 'the state so far');
    // Without Redis the follower hears nothing more: only its own polls can bring the next state.
    await cut.close();
    open.splice(
      open.findIndex((entry) => entry.connection === cut),
      1,
    );
    await holderReplica.closeAll();
    await holder.done;
    const atCut = deploy.polls();
    await until(() => deploy.polls() > atCut, 'a poll by the follower on its own');
    deploy.set('succeeded');
    await follower.done;
    expect(follower.states()).toEqual(['pending', 'succeeded']);
    await followerReplica.closeAll();
  });

  it('keeps only hash-tagged keys of the credential id, and ids out of key names', async () => {
    const deploy = resource('pending');
    const a = await replica();
    const watching = consume(a.watch(deploy.spec('cred-7\u0000deployment\u0000app-9\u0000dep-x')));
    await until(() => watching.seen.length === 1, 'the first state');
    const admin = await connectTestRedis();
    try {
      const keys = (await keysUnder(admin, prefix)).filter((key) => key.includes('{cred-7}'));
      expect(keys.sort()).toEqual([
        expect.stringMatching(new RegExp(`^${prefix}:watch:\\{cred-7\\}:[0-9a-f]{32}:latest$`)),
        expect.stringMatching(new RegExp(`^${prefix}:watch:\\{cred-7\\}:[0-9a-f]{32}:lease$`)),
      ]);
      expect(keys.join(' ')).not.toMatch(/app-9|dep-x/);
    } finally {
      await admin.close();
    }
    deploy.set('succeeded');
    await watching.done;
  });
});
