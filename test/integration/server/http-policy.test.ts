/**
 * The HTTP and Apollo policy of the GraphQL endpoint: content types, CSRF prevention, batching,
 * body size (multipart excepted), GET mutations, error masking in production, introspection switch.
 * Every refused request is asserted to have cost no upstream call.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const QUERY =
  '{ certificateCustomer(customerId: "demo-customer") { certificates(first: 1) { totalCount } } }';
const auth = { authorization: 'Bearer demo-token' };

describe('content types', () => {
  it('refuses non-JSON POSTs with 415 before reading them', async () => {
    for (const [contentType, body] of [
      ['text/plain', JSON.stringify({ query: QUERY })],
      ['text/plain;charset=UTF-8', JSON.stringify({ query: QUERY })],
      ['application/x-www-form-urlencoded', `query=${encodeURIComponent(QUERY)}`],
      ['application/graphql', QUERY],
      ['application/xml', '<query/>'],
    ] as const) {
      const res = await stack.http('POST', '/graphql', {
        headers: { ...auth, 'content-type': contentType, 'apollo-require-preflight': 'true' },
        body,
      });
      expect(res.status, contentType).toBe(415);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(res.body.errors[0].extensions.requestId).toBeTruthy();
    }
    const none = await stack.http('POST', '/graphql', { headers: auth, body: QUERY });
    expect(none.status).toBe(415);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('accepts application/json with a charset, and answers graphql-response+json when asked', async () => {
    const res = await stack.http('POST', '/graphql', {
      headers: {
        ...auth,
        'content-type': 'application/json; charset=utf-8',
        accept: 'application/graphql-response+json',
      },
      body: JSON.stringify({ query: QUERY }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/graphql-response+json');
    expect(res.body.data.certificateCustomer.certificates.totalCount).toBeGreaterThan(0);
  });
});

describe('CSRF prevention and GET', () => {
  it('refuses a GET a page could send cross-site, runs one with a token, and refuses any mutation over GET', async () => {
    // No header a simple request could not carry: what an <img> or a link on another site sends.
    const simple = await stack.http('GET', `/graphql?query=${encodeURIComponent(QUERY)}`);
    expect(simple.status).toBe(400);
    expect(simple.body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    // Authorization cannot be sent cross-site without a preflight: no extra header needed.
    const withToken = await stack.http('GET', `/graphql?query=${encodeURIComponent(QUERY)}`, {
      headers: auth,
    });
    expect(withToken.status).toBe(200);
    expect(withToken.body.errors).toBeUndefined();
    await stack.resetCounts();
    const mutation = await stack.http(
      'GET',
      `/graphql?query=${encodeURIComponent('mutation { reissueCertificate(input: { certificateId: "cert-0005" }) { userErrors { code } } }')}`,
      { headers: { ...auth, 'apollo-require-preflight': 'true' } },
    );
    expect(mutation.status).toBe(405);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses a multipart request without a preflight header or a token (a simple cross-site form)', async () => {
    const boundary = 'x-boundary';
    const res = await stack.http('POST', '/graphql', {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${JSON.stringify({ query: QUERY })}\r\n--${boundary}--\r\n`,
    });
    expect(res.status).toBe(400);
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('Cache-Control', () => {
  it('is no-store on answers that are not replayable: mutations, errors, live values', async () => {
    const live = await stack.gql('{ viewer { rateLimit { remaining } } }');
    expect(live.headers['cache-control']).toBe('no-store');
    const failed = await stack.gql('{ app(appId: "no-such-app") { name } }');
    expect(failed.headers['cache-control']).toBe('no-store');
    const mutation = await stack.gql(
      'mutation { createApp(input: { name: "cache-control-app" }) { job { jobId } } }',
    );
    expect(mutation.headers['cache-control']).toBe('no-store');
  });

  it('is private with the remaining freshness on a replayable answer', async () => {
    const first = await stack.gql('{ apps { appId } }', undefined, { token: 'demo-readonly' });
    expect(first.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
  });
});

describe('batching and body size', () => {
  it('refuses batched requests', async () => {
    const res = await stack.http('POST', '/graphql', {
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify([{ query: QUERY }, { query: QUERY }]),
    });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/batching/i);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('refuses a JSON body past 256 KiB with 413', async () => {
    const res = await stack.http('POST', '/graphql', {
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY, variables: { pad: 'x'.repeat(300 * 1024) } }),
    });
    expect(res.status).toBe(413);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('does not apply the JSON limit to a multipart upload (capped by UPLOAD_MAX_BYTES instead)', async () => {
    const boundary = 'weft-test-boundary';
    const operations = JSON.stringify({
      query:
        'mutation($file: Upload!) { uploadAppSource(input: { appId: "no-such-app", zipFile: $file }) { jobId userErrors { code } } }',
      variables: { file: null },
    });
    // A zip signature and 300 KiB of padding: larger than the JSON body limit.
    const file = `PK\u0003\u0004${'z'.repeat(300 * 1024)}`;
    const body = [
      `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}`,
      `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n${JSON.stringify({ 0: ['variables.file'] })}`,
      `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="app.zip"\r\nContent-Type: application/zip\r\n\r\n${file}`,
      `--${boundary}--\r\n`,
    ].join('\r\n');
    const res = await stack.http('POST', '/graphql', {
      headers: {
        ...auth,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'apollo-require-preflight': 'true',
      },
      body,
    });
    expect(res.status, res.text).not.toBe(413);
    expect(res.status, res.text).not.toBe(415);
    expect(res.body.data ?? res.body.errors).toBeTruthy();
  });
});

describe('introspection', () => {
  it('is on by default and off with INTROSPECTION=false', async () => {
    const on = await stack.gql('{ __schema { queryType { name } } }', undefined, { token: null });
    expect(on.body.data.__schema.queryType.name).toBe('Query');

    const closed = await startStack({ env: { INTROSPECTION: 'false' } });
    try {
      for (const query of [
        '{ __schema { queryType { name } } }',
        '{ __type(name: "Query") { name } }',
      ]) {
        const off = await closed.gql(query);
        expect(off.status).toBe(400);
        expect(off.body.errors[0].message).toMatch(/introspection is not allowed/i);
      }
      const normal = await closed.gql(QUERY);
      expect(normal.body.data.certificateCustomer.certificates.totalCount).toBeGreaterThan(0);
    } finally {
      await closed.close();
    }
  });
});

describe('error masking in production', () => {
  let production: Stack;
  beforeAll(async () => {
    production = await startStack({ env: { NODE_ENV: 'production' } });
  });
  afterAll(() => production.close());

  it('drops field suggestions, in validation and in variable coercion', async () => {
    const typo = await production.gql(
      '{ certificateCustomr(customerId: "demo-customer") { customerId } }',
    );
    expect(typo.status).toBe(400);
    expect(typo.body.errors[0].message).toBe(
      'Cannot query field "certificateCustomr" on type "Query".',
    );

    const badEnum = await production.gql(
      'query($f: CertificateSubscriptionFilter) { certificateSubscriptions(filter: $f, first: 1) { totalCount } }',
      { f: { status: 'ACTIV' } },
    );
    // Names the variable, the place in it and the type; never the value, never a suggestion.
    expect(badEnum.body.errors[0].message).toBe(
      'Variable "$f" got an invalid value at "f.status". Expected a value of type "CertificateLifecycleFilter".',
    );
    for (const res of [typo, badEnum]) {
      for (const error of res.body.errors) {
        expect(error.extensions.requestId).toBeTruthy();
        expect(error.extensions.stacktrace).toBeUndefined();
        expect(JSON.stringify(error)).not.toMatch(/\bat .+\.(ts|js):\d+/);
      }
    }
    expect(await production.upstreamCalls()).toBe(0);
  });

  it('keeps suggestions outside production (they help while developing)', async () => {
    const typo = await stack.gql(
      '{ certificateCustomr(customerId: "demo-customer") { customerId } }',
    );
    expect(typo.body.errors[0].message).toMatch(/Did you mean "certificateCustomer"/);
    expect(typo.body.errors[0].extensions.stacktrace).toBeUndefined();
  });
});
