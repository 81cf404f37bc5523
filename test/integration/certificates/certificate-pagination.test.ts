import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const CUSTOMER_PAGE = `query($after: String, $offset: Int) {
  certificateCustomer(customerId: "demo-customer") {
    certificates(first: 10, after: $after, offset: $offset) {
      totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { node { certificateId } } } } }`;

describe('offset/limit paging (customer certificates)', () => {
  it('walks every page to the last one with cursors', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { body } = await stack.gql(CUSTOMER_PAGE, { after });
      const connection = body.data.certificateCustomer.certificates;
      seen.push(
        ...connection.edges.map((e: { node: { certificateId: string } }) => e.node.certificateId),
      );
      pages += 1;
      expect(connection.pageInfo.hasPreviousPage).toBe(pages > 1);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(pages).toBe(5);
    expect(seen).toHaveLength(44);
    expect(new Set(seen).size).toBe(44);
    expect(await stack.upstreamCalls('GET /v2/customers/{customerId}/certificates')).toBe(5);
  });

  it('jumps to a page by offset', async () => {
    const { body } = await stack.gql(CUSTOMER_PAGE, { offset: 40 });
    const connection = body.data.certificateCustomer.certificates;
    expect(
      connection.edges.map((e: { node: { certificateId: string } }) => e.node.certificateId),
    ).toEqual(['cert-0041', 'cert-0042', 'cert-0043', 'cert-0044']);
    expect(connection.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });
});

const SEARCH = `query($after: String, $filter: CertificateSubscriptionFilter, $first: Int) {
  certificateSubscriptions(first: $first, after: $after, filter: $filter) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { guid certificateId commonName status type validation raw } } } }`;

describe('page/pageSize paging (subscription search)', () => {
  it('walks every page of the search to the last one', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const { body } = await stack.gql(SEARCH, { after, first: 15 });
      const connection = body.data.certificateSubscriptions;
      expect(connection.totalCount).toBe(44);
      seen.push(
        ...connection.edges.map((e: { node: { certificateId: string } }) => e.node.certificateId),
      );
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toHaveLength(44);
    expect(new Set(seen).size).toBe(44);
    expect(await stack.upstreamCalls('GET /v2/certificates/subscriptions/search')).toBe(3);
  });

  it('serves a window that straddles upstream pages with one call', async () => {
    const first = await stack.gql(SEARCH, { first: 7 });
    const after = first.body.data.certificateSubscriptions.pageInfo.endCursor;
    await stack.resetCounts();
    const { body } = await stack.gql(SEARCH, { after, first: 10 });
    const ids = body.data.certificateSubscriptions.edges.map(
      (e: { node: { certificateId: string } }) => e.node.certificateId,
    );
    expect(ids[0]).toBe('cert-0008');
    expect(ids).toHaveLength(10);
    expect(await stack.upstreamCalls()).toBe(1);
  });

  it('filters by lifecycle, coverage, validation and domain substring', async () => {
    const revoked = await stack.gql(SEARCH, { first: 50, filter: { status: 'REVOKED' } });
    for (const { node } of revoked.body.data.certificateSubscriptions.edges)
      expect(node.status).toBe('REVOKED');
    expect(revoked.body.data.certificateSubscriptions.totalCount).toBeGreaterThan(0);

    const wildcard = await stack.gql(SEARCH, {
      first: 50,
      filter: { type: 'WILDCARD', validation: 'DV' },
    });
    for (const { node } of wildcard.body.data.certificateSubscriptions.edges) {
      expect(node.type).toBe('WILDCARD');
      expect(node.validation).toBe('DV');
    }

    const domain = await stack.gql(SEARCH, { first: 50, filter: { domain: 'op07.exam' } });
    const names = domain.body.data.certificateSubscriptions.edges.map(
      (e: { node: { commonName: string } }) => e.node.commonName,
    );
    expect(names).toEqual(['www.shop07.example.com']);
  });

  it('reads a subscription with its certificates, and null for an unknown one', async () => {
    const { body } = await stack.gql(`{
      certificateSubscription(guid: "00000000-0000-4000-8000-000000000001") {
        guid domain maxDomains status subscriptionEndDate
        certificates(first: 15) { totalCount edges { node { certificateId } } } }
      missing: certificateSubscription(guid: "00000000-0000-4000-8000-000000000999") { guid } }`);
    const subscription = body.data.certificateSubscription;
    expect(subscription.status).toBe('ACTIVE');
    expect(subscription.certificates.totalCount).toBe(4);
    expect(body.data.missing).toBeNull();
    // The subscription and its first page of certificates are one upstream call.
    expect(await stack.upstreamCalls('GET /v2/certificates/subscription/{guid}')).toBe(2);
  });
});
