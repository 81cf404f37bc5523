/** The shared pollers behind the hosting subscriptions, with scripted polls and short intervals. */
import { describe, expect, it } from 'vitest';
import { until } from '../../support/clock.ts';
import { ErrorCode } from '../../../src/errors/error-codes.ts';
import { GatewayError, UpstreamError } from '../../../src/errors/gateway-errors.ts';
import { createPollerRegistry } from '../../../src/watching/poller-registry.ts';
import type { WatchEvent, WatchSpec } from '../../../src/watching/watch-spec.ts';

const options = { minIntervalMs: 5, maxIntervalMs: 20, maxLifetimeMs: 10_000 };

/** A watch whose polls answer from a script (the last answer repeats); counts the polls. */
function scripted(answers: (string | Error)[], key = 'cred\u0000job\u00001') {
  let polls = 0;
  const spec: WatchSpec<string> = {
    key,
    credentialId: 'cred',
    poll: async () => {
      const answer = answers[Math.min(polls, answers.length - 1)]!;
      polls += 1;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    isTerminal: (state) => state === 'done' || state === 'failed',
  };
  return { spec, polls: () => polls };
}

async function drain<T>(events: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
  const seen: WatchEvent<T>[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

const states = (events: WatchEvent<string>[]) =>
  events.map((event) => (event.kind === 'state' ? event.state : 'error'));

const http = (status: number) =>
  new UpstreamError({
    kind: 'http',
    method: 'GET',
    route: '/r',
    status,
    message: `HTTP ${status}`,
  });

describe('createPollerRegistry', () => {
  it('pushes each distinct state once and completes at a terminal state', async () => {
    const registry = createPollerRegistry(options);
    const { spec, polls } = scripted(['pending', 'pending', 'pending', 'active', 'active', 'done']);
    expect(states(await drain(registry.watch(spec)))).toEqual(['pending', 'active', 'done']);
    expect(polls()).toBe(6);
    expect(registry.size).toBe(0);
  });

  it('shares one poller between subscribers; a late one gets the latest state at once', async () => {
    const registry = createPollerRegistry({ ...options, minIntervalMs: 30 });
    const { spec, polls } = scripted(['pending', 'active', 'done']);
    const first = registry.watch(spec);
    const firstEvent = await first.next();
    expect(firstEvent.value).toMatchObject({ kind: 'state', state: 'pending' });
    const late = registry.watch(spec);
    expect(registry.size).toBe(1);
    const [rest, all] = await Promise.all([drain(first), drain(late)]);
    expect(states(rest)).toEqual(['active', 'done']);
    expect(states(all)).toEqual(['pending', 'active', 'done']);
    expect(polls()).toBe(3);
  });

  it('stops polling when the last subscriber leaves', async () => {
    const registry = createPollerRegistry(options);
    const { spec, polls } = scripted(['pending']);
    const a = registry.watch(spec);
    const b = registry.watch(spec);
    await a.next();
    await a.return!();
    expect(registry.size).toBe(1); // b still watches
    const atA = polls();
    await until(() => polls() > atA, 'a poll for the subscriber still watching');
    await b.return!();
    expect(registry.size).toBe(0);
    const atLeave = polls();
    // A witness on the same intervals: its sixth poll comes 60 ms in (5, 7.5, 11 … up to 20 ms
    // apart), time for three of the stopped poller's longest intervals.
    const witness = scripted(['pending'], 'cred\u0000job\u0000witness');
    const watching = registry.watch(witness.spec);
    await until(() => witness.polls() >= 6, 'six polls of the witness');
    expect(polls()).toBe(atLeave);
    await watching.return!();
  });

  it('retries transient failures and ends on a permanent one', async () => {
    const registry = createPollerRegistry(options);
    const flaky = scripted(['pending', http(503), http(502), 'done']);
    expect(states(await drain(registry.watch(flaky.spec)))).toEqual(['pending', 'done']);

    const gone = scripted(['pending', http(404)], 'cred\u0000job\u00002');
    const events = await drain(registry.watch(gone.spec));
    expect(states(events)).toEqual(['pending', 'error']);
    expect((events[1] as { error: UpstreamError }).error.status).toBe(404);
    expect(gone.polls()).toBe(2);
  });

  it('gives up after too many transient failures in a row', async () => {
    const registry = createPollerRegistry({ ...options, maxTransientFailures: 2 });
    const down = scripted([
      new GatewayError(ErrorCode.RATE_LIMITED, 'bucket empty', { retryAfterSec: 0 }),
    ]);
    const events = await drain(registry.watch(down.spec));
    expect(states(events)).toEqual(['error']);
    expect(down.polls()).toBe(3);
  });

  it('stops watching a resource that never settles after its lifetime', async () => {
    const registry = createPollerRegistry({ ...options, maxLifetimeMs: 40 });
    const { spec } = scripted(['pending']);
    const events = await drain(registry.watch(spec));
    expect(states(events)).toEqual(['pending', 'error']);
    expect((events[1] as { error: GatewayError }).error.code).toBe(ErrorCode.UPSTREAM_TIMEOUT);
  });

  it('ends every watch on closeAll', async () => {
    const registry = createPollerRegistry({ ...options, minIntervalMs: 1_000 });
    const { spec } = scripted(['pending']);
    const watching = registry.watch(spec);
    expect((await watching.next()).value).toMatchObject({ kind: 'state', state: 'pending' });
    registry.closeAll();
    expect(await drain(watching)).toEqual([]);
    expect(registry.size).toBe(0);
  });
});
