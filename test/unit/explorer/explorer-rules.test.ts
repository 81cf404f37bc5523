/**
 * The explorer's text rules, without a browser: how a header editor's text gives the shared token
 * and takes it, what the explorer's storage keeps of a bearer token, and the operation name a
 * request carries after a tab switch. The browser test drives the same rules through GraphiQL.
 */
import { describe, expect, it } from 'vitest';
import { operationLabel, ownOperationName } from '../../../explorer/fetcher.ts';
import { scrubBearer } from '../../../explorer/safe-storage.ts';
import { createSharedToken, tokenRules } from '../../../explorer/shared-token.ts';

const PLACEHOLDER = 'Bearer <your token>';
const { tokenIn, withToken } = tokenRules(PLACEHOLDER);

describe('the shared token', () => {
  it("is what the user's edit says: a token, or none (removed, placeholder), or undecided mid-edit", () => {
    expect(tokenIn('{"Authorization": "Bearer demo-token"}')).toBe('Bearer demo-token');
    expect(tokenIn('{"authorization": "Bearer x", "X-Other": "1"}')).toBe('Bearer x');
    expect(tokenIn(`{"Authorization": "${PLACEHOLDER}"}`)).toBeNull();
    expect(tokenIn('{}')).toBeNull();
    expect(tokenIn('')).toBeNull();
    expect(tokenIn('{"Authorization": "Bearer demo')).toBeUndefined();
    expect(tokenIn('[1]')).toBeUndefined();
  });

  it('is written into a tab, over the placeholder or an older token, keeping other headers', () => {
    const placeholder = `{\n  "Authorization": "${PLACEHOLDER}"\n}`;
    expect(JSON.parse(withToken(placeholder, 'Bearer a'))).toEqual({ Authorization: 'Bearer a' });
    expect(
      JSON.parse(withToken('{"authorization": "Bearer old", "X-Store-Id": "s"}', 'Bearer a')),
    ).toEqual({ authorization: 'Bearer a', 'X-Store-Id': 's' });
    expect(JSON.parse(withToken('{}', 'Bearer a'))).toEqual({ Authorization: 'Bearer a' });
    // Already agreeing, or not an object: the text is left as it is (no edit, no cursor jump).
    expect(withToken('{"Authorization":"Bearer a"}', 'Bearer a')).toBe(
      '{"Authorization":"Bearer a"}',
    );
    expect(withToken('{"Authorization": "Bear', 'Bearer a')).toBe('{"Authorization": "Bear');
  });

  it('once removed, puts the placeholder back where a tab had a token, and nowhere else', () => {
    expect(JSON.parse(withToken('{"Authorization": "Bearer old"}', null))).toEqual({
      Authorization: PLACEHOLDER,
    });
    expect(withToken('{}', null)).toBe('{}');
    expect(withToken(`{"Authorization": "${PLACEHOLDER}"}`, null)).toBe(
      `{"Authorization": "${PLACEHOLDER}"}`,
    );
  });

  it('is kept in the session storage given, and tells its subscribers', () => {
    const items = new Map<string, string>();
    const storage = {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => void items.set(key, value),
      removeItem: (key: string) => void items.delete(key),
    };
    const token = createSharedToken(storage);
    let told = 0;
    const unsubscribe = token.subscribe(() => (told += 1));
    token.set('Bearer a');
    token.set('Bearer a');
    expect(told).toBe(1);
    expect(createSharedToken(storage).get()).toBe('Bearer a');
    token.set(null);
    expect(items.size).toBe(0);
    unsubscribe();
    token.set('Bearer b');
    expect(told).toBe(2);
  });
});

describe("the explorer's storage", () => {
  it('replaces every bearer token with the placeholder', () => {
    const history = JSON.stringify([
      { headers: '{"Authorization": "Bearer demo-token"}' },
      { headers: '{\n  "authorization": "Bearer  x.y-z"\n}' },
    ]);
    const kept = scrubBearer(history, PLACEHOLDER);
    expect(kept).not.toMatch(/demo-token|x\.y-z/);
    expect(kept.split(PLACEHOLDER)).toHaveLength(3);
  });
});

describe('the operation name sent', () => {
  it("drops a name the document does not define (the previous tab's), keeps its own", () => {
    const query = 'query Hosting { apps { appId } }';
    expect(
      ownOperationName({ query, operationName: 'Certificates' }).operationName,
    ).toBeUndefined();
    expect(ownOperationName({ query, operationName: 'Hosting' }).operationName).toBe('Hosting');
    expect(ownOperationName({ query: '{ apps { appId } }' }).operationName).toBeUndefined();
  });

  it('names a run after the operation sent, else the first one of the query sent', () => {
    const query = '# query Commented { x }\nquery Hosting { apps { appId } } query Other { x }';
    expect(operationLabel({ query, operationName: 'Other' })).toBe('Other');
    expect(operationLabel({ query })).toBe('Hosting');
    expect(operationLabel({ query: '{ apps { appId } }' })).toBe('anonymous');
    expect(operationLabel({ query: '{ apps {' })).toBe('anonymous');
  });
});
