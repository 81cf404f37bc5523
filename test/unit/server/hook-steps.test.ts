/** The GraphQL route's checks as steps of one hook: Fastify's order and stopping rules, fewer promises. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { hookSteps, type HookStep } from '../../../src/server/graphql-route/hook-steps.ts';

const request = {} as FastifyRequest;
const replyOf = () => ({ sent: false }) as { sent: boolean } & FastifyReply;

/** Runs the hook; resolves with what it passed to `done` (or 'answered' when it never called it). */
function run(steps: HookStep[], reply = replyOf()): Promise<{ error?: unknown; ran: string[] }> {
  return new Promise((resolve) => {
    const ran: string[] = [];
    const traced = steps.map((step, index) => (req: FastifyRequest, rep: FastifyReply) => {
      ran.push(`step ${index}`);
      return step(req, rep);
    });
    hookSteps(...traced)(request, reply, (error) => resolve({ error, ran }));
    // A step that answered ends the hook without `done`. The steps here only await promises, so
    // every one has settled once the microtask queue is empty: the next macrotask checks.
    setImmediate(() => resolve({ error: 'answered', ran }));
  });
}

describe('hookSteps', () => {
  it('runs every step in order and goes on, synchronously when no step is asynchronous', () => {
    const ran: number[] = [];
    let doneCalled = false;
    hookSteps(
      () => ran.push(1) && undefined,
      () => ran.push(2) && undefined,
    )(request, replyOf(), () => (doneCalled = true));
    expect(ran).toEqual([1, 2]);
    expect(doneCalled).toBe(true); // before any microtask
  });

  it('waits for an asynchronous step before the next', async () => {
    const order: string[] = [];
    await run([
      async () => {
        await Promise.resolve();
        order.push('async');
      },
      () => void order.push('after'),
    ]);
    expect(order).toEqual(['async', 'after']);
  });

  it('stops once a step answered, synchronously or not, without going on', async () => {
    const reply = replyOf();
    const answered = await run(
      [
        (_req, rep) => {
          (rep as { sent: boolean }).sent = true;
          return rep;
        },
        () => {
          throw new Error('must not run');
        },
      ],
      reply,
    );
    expect(answered).toEqual({ error: 'answered', ran: ['step 0'] });

    const later = replyOf();
    const answeredLater = await run(
      [
        async (_req, rep) => {
          await Promise.resolve();
          (rep as { sent: boolean }).sent = true;
        },
        () => {
          throw new Error('must not run');
        },
      ],
      later,
    );
    expect(answeredLater.ran).toEqual(['step 0']);
    expect(answeredLater.error).toBe('answered');
  });

  it('fails the request with the error of a step that throws or rejects', async () => {
    const thrown = await run([
      () => {
        throw new Error('sync failure');
      },
    ]);
    expect((thrown.error as Error).message).toBe('sync failure');
    const rejected = await run([() => Promise.reject(new Error('async failure')), () => undefined]);
    expect((rejected.error as Error).message).toBe('async failure');
    expect(rejected.ran).toEqual(['step 0']);
  });
});
