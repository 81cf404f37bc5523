import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

const CUSTOMER = 'demo-customer';
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

describe('certificates through the graph', () => {
  it('returns a page of certificates with a detail field and their domain verifications', async () => {
    const { body } = await stack.gql(
      `query Page($customerId: ID!) {
        certificateCustomer(customerId: $customerId) {
          customerId
          certificates(first: 5) {
            totalCount
            edges { cursor node { id certificateId commonName status csr contact { email }
              domainVerifications { domain status type usage } } }
          }
        }
      }`,
      { customerId: CUSTOMER },
    );
    expect(body.errors).toBeUndefined();
    const connection = body.data.certificateCustomer.certificates;
    expect(connection.totalCount).toBe(44);
    expect(connection.edges).toHaveLength(5);
    for (const { node } of connection.edges) {
      expect(node.csr).toMatch(/BEGIN CERTIFICATE REQUEST/);
      expect(node.contact.email).toContain('@');
      expect(node.domainVerifications.length).toBeGreaterThan(0);
    }
    // One list call, then one detail and one verification call per certificate: no more.
    expect(await stack.upstreamCalls('GET /v2/customers/{customerId}/certificates')).toBe(1);
    expect(
      await stack.upstreamCalls('GET /v2/customers/{customerId}/certificates/{certificateId}'),
    ).toBe(5);
    expect(
      await stack.upstreamCalls(
        'GET /v2/customers/{customerId}/certificates/{certificateId}/domainVerifications',
      ),
    ).toBe(5);
  });

  it('loads no detail when only summary fields are asked for', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "${CUSTOMER}") { certificates(first: 10) { edges { node { certificateId status validEnd } } } } }`,
    );
    expect(body.data.certificateCustomer.certificates.edges).toHaveLength(10);
    expect(await stack.upstreamCalls()).toBe(1);
  });

  // A certificate no earlier test of this file read: the gateway's cache would answer it otherwise.
  it('loads a detail once per request however many fields ask for it', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "${CUSTOMER}") {
          a: certificate(certificateId: "cert-0020") { csr rootType progress serialNumberHex organization { name } }
          b: certificate(certificateId: "cert-0020") { contact { nameFirst } }
      } }`,
    );
    expect(body.data.certificateCustomer.a.rootType).toBe('STANDARD_SHA_2');
    expect(body.data.certificateCustomer.b.contact.nameFirst).toBeTruthy();
    expect(await stack.upstreamCalls()).toBe(1);
  });

  it('maps an unseen status to UNKNOWN and keeps the raw text', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "${CUSTOMER}") { certificate(certificateId: "cert-0044") { status statusRaw } } }`,
    );
    expect(body.data.certificateCustomer.certificate).toEqual({
      status: 'UNKNOWN',
      statusRaw: 'PENDING_REVOCATION',
    });
  });

  it('returns null for an unknown certificate', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "${CUSTOMER}") { certificate(certificateId: "cert-9999") { certificateId } } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.certificateCustomer.certificate).toBeNull();
  });

  it('reads one domain verification with its CAA block', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "${CUSTOMER}") { certificate(certificateId: "cert-0002") {
          domainVerification(domain: "api.shop02.example.com") { domain status usage dceToken
            certificateAuthorityAuthorization { status queryPaths recommendations } }
          missing: domainVerification(domain: "nope.example.com") { domain }
      } } }`,
    );
    const certificate = body.data.certificateCustomer.certificate;
    expect(certificate.domainVerification.domain).toBe('api.shop02.example.com');
    expect(certificate.domainVerification.certificateAuthorityAuthorization.queryPaths).toEqual([
      'api.shop02.example.com',
      'shop02.example.com',
      'example.com',
    ]);
    expect(certificate.missing).toBeNull();
  });

  it('reads the ACME external account binding', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "${CUSTOMER}") { acmeExternalAccountBinding { directoryUrl keyId hmacKey } } }`,
    );
    const binding = body.data.certificateCustomer.acmeExternalAccountBinding;
    expect(binding.keyId).toBe('kid-demo-customer');
    expect(binding.hmacKey.length).toBeGreaterThan(20);
    // The secret reaches the client that asked for it, and nothing else: not one log line.
    expect(stack.logs.join('\n')).not.toContain(binding.hmacKey);
  });

  it('looks certificates up by entitlement, latest or all', async () => {
    const { body } = await stack.gql(
      `{ latest: certificatesByEntitlement(entitlementId: "demo-entitlement") { certificateId status contact { email } }
         all: certificatesByEntitlement(entitlementId: "demo-entitlement", latest: false) { certificateId status } }`,
    );
    expect(body.data.latest).toEqual([
      {
        certificateId: 'cert-0002',
        status: 'ISSUED',
        contact: { email: 'admin2@shop2.example.com' },
      },
    ]);
    expect(body.data.all.map((c: { certificateId: string }) => c.certificateId)).toEqual([
      'cert-0001',
      'cert-0002',
    ]);
  });

  it('downloads the bundle and parses the leaf exactly as node:crypto does', async () => {
    const { body } = await stack.gql(
      `{ certificateBundle(entitlementId: "demo-entitlement") {
          pems { certificate intermediate cross root } serialNumber notBefore notAfter fingerprintSha256 issuer subject subjectAlternativeNames } }`,
    );
    const bundle = body.data.certificateBundle;
    const leaf = new X509Certificate(bundle.pems.certificate);
    expect(bundle.fingerprintSha256).toBe(leaf.fingerprint256);
    expect(bundle.notAfter).toBe(new Date(leaf.validTo).toISOString());
    expect(bundle.subject).toBe('CN=www.shop02.example.com');
    expect(bundle.subjectAlternativeNames).toContain('api.shop02.example.com');
    expect(BigInt(`0x${leaf.serialNumber}`).toString(10)).toBe(bundle.serialNumber);
    expect(leaf.checkIssued(new X509Certificate(bundle.pems.intermediate))).toBe(true);
    // The record and the chain agree.
    const { body: record } = await stack.gql(
      `{ certificatesByEntitlement(entitlementId: "demo-entitlement") { serialNumber validEnd } }`,
    );
    expect(record.data.certificatesByEntitlement[0].serialNumber).toBe(bundle.serialNumber);
    expect(Date.parse(record.data.certificatesByEntitlement[0].validEnd)).toBe(
      Date.parse(bundle.notAfter),
    );
  });

  it('resolves certificates by global id, from both origins', async () => {
    const { body } = await stack.gql(
      `{ certificateCustomer(customerId: "${CUSTOMER}") { certificate(certificateId: "cert-0003") { id } }
         certificatesByEntitlement(entitlementId: "demo-entitlement") { id } }`,
    );
    const ids = [
      body.data.certificateCustomer.certificate.id,
      body.data.certificatesByEntitlement[0].id,
    ];
    const { body: nodes } = await stack.gql(
      `query($a: ID!, $b: ID!) { a: node(id: $a) { id ... on Certificate { certificateId commonName } }
                                 b: node(id: $b) { id ... on Certificate { certificateId } } }`,
      { a: ids[0], b: ids[1] },
    );
    expect(nodes.data.a).toEqual({
      id: ids[0],
      certificateId: 'cert-0003',
      commonName: '*.shop03.example.com',
    });
    expect(nodes.data.b).toEqual({ id: ids[1], certificateId: 'cert-0002' });
  });
});
