/**
 * The whole-response cache's store failures are logged once per outage, not once per answer: while
 * Redis is down every answer offered to it fails the same way, and a line per request would flood
 * the log (`response-replay.hook.ts`).
 */
import { describe, expect, it } from 'vitest';
import type { GraphqlResponseCache } from '../../../src/server/response-cache/graphql-response-cache.ts';
import type { HeldReplays } from '../../../src/server/response-cache/held-replays.ts';
import { responseReplayPlugin } from '../../../src/server/response-cache/response-replay.hook.ts';
import { createResultEncoding } from '../../../src/server/response-cache/result-encoding.ts';

function storeWith(up: { ok: boolean }) {
  const lines: { level: string; msg: string }[] = [];
  const logger = {
    warn: (_fields: unknown, msg: string) => lines.push({ level: 'warn', msg }),
    info: (msg: string) => lines.push({ level: 'info', msg }),
  };
  const cache = {
    offer: async () => {
      if (!up.ok) throw new Error('Redis Cluster node 127.0.0.1:7010 is not connected');
      return { etag: '"e"', freshUntil: Date.now() + 60_000 };
    },
    forget: async () => undefined,
  } as unknown as GraphqlResponseCache;
  const held = { hold: async () => [] } as unknown as HeldReplays;
  const plugin = responseReplayPlugin(cache, held, createResultEncoding());
  const answer = async () => {
    const contextValue = {
      replayKey: 'key',
      facts: { replayability: { cacheable: true } },
      credential: { id: 'credential-id' },
      logger,
    };
    const hooks = (await plugin.requestDidStart!({ contextValue } as never)) as {
      willSendResponse(context: unknown): Promise<void>;
    };
    await hooks.willSendResponse({
      response: {
        body: { kind: 'single', singleResult: { data: { a: 1 } } },
        http: { headers: new Map() },
      },
      operation: { operation: 'query' },
      operationName: 'A',
    });
  };
  return { answer, lines };
}

describe('whole-response cache store failures', () => {
  it('are logged once while they last, and once more when storing works again', async () => {
    const up = { ok: false };
    const { answer, lines } = storeWith(up);
    for (let i = 0; i < 5; i += 1) await answer();
    expect(lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    up.ok = true;
    await answer();
    await answer();
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringContaining('response cache: store failed'),
      'response cache: storing again',
    ]);
    up.ok = false;
    await answer();
    expect(lines.filter((line) => line.level === 'warn')).toHaveLength(2);
  });
});
