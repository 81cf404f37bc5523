/**
 * A follower replica reads the state the holder kept when it joins, and hears each new state on the
 * channel. The holder keeps a state before it publishes it, and on a Redis Cluster the two go to
 * different nodes: a kept state read while an announcement arrived may be the older of the two.
 * Here the relay is driven by hand, so the order is exact: the announcement arrives while the read
 * of the kept state is still out, and the read then answers the older state.
 */
import { describe, expect, it } from 'vitest';
import { createPollerRegistry } from '../../../src/watching/poller-registry.ts';
import { encodeRelayMessage } from '../../../src/watching/relay-messages.ts';
import type { WatchRelay } from '../../../src/watching/watch-relay.ts';
import type { WatchEvent } from '../../../src/watching/watch-spec.ts';

const state = (value: string, final = false) =>
  encodeRelayMessage({
    type: 'state',
    fingerprint: value,
    state: value,
    upstream: undefined,
    final,
  });

/** A relay whose lease another replica holds, whose kept state answers when the test says. */
function handDrivenRelay() {
  let hear: ((message: string) => void) | undefined;
  let answerKept: ((message: string | undefined) => void) | undefined;
  const keptAsked = Promise.withResolvers<void>();
  const relay: WatchRelay = {
    claim: async () => false,
    release: async () => false,
    usable: async () => true,
    announce: async () => {},
    publish: async () => {},
    forget: async () => {},
    latest: () => {
      keptAsked.resolve();
      return new Promise((resolve) => (answerKept = resolve));
    },
    listen: async (_watch, listener) => {
      hear = listener;
      return async () => {};
    },
  };
  return {
    relay,
    keptAsked: keptAsked.promise,
    announce: (message: string) => hear!(message),
    answerKept: (message: string | undefined) => answerKept!(message),
  };
}

describe('a follower joining a watch', () => {
  it('does not push a kept state older than an announcement heard while it was read', async () => {
    const driven = handDrivenRelay();
    const registry = createPollerRegistry({
      minIntervalMs: 10,
      maxIntervalMs: 40,
      maxLifetimeMs: 5_000,
      replicas: { relay: driven.relay, leaseMs: 60_000 },
    });
    const events = registry.watch<string>({
      key: 'cred-1\u0000deployment\u0000dep-1',
      credentialId: 'cred-1',
      poll: async () => {
        throw new Error('a follower does not poll');
      },
      isTerminal: (value) => value === 'succeeded',
    });
    const seen: string[] = [];
    const done = (async () => {
      for await (const event of events as AsyncIterableIterator<WatchEvent<string>>) {
        seen.push(event.kind === 'state' ? event.state : 'error');
      }
    })();

    await driven.keptAsked;
    driven.announce(state('in_progress'));
    driven.answerKept(state('pending'));
    // The answer is handled in microtasks: by the next turn of the loop a relayed 'pending' would
    // have been pushed.
    await new Promise((resolve) => setImmediate(resolve));
    driven.announce(state('succeeded', true));
    await done;

    expect(seen).toEqual(['in_progress', 'succeeded']);
    await registry.closeAll();
  });
});
