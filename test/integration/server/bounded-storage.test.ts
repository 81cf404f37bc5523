/**
 * What a client can make the gateway store is bounded: APQ documents only for authenticated
 * clients and at most APQ_MAX_PER_CREDENTIAL each; replayable responses keyed by the normalised
 * document (a comment or whitespace is not a new entry), at most RESPONSE_CACHE_MAX_PER_CREDENTIAL
 * held by each credential at a time.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const document = (n: number | string) =>
  `# ${randomUUID()}\nquery Q${n} { certificateCustomer(customerId: "demo-customer") { certificates(first: ${Number(n) || 1}) { totalCount } } }`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    env: { APQ_MAX_PER_CREDENTIAL: '2', RESPONSE_CACHE_MAX_PER_CREDENTIAL: '2' },
  });
});
afterAll(() => stack.close());

async function post(body: unknown, token: string | null = 'demo-token') {
  const res = await fetch(`${stack.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { headers: res.headers, body: (await res.json()) as any };
}

/** Whether the document is registered: its hash alone runs it. */
const registered = async (query: string, token: string | null = 'demo-token') =>
  (await post({ extensions: persisted(sha256(query)) }, token)).body.errors?.[0]?.message !==
  'PersistedQueryNotFound';

// APQ first: its operations run with demo-token; the response-cache cases use other credentials.
describe('APQ registration', () => {
  it('stores nothing for an unauthenticated client, but still runs its operation', async () => {
    const query = `# ${randomUUID()}\n{ __typename }`;
    const answer = await post({ query, extensions: persisted(sha256(query)) }, null);
    expect(answer.body.data).toEqual({ __typename: 'Query' });
    expect(await registered(query, null)).toBe(false);
  });

  it('stores at most APQ_MAX_PER_CREDENTIAL documents per credential', async () => {
    const queries = [1, 2, 3].map(document);
    for (const query of queries) {
      const answer = await post({ query, extensions: persisted(sha256(query)) });
      expect(answer.body.errors).toBeUndefined(); // every operation runs
    }
    expect(await Promise.all(queries.map((q) => registered(q)))).toEqual([true, true, false]);
  });
});

describe('whole-response cache', () => {
  it('keys by the normalised document: a comment or whitespace is the same entry', async () => {
    const query = `query Same { certificateCustomer(customerId: "demo-customer") { certificates(first: 4) { totalCount } } }`;
    await post({ query }, 'demo-readonly');
    const reworded = await post(
      { query: `# a comment\n${query.replaceAll(' ', '   ')}` },
      'demo-readonly',
    );
    expect(reworded.headers.get('x-weft-response-cache')).toBe('hit');
    // A replay answers in the type the client prefers, like any other answer.
    const res = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        authorization: 'Bearer demo-readonly',
      },
      body: JSON.stringify({ query }),
    });
    expect(res.headers.get('x-weft-response-cache')).toBe('hit');
    expect(res.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
  });

  it('holds at most RESPONSE_CACHE_MAX_PER_CREDENTIAL responses per credential, forgetting the oldest', async () => {
    const query = (n: number) =>
      `query Q${n} { certificateCustomer(customerId: "demo-customer") { certificates(first: ${n}) { totalCount } } }`;
    const replayed = async (n: number) =>
      (await post({ query: query(n) }, 'demo-readonly')).headers.get('x-weft-response-cache');
    // demo-readonly holds one response from the case above ("Same"); three more are stored in turn.
    for (const n of [5, 6, 7]) expect(await replayed(n)).toBeNull();
    // Only the last two are held: "Same" and Q5 were forgotten for room, oldest first.
    expect(await replayed(7)).toBe('hit');
    expect(await replayed(6)).toBe('hit');
    // A forgotten response is stored again on its next miss (it forgets Q6, now the oldest):
    // a client past its bound still gets its screens replayed.
    expect(await replayed(5)).toBeNull();
    expect(await replayed(5)).toBe('hit');
    expect(await replayed(7)).toBe('hit');
    expect(await replayed(6)).toBeNull();
    // Another credential's responses were never part of this count.
    expect(
      (await post({ query: query(5) }, 'demo-token')).headers.get('x-weft-response-cache'),
    ).toBeNull();
    expect(
      (await post({ query: query(5) }, 'demo-token')).headers.get('x-weft-response-cache'),
    ).toBe('hit');
  });
});

describe('persisted queries over GET', () => {
  it('are kept privately for their freshness, validated by ETag, and answered 304 when unchanged', async () => {
    const query = `query Cacheable { apps { appId name } }`;
    const hash = sha256(query);
    // Register (POST with the text), as an APQ client does after its first miss.
    await post({ query, extensions: persisted(hash) }, 'demo-other');
    const url = `${stack.url}/graphql?${new URLSearchParams({
      operationName: 'Cacheable',
      extensions: JSON.stringify(persisted(hash)),
    })}`;
    const headers = { authorization: 'Bearer demo-other' };
    const first = await fetch(url, { headers });
    expect(first.status).toBe(200);
    const cacheControl = first.headers.get('cache-control') ?? '';
    expect(cacheControl).toMatch(/^private, max-age=\d+$/);
    expect(Number(cacheControl.split('=')[1])).toBeGreaterThan(0);
    expect(cacheControl).not.toMatch(/public/);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const body = await first.json();

    const again = await fetch(url, { headers: { ...headers, 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');

    const replayed = await fetch(url, { headers });
    expect(replayed.headers.get('x-weft-response-cache')).toBe('hit');
    expect(await replayed.json()).toEqual(body);
  });
});
