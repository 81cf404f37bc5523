/** A token the upstream refused (401) is refused locally for a while, by its HMAC id only. */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../../src/errors/error-codes.ts';
import { createCredentialFactory } from '../../../../src/upstream/credential.ts';
import type { RawResponse, Transport } from '../../../../src/upstream/transport.ts';
import {
  createRefusedCredentialTransport,
  REFUSED_CREDENTIAL_MS,
} from '../../../../src/upstream/budget/refused-credentials.ts';
import { createRouteTable } from '../../../../src/upstream/upstream-routes.ts';
import { neverCache } from '../../../../src/upstream/route-policy.ts';

const credentialFor = createCredentialFactory('unit-test-secret-0123456789');
const junk = credentialFor('junk-token');
const good = credentialFor('good-token');
const ROUTES = createRouteTable([
  { method: 'GET', route: '/things', cache: neverCache('test'), breaker: 'things' },
  {
    method: 'GET',
    route: '/things/{id}',
    cache: neverCache('test'),
    breaker: 'things',
    resourceScoped401: true,
  },
]);

function setup() {
  let clock = 1_000_000;
  const sent: string[] = [];
  const inner: Transport = {
    async send(call) {
      sent.push(call.credential.id);
      const status = call.credential.id === junk.id || call.route === '/things/{id}' ? 401 : 200;
      return { status, headers: {}, body: {} } as RawResponse;
    },
    probe: async () => true,
    close: async () => undefined,
  };
  const transport = createRefusedCredentialTransport(inner, () => clock);
  const signal = new AbortController().signal;
  return {
    sent,
    send: (credential: typeof junk, route = '/things') =>
      transport.send(
        { method: 'GET', route, credential, declared: ROUTES.of({ method: 'GET', route }) },
        signal,
      ),
    advance: (ms: number) => (clock += ms),
  };
}

describe('refused credentials', () => {
  it('refuses a token locally after its 401, without sending, until the memory expires', async () => {
    const { send, sent, advance } = setup();
    expect((await send(junk)).status).toBe(401);
    const refused = await send(junk).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    expect(sent).toHaveLength(1);
    expect((await send(good)).status).toBe(200); // others are not affected
    advance(REFUSED_CREDENTIAL_MS + 1);
    expect((await send(junk)).status).toBe(401); // asked again once the memory expired
    expect(sent).toHaveLength(3);
  });

  it('does not count a 401 that is about one resource, not the token', async () => {
    const { send, sent } = setup();
    expect((await send(good, '/things/{id}')).status).toBe(401);
    expect((await send(good)).status).toBe(200);
    expect(sent).toHaveLength(2);
  });
});
