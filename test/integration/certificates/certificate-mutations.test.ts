import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { createCsr } from '../../support/csr.ts';

let stack: Stack;
beforeAll(async () => {
  // The simulator issues an ordered certificate after a few upstream reads: these tests follow it
  // read by read, so the pending-certificate schedule (tested in upstream/cache.test.ts) is off.
  stack = await startStack({ env: { CACHE_TTL_OVERRIDES: 'certificate-detail=0' } });
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const ORDER = `mutation($input: OrderCertificateInput!) {
  orderCertificate(input: $input) { certificateId subscriptionId subscriptionCreatedForOrder userErrors { code message path } } }`;
const REISSUE = `mutation($input: ReissueCertificateInput!) {
  reissueCertificate(input: $input) { certificateId userErrors { code message path } } }`;
const STATUS = `query($id: ID!) { certificateCustomer(customerId: "demo-customer") { certificate(certificateId: $id) { status progress validEnd } } }`;

describe('orderCertificate', () => {
  it('orders a certificate that is issued after a few reads', async () => {
    const csr = await createCsr('www.new-shop.example.com');
    const { body } = await stack.gql(ORDER, {
      input: { csr, productType: 'DV_SSL', period: 1, marketId: 'en-US' },
    });
    const payload = body.data.orderCertificate;
    expect(payload.userErrors).toEqual([]);
    expect(payload.certificateId).toMatch(/^cert-/);
    expect(payload.subscriptionId).toBeTruthy();
    expect(payload.subscriptionCreatedForOrder).toBe(true);

    const statuses: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const read = await stack.gql(STATUS, { id: payload.certificateId });
      statuses.push(read.body.data.certificateCustomer.certificate.status);
    }
    expect(statuses[0]).toBe('PENDING_ISSUANCE');
    expect(statuses.at(-1)).toBe('ISSUED');
  });

  it('reports upstream validation problems as userErrors with a path into the input', async () => {
    const csr = await createCsr('www.bad-period.example.com');
    const { body } = await stack.gql(ORDER, { input: { csr, productType: 'DV_SSL', period: 7 } });
    expect(body.data.orderCertificate.certificateId).toBeNull();
    expect(body.data.orderCertificate.userErrors).toEqual([
      { code: 'OUT_OF_RANGE', message: 'period must be 1 to 3 years', path: ['input', 'period'] },
    ]);
  });

  it('rejects a malformed CSR before any upstream call', async () => {
    const { body } = await stack.gql(ORDER, {
      input: { csr: 'not a csr', productType: 'DV_SSL', period: 1 },
    });
    expect(body.data.orderCertificate.userErrors).toEqual([
      expect.objectContaining({ code: 'INVALID_INPUT', path: ['input', 'csr'] }),
    ]);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('rejects a market id that is not a locale before any upstream call', async () => {
    const csr = await createCsr('www.market.example.com');
    const { body } = await stack.gql(ORDER, {
      input: { csr, productType: 'DV_SSL', period: 1, marketId: 'en_US!' },
    });
    expect(body.data.orderCertificate.userErrors).toEqual([
      expect.objectContaining({ code: 'INVALID_INPUT', path: ['input', 'marketId'] }),
    ]);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('is refused with FORBIDDEN, naming the scope, for a read-only token', async () => {
    const csr = await createCsr('www.readonly.example.com');
    const { body } = await stack.gql(
      ORDER,
      { input: { csr, productType: 'DV_SSL', period: 1 } },
      { token: 'demo-readonly' },
    );
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({
      code: 'FORBIDDEN',
      requiredScope: 'ssl.certificates:create',
    });
  });
});

describe('reissueCertificate', () => {
  it('reissues an issued certificate, which goes back to pending', async () => {
    const csr = await createCsr('www.shop05.example.com');
    const { body } = await stack.gql(REISSUE, { input: { certificateId: 'cert-0005', csr } });
    expect(body.data.reissueCertificate).toEqual({ certificateId: 'cert-0005', userErrors: [] });
    const read = await stack.gql(STATUS, { id: 'cert-0005' });
    expect(read.body.data.certificateCustomer.certificate.status).toBe('PENDING_ISSUANCE');
  });

  it('reports a conflict for a certificate that is not issued', async () => {
    const { body } = await stack.gql(REISSUE, { input: { certificateId: 'cert-0010' } });
    expect(body.data.reissueCertificate.userErrors).toEqual([
      expect.objectContaining({ code: 'CERTIFICATE_NOT_REISSUABLE', path: null }),
    ]);
  });

  it('is NOT_FOUND for another account', async () => {
    const { body } = await stack.gql(
      REISSUE,
      { input: { certificateId: 'cert-0002' } },
      { token: 'demo-other' },
    );
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
