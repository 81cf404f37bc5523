/**
 * An error message quotes at most a bounded excerpt of the input: graphql-js quotes a literal that
 * does not fit its type, and a 10 KB argument must not come back (or reach a log) whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_LENGTH } from '../../../src/errors/graphql-errors.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe('error messages', () => {
  it('quote a long literal only as a bounded excerpt, in the response and the logs', async () => {
    const marker = 'Q'.repeat(10_000);
    const { status, body } = await stack.gql(
      `{ app(appId: "app-0001") { deployments(limit: "${marker}") { totalCount } } }`,
    );
    expect(status).toBe(400);
    const [error] = body.errors;
    expect(error.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(error.message.startsWith('Int cannot represent non-integer value')).toBe(true);
    expect(error.message.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(error.message.endsWith('…')).toBe(true);
    expect(stack.logs.join('\n')).not.toContain('Q'.repeat(MAX_MESSAGE_LENGTH));
  });
});
