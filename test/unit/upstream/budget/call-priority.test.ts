/** The priority of each upstream call, and what a client may ask for with `Weft-Priority`. */
import { describe, expect, it } from 'vitest';
import type { CacheRule, RoutePolicy } from '../../../../src/upstream/route-policy.ts';
import {
  priorityOf,
  requestPriorityOf,
  reserveShareOf,
  reservedCalls,
} from '../../../../src/upstream/budget/call-priority.ts';
import { createCredentialFactory } from '../../../../src/upstream/credential.ts';
import type { RequestPriority } from '../../../../src/upstream/request-scope.ts';
import type { HttpMethod } from '../../../../src/upstream/upstream-call.ts';
import type { RoutedCall } from '../../../../src/upstream/upstream-routes.ts';

const credential = createCredentialFactory('unit-test-secret-0123456789')('demo-token');
const rule: CacheRule = { kind: 'thing', ttlSec: 60, tags: () => [] };

const CACHED: RoutePolicy = { type: 'cache', rule };
const INVALIDATES: RoutePolicy = { type: 'invalidate', tags: () => ['thing:1'] };
const GRAPHQL: RoutePolicy = { type: 'graphql', rule, invalidates: () => [] };
const NEVER: RoutePolicy = { type: 'never', why: 'a secret' };

function call(
  method: HttpMethod,
  policy: RoutePolicy | undefined,
  priority?: RequestPriority,
  body?: unknown,
): RoutedCall {
  return {
    method,
    route: '/v2/things',
    credential,
    body,
    scope: { credential, requestId: 'r', ...(priority ? { priority } : {}) },
    declared: policy ? { method, route: '/v2/things', cache: policy, breaker: 'test' } : undefined,
  };
}

const QUERY = { query: 'query Things { things { id } }' };
const MUTATION = { query: 'mutation Deploy { deploy(id: "1") { id } }' };

describe('priorityOf', () => {
  it('makes a cached GET a read', () => {
    expect(priorityOf(call('GET', CACHED))).toBe('read');
  });

  it('makes a write that invalidates a write', () => {
    expect(priorityOf(call('POST', INVALIDATES))).toBe('write');
  });

  it("tells a GraphQL query from a mutation on a graphql route by the body's operation", () => {
    expect(priorityOf(call('POST', GRAPHQL, undefined, QUERY))).toBe('read');
    expect(priorityOf(call('POST', GRAPHQL, undefined, MUTATION))).toBe('write');
    // A body that names no single operation may write.
    const two = { query: `${QUERY.query} ${MUTATION.query}` };
    expect(priorityOf(call('POST', GRAPHQL, undefined, two))).toBe('write');
    expect(priorityOf(call('POST', GRAPHQL, undefined, { ...two, operationName: 'Things' }))).toBe(
      'read',
    );
  });

  it('treats an undeclared call by its method: a POST may write, a GET reads', () => {
    expect(priorityOf(call('POST', undefined))).toBe('write');
    expect(priorityOf(call('DELETE', undefined))).toBe('write');
    expect(priorityOf(call('GET', undefined))).toBe('read');
    // A route never cached is judged by its method too.
    expect(priorityOf(call('PUT', NEVER))).toBe('write');
    expect(priorityOf(call('GET', NEVER))).toBe('read');
  });

  it('keeps background work background, writes included', () => {
    expect(priorityOf(call('GET', CACHED, 'background'))).toBe('background');
    expect(priorityOf(call('POST', INVALIDATES, 'background'))).toBe('background');
    expect(priorityOf(call('POST', GRAPHQL, 'background', MUTATION))).toBe('background');
  });

  it("raises the explorer's writes to write, and keeps its reads last", () => {
    expect(priorityOf(call('POST', INVALIDATES, 'explorer'))).toBe('write');
    expect(priorityOf(call('POST', GRAPHQL, 'explorer', MUTATION))).toBe('write');
    expect(priorityOf(call('GET', CACHED, 'explorer'))).toBe('explorer');
    expect(priorityOf(call('POST', GRAPHQL, 'explorer', QUERY))).toBe('explorer');
  });

  it('makes a call outside any request a user read or write', () => {
    const outside: RoutedCall = {
      method: 'GET',
      route: '/v2/things',
      credential,
      declared: undefined,
    };
    expect(priorityOf(outside)).toBe('read');
    expect(priorityOf({ ...outside, method: 'PATCH' })).toBe('write');
  });
});

describe('requestPriorityOf (the Weft-Priority header)', () => {
  it('lets a client lower itself to background or explorer', () => {
    expect(requestPriorityOf('background')).toBe('background');
    expect(requestPriorityOf('explorer')).toBe('explorer');
    expect(requestPriorityOf(' Background ')).toBe('background');
    expect(requestPriorityOf(['EXPLORER', 'write'])).toBe('explorer');
  });

  it('never raises a client: anything else is an ordinary user request', () => {
    for (const header of ['write', 'urgent', 'high', 'user', 'read', '', undefined, ['write']]) {
      expect(requestPriorityOf(header)).toBe('user');
    }
  });
});

describe('the reserve of each priority', () => {
  it('keeps a tenth for writes, 15 % from background and 20 % from the explorer', () => {
    const of = (priority: Parameters<typeof reserveShareOf>[0]) =>
      reservedCalls(600, reserveShareOf(priority, 0.1));
    expect([of('write'), of('read'), of('background'), of('explorer')]).toEqual([0, 60, 90, 120]);
    // Without a write reserve the lower priorities still stop earlier than reads.
    expect(reservedCalls(100, reserveShareOf('read', 0))).toBe(0);
    expect(reservedCalls(100, reserveShareOf('explorer', 0))).toBe(10);
  });
});
