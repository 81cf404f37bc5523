import { describe, expect, it } from 'vitest';
import { createResultEncoding } from '../../../src/server/response-cache/result-encoding.ts';

/** Apollo Server's default `stringifyResult` (runHttpQuery.js prettyJSONStringify). */
const apolloDefault = (value: unknown) => `${JSON.stringify(value)}\n`;

const data = () => ({
  store: { name: 'Main "street" \u2028 store', transactions: [{ id: 't1', amount: 1.5 }, null] },
  empty: [],
});

describe('result encoding shared by the response cache and the answer', () => {
  it('sends the same bytes as Apollo for answers with and without extensions', () => {
    const encoding = createResultEncoding();
    const answers = [
      { data: data() },
      { data: data(), extensions: { rateLimit: { remaining: 599 }, stale: undefined } },
      { data: data(), extensions: {} },
    ];
    for (const answer of answers) {
      const expected = apolloDefault({ errors: undefined, ...answer });
      expect(encoding.stringifyResult(answer)).toBe(expected); // not encoded: Apollo's own way
      encoding.encodeData(answer.data);
      expect(encoding.stringifyResult(answer)).toBe(expected); // encoded once, reused
    }
  });

  it('reuses the text encoded for the cache instead of encoding the data again', () => {
    const encoding = createResultEncoding();
    const answer = { data: data() };
    const text = encoding.encodeData(answer.data);
    expect(text).toBe(JSON.stringify(answer.data));
    // A change after encoding is not seen: the answer is exactly what the cache stored.
    answer.data.store.name = 'changed';
    expect(encoding.stringifyResult(answer)).toBe(`{"data":${text}}\n`);
    expect(encoding.encodeData(answer.data)).toBe(text);
  });

  it('serialises answers with errors, without data or of other objects as Apollo does', () => {
    const encoding = createResultEncoding();
    const shared = data();
    encoding.encodeData(shared);
    const answers = [
      { errors: [{ message: 'boom', path: ['store'] }], data: shared },
      { errors: [{ message: 'refused', extensions: { code: 'BAD_USER_INPUT' } }] },
      { data: null },
      { data: data(), extensions: { a: 1 } },
    ];
    for (const answer of answers) {
      expect(encoding.stringifyResult(answer)).toBe(
        apolloDefault({ errors: undefined, data: undefined, extensions: undefined, ...answer }),
      );
    }
  });
});
