import { describe, expect, it } from 'vitest';
import { createCommerceApi } from '../../../src/commerce/commerce.api.ts';
import { createCredentialFactory } from '../../../src/upstream/credential.ts';
import type { UpstreamCall } from '../../../src/upstream/upstream-call.ts';
import type { UpstreamClient } from '../../../src/upstream/upstream-call.ts';

const credential = createCredentialFactory('unit-test-secret-0123456789')('demo-token');
const STORE = '11111111-1111-4111-8111-111111111111';

function recording(data: unknown) {
  const calls: UpstreamCall[] = [];
  const upstream: UpstreamClient = {
    request: async <T>(call: UpstreamCall) => {
      calls.push(call);
      return { status: 200, data: data as T, headers: {}, rateLimit: undefined };
    },
    probe: async () => true,
    close: async () => undefined,
  };
  return { upstream, calls };
}

describe('the transaction list call', () => {
  it('passes a uuid request id as x-request-id', async () => {
    const { upstream, calls } = recording({ items: [], links: [] });
    const requestId = '0b5f8a52-3f5e-4d7a-9a43-6f7a1f5b9c21';
    await createCommerceApi(upstream, { credential, requestId }).transactions(STORE, {
      page: 2,
      pageSize: 25,
      transactionIds: ['a', 'b'],
      sortOrder: 'DESC',
    });
    expect(calls[0]).toMatchObject({
      method: 'GET',
      route: '/v2/commerce/stores/{storeId}/transactions',
      params: { storeId: STORE },
      headers: { 'x-request-id': requestId },
      query: { page: 2, pageSize: 25, transactionIds: ['a', 'b'], sortOrder: 'DESC' },
    });
    expect(calls[0]?.query?.totalRequired).toBeUndefined();
  });

  it('leaves out a request id the upstream would reject', async () => {
    const { upstream, calls } = recording({ items: [] });
    await createCommerceApi(upstream, { credential, requestId: 'client-id-7' }).transactions(
      STORE,
      {
        page: 1,
        pageSize: 10,
        totalRequired: true,
      },
    );
    expect(calls[0]?.headers).toBeUndefined();
    expect(calls[0]?.query?.totalRequired).toBe(true);
  });
});
