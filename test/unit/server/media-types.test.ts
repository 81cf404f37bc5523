/** The GraphQL route's one content negotiation (negotiator), as real clients send Accept. */
import { describe, expect, it } from 'vitest';
import {
  acceptsJson,
  asksForEventStream,
  jsonResponseType,
  partsAccept,
  partsFormat,
  prefersEventStream,
  prefersHtml,
  readsParts,
} from '../../../src/server/graphql-route/media-types.ts';

const URQL =
  'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed';
const APOLLO_CLIENT = 'application/graphql-response+json,application/json;q=0.9';
const BROWSER =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const GRAPHQL_SSE = 'text/event-stream';
/** Apollo Client 4's Accept for an operation with @defer (its Defer20220824Handler). */
const APOLLO_CLIENT_DEFER =
  'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9';
/** Apollo Client 4's Accept for an operation with @defer or @stream (its GraphQL17Alpha9Handler). */
const APOLLO_CLIENT_ALPHA9 =
  'multipart/mixed;incrementalSpec=v0.2,application/graphql-response+json,application/json;q=0.9';
const DEFER_SPEC = 'multipart/mixed; deferSpec=20220824';
const INCREMENTAL_SPEC = 'multipart/mixed; incrementalSpec=v0.2';

const h = (accept?: string) => ({ accept });

describe('content negotiation', () => {
  it('answers JSON in the type the client prefers, plain JSON on a tie or without Accept', () => {
    expect(jsonResponseType(h(URQL))).toMatch(/^application\/graphql-response\+json;/);
    expect(jsonResponseType(h(APOLLO_CLIENT))).toMatch(/^application\/graphql-response\+json;/);
    expect(
      jsonResponseType(h('application/json, application/graphql-response+json;q=0.5')),
    ).toMatch(/^application\/json;/);
    expect(jsonResponseType(h('*/*'))).toMatch(/^application\/json;/);
    expect(jsonResponseType(h())).toMatch(/^application\/json;/);
  });

  it('accepts JSON unless every JSON type is excluded', () => {
    expect(acceptsJson(h())).toBe(true);
    expect(acceptsJson(h(URQL))).toBe(true);
    expect(acceptsJson(h(BROWSER))).toBe(true);
    expect(acceptsJson(h(GRAPHQL_SSE))).toBe(false);
    expect(acceptsJson(h('application/json;q=0, */*;q=0'))).toBe(false);
  });

  it('serves the explorer only to a client that prefers HTML', () => {
    expect(prefersHtml(h(BROWSER))).toBe(true);
    expect(prefersHtml(h('*/*'))).toBe(false);
    expect(prefersHtml(h('text/html;q=0.5, application/json'))).toBe(false);
    expect(prefersHtml(h(URQL))).toBe(false);
    expect(prefersHtml(h())).toBe(false);
  });

  it('streams only for clients that name text/event-stream; prefers it only when it comes first', () => {
    expect(asksForEventStream(h(GRAPHQL_SSE))).toBe(true);
    expect(asksForEventStream(h(URQL))).toBe(true);
    expect(asksForEventStream(h('*/*'))).toBe(false);
    expect(asksForEventStream(h('text/event-stream;q=0, application/json'))).toBe(false);
    expect(prefersEventStream(h(GRAPHQL_SSE))).toBe(true);
    expect(prefersEventStream(h(URQL))).toBe(false);
  });

  it('answers in parts only clients that name multipart/mixed in a format Weft writes or with none', () => {
    expect(readsParts(h(APOLLO_CLIENT_DEFER))).toBe(true);
    expect(readsParts(h(APOLLO_CLIENT_ALPHA9))).toBe(true);
    expect(readsParts(h(URQL))).toBe(true);
    expect(readsParts(h('multipart/mixed'))).toBe(true);
    expect(readsParts(h(APOLLO_CLIENT))).toBe(false);
    expect(readsParts(h('*/*'))).toBe(false);
    expect(readsParts(h('multipart/*, application/json'))).toBe(false);
    expect(readsParts(h('multipart/mixed;incrementalSpec=v0.3, application/json'))).toBe(false);
    expect(readsParts(h('multipart/mixed;q=0, application/json'))).toBe(false);
    expect(readsParts(h())).toBe(false);
  });

  it('writes parts in the format the client names; the 2022 one when it names none', () => {
    expect(partsFormat(h(APOLLO_CLIENT_DEFER))).toBe(DEFER_SPEC);
    expect(partsFormat(h(APOLLO_CLIENT_ALPHA9))).toBe(INCREMENTAL_SPEC);
    expect(partsFormat(h(URQL))).toBe(DEFER_SPEC);
    // Both named: the client's q-values, then its order.
    expect(
      partsFormat(h('multipart/mixed;incrementalSpec=v0.2, multipart/mixed;deferSpec=20220824')),
    ).toBe(INCREMENTAL_SPEC);
    expect(
      partsFormat(h('multipart/mixed;deferSpec=20220824, multipart/mixed;incrementalSpec=v0.2')),
    ).toBe(DEFER_SPEC);
    expect(
      partsFormat(
        h('multipart/mixed;deferSpec=20220824;q=0.5, multipart/mixed;incrementalSpec=v0.2'),
      ),
    ).toBe(INCREMENTAL_SPEC);
    expect(partsFormat(h(APOLLO_CLIENT))).toBeUndefined();
  });

  it("hands Apollo the client's format and keeps its JSON type", () => {
    expect(partsAccept(h(APOLLO_CLIENT_ALPHA9))).toBe(
      'multipart/mixed; incrementalSpec=v0.2, application/graphql-response+json',
    );
    expect(partsAccept(h(URQL))).toBe(
      'multipart/mixed; deferSpec=20220824, application/graphql-response+json',
    );
    expect(partsAccept(h('multipart/mixed, application/json'))).toBe(
      'multipart/mixed; deferSpec=20220824, application/json',
    );
    expect(partsAccept(h('multipart/mixed'))).toBe(
      'multipart/mixed; deferSpec=20220824, application/json',
    );
  });
});
