/**
 * The codes a client can receive are the ones docs/errors.md lists: the table's codes are exactly
 * CLIENT_ERROR_CODES, and formatGraphQLError (every error's way out) sends no other code, so a new
 * code reaches a client only with a doc line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CLIENT_ERROR_CODES, ErrorCode } from '../../../src/errors/error-codes.ts';
import { GatewayError } from '../../../src/errors/gateway-errors.ts';
import { formatGraphQLError } from '../../../src/errors/graphql-errors.ts';

/** The first column of the table in docs/errors.md: `| \`CODE\` | …`. */
function documentedCodes(): string[] {
  const doc = readFileSync(join(import.meta.dirname, '../../../docs/errors.md'), 'utf8');
  return [...doc.matchAll(/^\| `([A-Z_]+)` +\|/gm)].map((match) => match[1]!);
}

describe('error codes', () => {
  it('docs/errors.md lists every code the gateway sends, once, and no other', () => {
    const documented = documentedCodes();
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...CLIENT_ERROR_CODES].sort());
  });

  it('keeps each listed code of a request error as it is', () => {
    for (const code of CLIENT_ERROR_CODES) {
      if (code === ErrorCode.INTERNAL_SERVER_ERROR) continue;
      const error = new GraphQLError('refused', { extensions: { code } });
      expect(formatGraphQLError(error.toJSON(), error).extensions?.code).toBe(code);
    }
  });

  it('sends a request error with a code nobody was told of as BAD_REQUEST', () => {
    const error = new GraphQLError('a library refused it', {
      extensions: { code: 'SOME_NEW_LIBRARY_CODE', http: { status: 400 } },
    });
    expect(formatGraphQLError(error.toJSON(), error)).toMatchObject({
      message: 'a library refused it',
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  it('masks a failure with an unlisted code, or none, as INTERNAL_SERVER_ERROR', () => {
    const coded = new GraphQLError('boom', {
      path: ['apps'],
      extensions: { code: 'SOME_NEW_LIBRARY_CODE' },
    });
    const bug = new GraphQLError('x is undefined', {
      path: ['apps'],
      originalError: new TypeError('x is undefined'),
    });
    for (const error of [coded, bug]) {
      expect(formatGraphQLError(error.toJSON(), error)).toMatchObject({
        message: 'Internal server error',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
    }
  });

  it('gives a typed gateway error its own code', () => {
    const error = new GraphQLError('nope', {
      path: ['app'],
      originalError: new GatewayError(ErrorCode.NOT_FOUND, 'no such app'),
    });
    expect(formatGraphQLError(error.toJSON(), error).extensions?.code).toBe('NOT_FOUND');
  });
});
