/**
 * The body a request cut off by the drain deadline receives: a query is told to send it again; each
 * root field of a mutation gets its own SHUTTING_DOWN error, at its path, with `outcome: "UNKNOWN"`
 * and the read that tells whether it happened when its domain names one.
 */
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  rootFieldsOf,
  shuttingDownAnswer,
} from '../../../../src/server/shutdown/shutting-down-answer.ts';

const rootFields = (source: string) => {
  const document = parse(source);
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  )!;
  return rootFieldsOf(operation, document);
};

const verifyWithOf = (field: string) => (field === 'createApp' ? 'apps { appId name }' : undefined);

describe('the SHUTTING_DOWN answer', () => {
  it('tells a query (or an operation not yet executing) to send it again', () => {
    expect(shuttingDownAnswer(undefined, verifyWithOf)).toEqual({
      errors: [
        {
          message: expect.stringMatching(/shutting down.*send it again in 1 s/),
          extensions: { code: 'SHUTTING_DOWN', retryAfterSec: 1 },
        },
      ],
    });
  });

  it('gives each root field of a mutation an unknown outcome at its path', () => {
    const writes = rootFields(`
      mutation Two {
        __typename
        made: createApp(input: { name: "a" }) { job { jobId } }
        ... on Mutation { createApp(input: { name: "b" }) { job { jobId } } }
        ...Order
      }
      fragment Order on Mutation { createOrder(input: {}) { id } ...Order }
    `);
    expect(writes).toEqual([
      { responseKey: 'made', fieldName: 'createApp' },
      { responseKey: 'createApp', fieldName: 'createApp' },
      { responseKey: 'createOrder', fieldName: 'createOrder' },
    ]);
    const answer = shuttingDownAnswer(writes, verifyWithOf);
    expect(answer.data).toBeNull();
    expect(answer.errors.map(({ path, extensions }) => ({ path, extensions }))).toEqual([
      {
        path: ['made'],
        extensions: {
          code: 'SHUTTING_DOWN',
          retryAfterSec: 1,
          outcome: 'UNKNOWN',
          verifyWith: 'apps { appId name }',
        },
      },
      {
        path: ['createApp'],
        extensions: {
          code: 'SHUTTING_DOWN',
          retryAfterSec: 1,
          outcome: 'UNKNOWN',
          verifyWith: 'apps { appId name }',
        },
      },
      // No read named for it: the message says to read what it changes.
      {
        path: ['createOrder'],
        extensions: { code: 'SHUTTING_DOWN', retryAfterSec: 1, outcome: 'UNKNOWN' },
      },
    ]);
    expect(answer.errors[0]!.message).toContain(
      'Read `apps { appId name }` before sending it again',
    );
    expect(answer.errors[2]!.message).toContain('createOrder');
  });
});
