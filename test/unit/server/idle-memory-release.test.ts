/**
 * The idle memory release: one memory-reducing collection once no request has arrived for a while
 * and the heap grew since the last one; never while requests keep coming, never for small growth.
 */
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startIdleMemoryRelease } from '../../../src/server/idle-memory-release.ts';

const MiB = 1024 * 1024;

function harness(options: { idleMs?: number; collector?: boolean } = {}) {
  const server = new EventEmitter();
  const lines: Array<{ fields: unknown; msg: string }> = [];
  const logger = {
    info: (fields: unknown, msg?: string) =>
      lines.push(typeof fields === 'string' ? { fields: {}, msg: fields } : { fields, msg: msg! }),
  } as unknown as FastifyBaseLogger;
  let heap = 100 * MiB;
  const collections: number[] = [];
  const release = startIdleMemoryRelease({
    idleMs: options.idleMs ?? 3_000,
    server,
    logger,
    growthBytes: 32 * MiB,
    collect:
      options.collector === false
        ? undefined
        : () => {
            collections.push(Date.now());
            heap = 60 * MiB;
          },
    heapBytes: () => heap,
    rssBytes: () => heap * 2,
  });
  /** A request that arrives now and is answered when `end` is called. */
  const open = (url = '/graphql') => {
    const response = new EventEmitter();
    server.emit('request', { url }, response);
    return { end: () => response.emit('close') };
  };
  return {
    /** A request that arrives and is answered at once. */
    request: (url = '/graphql') => open(url).end(),
    open,
    grow: (bytes: number) => (heap += bytes),
    collections,
    lines,
    release,
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('idle memory release', () => {
  it('waits for a request that lasts longer than the quiet time, and counts from its end', () => {
    const h = harness();
    h.grow(80 * MiB);
    const upload = h.open('/graphql');
    // Nothing arrives for ten quiet times, but the request is still being read or answered.
    vi.advanceTimersByTime(30_000);
    expect(h.collections).toHaveLength(0);
    upload.end();
    vi.advanceTimersByTime(2_000);
    expect(h.collections).toHaveLength(0); // not quiet for long enough since it ended
    vi.advanceTimersByTime(3_000);
    expect(h.collections).toHaveLength(1);
    h.release.stop();
  });

  it('is not kept from its quiet moment by health probes and metric scrapes', () => {
    const h = harness();
    h.request();
    h.grow(80 * MiB);
    // An orchestrator's probes and a scrape, every second, and nothing else.
    for (let second = 0; second < 10; second += 1) {
      h.request('/healthz');
      h.request('/readyz');
      h.request('/metrics?name[]=weft_upstream_calls_total');
      vi.advanceTimersByTime(1_000);
    }
    expect(h.collections).toHaveLength(1);
    // A request that is not a probe, by its path, ends the quiet moment as any other.
    h.grow(80 * MiB);
    for (let second = 0; second < 10; second += 1) {
      h.request('/healthz-of-my-own');
      vi.advanceTimersByTime(1_000);
    }
    expect(h.collections).toHaveLength(1);
    h.release.stop();
  });

  it('collects once after a quiet period that follows growth, and says what it gave back', () => {
    const h = harness();
    h.request();
    h.grow(80 * MiB);
    vi.advanceTimersByTime(2_000);
    expect(h.collections).toHaveLength(0); // not quiet for long enough yet
    vi.advanceTimersByTime(3_000);
    expect(h.collections).toHaveLength(1);
    expect(h.lines).toEqual([
      {
        msg: 'idle: memory released',
        fields: { heapMiB: [180, 60], rssMiB: [360, 120], pauseMs: expect.any(Number) },
      },
    ]);
    // Still quiet, nothing grew since: no second pause.
    vi.advanceTimersByTime(60_000);
    expect(h.collections).toHaveLength(1);
    h.release.stop();
  });

  it('waits while requests keep arriving', () => {
    const h = harness();
    h.grow(80 * MiB);
    for (let second = 0; second < 30; second += 1) {
      h.request();
      vi.advanceTimersByTime(1_000);
    }
    expect(h.collections).toHaveLength(0);
    vi.advanceTimersByTime(4_000);
    expect(h.collections).toHaveLength(1);
    h.release.stop();
  });

  it('leaves small growth alone', () => {
    const h = harness();
    h.grow(31 * MiB);
    vi.advanceTimersByTime(60_000);
    expect(h.collections).toHaveLength(0);
    h.grow(2 * MiB);
    vi.advanceTimersByTime(5_000);
    expect(h.collections).toHaveLength(1);
    h.release.stop();
  });

  it('stops with the gateway', () => {
    const h = harness();
    h.grow(80 * MiB);
    h.release.stop();
    vi.advanceTimersByTime(60_000);
    expect(h.collections).toHaveLength(0);
  });

  it('is off at 0, and says so when Node does not expose the collector', () => {
    const off = harness({ idleMs: 0 });
    off.grow(80 * MiB);
    vi.advanceTimersByTime(60_000);
    expect(off.collections).toHaveLength(0);
    expect(off.lines).toEqual([]);

    const without = harness({ collector: false });
    expect(without.lines.map((line) => line.msg)).toEqual([
      'idle memory release off: node runs without --expose-gc',
    ]);
  });
});
