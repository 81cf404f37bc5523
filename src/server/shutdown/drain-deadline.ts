/**
 * The drain deadline (docs/deploy.md "Shutdown"). On SIGTERM the gateway lets in-flight requests
 * finish for up to SHUTDOWN_TIMEOUT_MS; a GraphQL request still executing as that runs out
 * ({@link drainSchedule}) is answered `503 SHUTTING_DOWN` (shutting-down-answer.ts) instead of
 * losing its connection: a cut socket tells a client nothing — not even whether its mutation
 * happened.
 *
 * The GraphQL route's handler runs the operation through {@link DrainDeadline.run}: whichever comes
 * first, the operation's own answer or the deadline's, is the one answer the handler returns, so
 * Fastify sends exactly one (its hooks, the `connection: close` of a draining server and the access
 * log line included). The operation itself goes on without anyone waiting for it, until the upstream
 * pool closes. An Apollo plugin notes which mutation fields a request started, for their
 * `outcome: "UNKNOWN"`.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonResponseType } from '../graphql-route/media-types.ts';
import { errorCodesOf, stampRequestId } from '../../errors/graphql-errors.ts';
import type { GatewayContext } from '../../kit/request-context.ts';
import {
  rootFieldsOf,
  shuttingDownAnswer,
  SHUTTING_DOWN_RETRY_AFTER_SEC,
  type RootField,
} from './shutting-down-answer.ts';

/**
 * How long before SHUTDOWN_TIMEOUT_MS ends the answers are sent: writing them (a few hundred bytes
 * each) takes a millisecond, and the connections that carried them close on their own
 * (`connection: close`); what is still open at SHUTDOWN_TIMEOUT_MS is cut. So the drain keeps its
 * bound, and the budget around it (the pool's 2 s after it, docker's 10 s) holds.
 */
const ANSWER_WRITE_MS = 250;

/** When the deadline answers go out and when the connections still open are cut. */
export function drainSchedule(timeoutMs: number): { answerAtMs: number; cutAtMs: number } {
  return {
    answerAtMs: timeoutMs - Math.min(ANSWER_WRITE_MS, Math.floor(timeoutMs / 4)),
    cutAtMs: timeoutMs,
  };
}

interface Execution {
  /** Ends the wait for the operation's own answer: the deadline answers instead. */
  readonly cut: () => void;
  operationName: string | null;
  /** The root fields of the mutation being executed; undefined while none is. */
  writes: readonly RootField[] | undefined;
}

export interface DrainDeadline {
  /**
   * The GraphQL route's handler: `execute`'s answer, unless {@link answerAll} comes first; then the
   * SHUTTING_DOWN answer (status, `retry-after` and content type set on `reply`).
   */
  run<Answer>(
    request: FastifyRequest,
    reply: FastifyReply,
    execute: () => Promise<Answer>,
  ): Promise<Answer | string>;
  /** Links an operation's context to its request (the route's `contextOf`); returns the context. */
  contextOf(request: FastifyRequest, context: GatewayContext): GatewayContext;
  /** Notes the operation each request resolved to (its name; a mutation's root fields). */
  readonly plugin: ApolloServerPlugin<GatewayContext>;
  /** Answers every request still executing; returns how many there were. */
  answerAll(): number;
}

const CUT = Symbol('cut at the drain deadline');

export function createDrainDeadline(options: {
  /** The read that tells whether a mutation field's write happened, where its domain names one. */
  readonly verifyWithOf: (mutationField: string) => string | undefined;
}): DrainDeadline {
  const executing = new Map<FastifyRequest, Execution>();
  /**
   * A request's execution, kept in its context: Apollo hands its plugins a shallow copy of the
   * context, which shares `scoped` (and so this slot) with the original.
   */
  const executionSlot = (): { execution?: Execution } => ({});

  const answer = (request: FastifyRequest, reply: FastifyReply, execution: Execution) => {
    const body = shuttingDownAnswer(execution.writes, options.verifyWithOf);
    stampRequestId(body.errors, request.id);
    const errorCodes = errorCodesOf(body.errors);
    request.operationLog = {
      operationName: execution.operationName,
      errors: body.errors.length,
      errorCodes,
      durationMs: Math.round(reply.elapsedTime),
    };
    reply
      .status(503)
      .header('retry-after', String(SHUTTING_DOWN_RETRY_AFTER_SEC))
      .header('cache-control', 'no-store')
      .header('content-type', jsonResponseType(request.headers));
    return JSON.stringify(body);
  };

  return {
    async run(request, reply, execute) {
      let cut!: () => void;
      const deadline = new Promise<typeof CUT>((resolve) => {
        cut = () => resolve(CUT);
      });
      const execution: Execution = { cut, operationName: null, writes: undefined };
      executing.set(request, execution);
      try {
        const operation = execute();
        const first = await Promise.race([operation, deadline]);
        if (first !== CUT) return first;
        // Nobody waits for the operation's answer any more; its failure is still the gateway's.
        operation.catch((error: unknown) =>
          request.log.error({ err: error }, 'graphql route failed after the drain deadline'),
        );
        return answer(request, reply, execution);
      } finally {
        executing.delete(request);
      }
    },
    contextOf(request, context) {
      const execution = executing.get(request);
      if (execution) context.scoped(executionSlot).execution = execution;
      return context;
    },
    plugin: {
      async requestDidStart({ contextValue }) {
        const { execution } = contextValue.scoped(executionSlot);
        if (!execution) return;
        return {
          // Before any resolver runs: from here on a mutation may have written.
          async didResolveOperation({ operation, document, operationName }) {
            execution.operationName = operationName ?? null;
            if (operation?.operation === 'mutation') {
              execution.writes = rootFieldsOf(operation, document);
            }
          },
        };
      },
    },
    answerAll() {
      const count = executing.size;
      for (const execution of executing.values()) execution.cut();
      return count;
    },
  };
}
