/**
 * Several checks of the GraphQL route run as one Fastify hook, in the order given: a step runs only
 * while no step before it has answered (what Fastify's hook runner does between hooks), and a step
 * that answers synchronously, or has nothing to do, costs no promise — each async hook cost one, and
 * a trip through the microtask queue, on every request (a replayed answer passed ten of them).
 *
 * A step returns nothing (go on), the reply it answered with, or a promise of either; a step that
 * throws or rejects fails the request as a failing hook does (the route's error handler).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export type HookStep = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** A callback hook (onRequest, preHandler) running the steps in order. */
export function hookSteps(
  ...steps: readonly HookStep[]
): (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void {
  return (request, reply, done) => {
    let index = 0;
    const next = (): void => {
      while (index < steps.length) {
        if (reply.sent) return;
        let result: unknown;
        try {
          result = steps[index++]!(request, reply);
        } catch (error) {
          done(error as Error);
          return;
        }
        if (result instanceof Promise) {
          result.then(next, done);
          return;
        }
      }
      if (!reply.sent) done();
    };
    next();
  };
}
