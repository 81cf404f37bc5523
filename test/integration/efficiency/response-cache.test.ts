import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { REPLAY_HEADER } from '../../../src/server/response-cache/response-replay.hook.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const DETAIL = `query Detail($id: ID!) { certificateCustomer(customerId: "demo-customer") {
  certificate(certificateId: $id) { certificateId status commonName csr } } }`;

describe('whole-response cache', () => {
  it('replays a query whose reads were all cached: no Apollo run, no upstream call, no budget', async () => {
    const first = await stack.gql(DETAIL, { id: 'cert-0007' });
    expect(first.headers[REPLAY_HEADER]).toBeUndefined();
    expect(first.body.extensions.rateLimit).toBeDefined();
    const calls = await stack.upstreamCalls();
    const second = await stack.gql(DETAIL, { id: 'cert-0007' });
    expect(second.headers[REPLAY_HEADER]).toBe('hit');
    expect(second.body).toEqual({ data: first.body.data });
    expect(second.headers['ratelimit-remaining']).toBeUndefined();
    expect(await stack.upstreamCalls()).toBe(calls);
    // The request id still comes back, and the replay is the request's one log line.
    const requestId = second.headers['x-request-id'];
    expect(requestId).toBeTruthy();
    const lines = stack.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.reqId === requestId && (line.level as number) >= 30);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'graphql operation',
        operationName: 'Detail',
        responseCache: 'hit',
        res: { statusCode: 200 },
      }),
    ]);
  });

  it('never replays one credential’s response to another, nor across variables', async () => {
    await stack.gql(DETAIL, { id: 'cert-0008' });
    const other = await stack.gql(DETAIL, { id: 'cert-0008' }, { token: 'demo-other' });
    expect(other.headers[REPLAY_HEADER]).toBeUndefined();
    expect(other.body.data.certificateCustomer.certificate).toBeNull();
    // The 404 behind that null is not replayed either.
    const otherAgain = await stack.gql(DETAIL, { id: 'cert-0008' }, { token: 'demo-other' });
    expect(otherAgain.headers[REPLAY_HEADER]).toBeUndefined();
    const otherId = await stack.gql(DETAIL, { id: 'cert-0009' });
    expect(otherId.headers[REPLAY_HEADER]).toBeUndefined();
    expect(otherId.body.data.certificateCustomer.certificate.certificateId).toBe('cert-0009');
  });

  it('answers Weft-Estimate with the bound, never with a replay, and names the header in Vary', async () => {
    await stack.gql(DETAIL, { id: 'cert-0012' });
    const replayed = await stack.gql(DETAIL, { id: 'cert-0012' });
    expect(replayed.headers[REPLAY_HEADER]).toBe('hit');
    expect(String(replayed.headers['vary'])).toMatch(/weft-estimate/);
    const calls = await stack.upstreamCalls();
    const estimated = await stack.gql(
      DETAIL,
      { id: 'cert-0012' },
      { headers: { 'weft-estimate': '1' } },
    );
    expect(estimated.headers[REPLAY_HEADER]).toBeUndefined();
    expect(estimated.body.data).toBeUndefined();
    expect(estimated.body.extensions.upstream.estimate.calls).toBeGreaterThan(0);
    expect(await stack.upstreamCalls()).toBe(calls);
    // And the estimate is not kept as the query's replay.
    expect((await stack.gql(DETAIL, { id: 'cert-0012' })).body).toEqual(replayed.body);
  });

  it('stops replaying once a write invalidates what the response used', async () => {
    await stack.gql(DETAIL, { id: 'cert-0011' });
    expect((await stack.gql(DETAIL, { id: 'cert-0011' })).headers[REPLAY_HEADER]).toBe('hit');
    const reissue = await stack.gql(
      `mutation { reissueCertificate(input: { certificateId: "cert-0011" }) { userErrors { code } } }`,
    );
    expect(reissue.body.data.reissueCertificate.userErrors).toEqual([]);
    const after = await stack.gql(DETAIL, { id: 'cert-0011' });
    expect(after.headers[REPLAY_HEADER]).toBeUndefined();
    expect(after.body.data.certificateCustomer.certificate.status).toBe('PENDING_ISSUANCE');
  });

  it('never replays live values, uncached reads or secrets, nor responses with errors', async () => {
    const queries = [
      '{ viewer { rateLimit { remaining } } certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId } }',
      '{ certificateCustomer(customerId: "demo-customer") { acmeExternalAccountBinding { keyId hmacKey } } }',
      '{ certificateBundle(entitlementId: "no-such-entitlement") { serialNumber } }',
    ];
    for (const query of queries) {
      await stack.gql(query);
      const again = await stack.gql(query);
      expect(again.headers[REPLAY_HEADER], query).toBeUndefined();
    }
  });

  it('is off with RESPONSE_CACHE=false', async () => {
    const off = await startStack({ env: { RESPONSE_CACHE: 'false' } });
    try {
      await off.gql(DETAIL, { id: 'cert-0007' });
      expect((await off.gql(DETAIL, { id: 'cert-0007' })).headers[REPLAY_HEADER]).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
