/** Which errors are logged as incidents: only those the gateway masks as internal. */
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/error-codes.ts';
import { GatewayError } from '../../../src/errors/gateway-errors.ts';
import { requestLifecyclePlugin } from '../../../src/server/apollo/request-lifecycle.plugin.ts';

async function loggedAsErrors(errors: GraphQLError[]): Promise<unknown[]> {
  const logged: unknown[] = [];
  const logger = { error: (entry: unknown) => logged.push(entry), info: () => undefined };
  const hooks = await requestLifecyclePlugin().requestDidStart!({
    contextValue: { logger, requestId: 'r-1' },
  } as never);
  await (hooks as { didEncounterErrors: (context: unknown) => Promise<void> }).didEncounterErrors({
    errors,
    operationName: 'Op',
  });
  return logged;
}

describe('requestLifecyclePlugin error logging', () => {
  it('logs an untyped resolver failure at error level', async () => {
    const bug = new GraphQLError('x is undefined', {
      path: ['apps'],
      originalError: new TypeError('x is undefined'),
    });
    expect(await loggedAsErrors([bug])).toEqual([
      expect.objectContaining({ path: ['apps'], operationName: 'Op' }),
    ]);
  });

  it('does not log client mistakes or typed gateway errors as incidents', async () => {
    const coercion = new GraphQLError('Variable "$first" got an invalid value.', {
      extensions: { code: ErrorCode.BAD_USER_INPUT },
    });
    const parse = new GraphQLError('Syntax Error', {
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
      originalError: new Error('Syntax Error'),
    });
    const typed = new GraphQLError('nope', {
      path: ['app'],
      originalError: new GatewayError(ErrorCode.NOT_FOUND, 'no such app'),
    });
    expect(await loggedAsErrors([coercion, parse, typed])).toEqual([]);
  });
});
