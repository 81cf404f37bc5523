/**
 * The certificates declarations (src/certificates/certificates.call-bounds.ts, and `Query.node` of
 * src/graph/call-bounds.ts) held against execution (docs/budget.md, "Certificates"): for queries
 * that use every certificates field that calls, with an empty cache (no upstream cache, no response
 * cache), the calls the simulator counts never exceed the bound computed before execution. Where the
 * bound is exact the case says so and asserts equality: a declaration that undercounted a field on
 * its path would fail it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isInterfaceType, Kind, parse, type OperationDefinitionNode } from 'graphql';
import { startStack, type Stack } from '../../../support/gateway-harness.ts';
import { boundOf } from '../../../support/call-bound.ts';
import { createCsr } from '../../../support/csr.ts';
import { buildGatewaySchema } from '../../../../src/graph/build-schema.ts';
import { callBounds, NODE_CALLS } from '../../../../src/graph/call-bounds.ts';
import { upstreamCallBound } from '../../../../src/server/demand-control/upstream-call-bound.ts';
import { encodeGlobalId } from '../../../../src/kit/global-id.ts';

const CUSTOMER = 'demo-customer';
const GUID = '00000000-0000-4000-8000-000000000001';

interface Case {
  readonly name: string;
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  /** The bound equals the calls execution makes. */
  readonly exact?: boolean;
  /** Errors the response must carry (matched on their messages); none when absent. */
  readonly errors?: RegExp;
  /** At least this many calls are made (the query really ran). */
  readonly atLeast?: number;
}

const list = (args: string, node: string) =>
  `query { certificateCustomer(customerId: "${CUSTOMER}") {
    certificates${args === '' ? '' : `(${args})`} { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${node} } } } } }`;

const READS: Case[] = [
  {
    name: 'list, summary fields (first 10)',
    query: list('first: 10', 'id certificateId commonName status validEnd subjectAlternativeNames'),
    exact: true,
    atLeast: 1,
  },
  {
    name: 'list of details (first 5): one detail per certificate',
    query: list('first: 5', 'certificateId csr'),
    exact: true,
    atLeast: 6,
  },
  {
    name: 'list (first 20), a detail and domainVerifications each',
    query: list(
      'first: 20',
      'certificateId serialNumberHex domainVerifications { domain status type }',
    ),
    exact: true,
    atLeast: 41,
  },
  {
    name: 'list without first (20 by default; an absent first counts 100)',
    query: list('', 'certificateId serialNumberHex'),
    atLeast: 21,
  },
  {
    name: 'list after a cursor (first 3), domainVerifications',
    query: list('first: 3, after: $after', 'domainVerifications { domain usage }').replace(
      'query {',
      'query($after: String) {',
    ),
    variables: { after: Buffer.from('o:9').toString('base64url') },
    exact: true,
    atLeast: 4,
  },
  {
    name: 'list by offset past the end of the data (first 7, offset 40: 4 items)',
    query: list('first: 7, offset: 40', 'certificateId rootType'),
    atLeast: 5,
  },
  {
    name: 'two pages of two customers lists (aliases), a detail each',
    query: `{ certificateCustomer(customerId: "${CUSTOMER}") {
      a: certificates(first: 2) { edges { node { progress } } }
      b: certificates(first: 3, offset: 10) { edges { node { deniedReason } } } } }`,
    exact: true,
    atLeast: 7,
  },
  {
    name: 'the list screen: several detail fields on each (first 10)',
    query: list(
      'first: 10',
      'certificateId status csr contact { email } organization { name } domainVerifications { domain }',
    ),
    atLeast: 21,
  },
  {
    name: 'details screen: one certificate, its detail, verifications, one verification',
    query: `{ certificateCustomer(customerId: "${CUSTOMER}") { certificate(certificateId: "cert-0002") {
      certificateId status csr contact { email } organization { name } rootType progress serialNumberHex deniedReason
      domainVerifications { domain status dceToken }
      domainVerification(domain: "api.shop02.example.com") { domain certificateAuthorityAuthorization { status } } } } }`,
    atLeast: 3,
  },
  {
    name: 'one certificate, summary fields only',
    query: `{ certificateCustomer(customerId: "${CUSTOMER}") { customerId certificate(certificateId: "cert-0007") { certificateId status } } }`,
    exact: true,
    atLeast: 1,
  },
  {
    name: 'ACME external account binding',
    query: `{ certificateCustomer(customerId: "${CUSTOMER}") { acmeExternalAccountBinding { directoryUrl keyId hmacKey } } }`,
    exact: true,
    atLeast: 1,
  },
  {
    name: 'entitlement (latest), every detail field',
    query: `{ certificatesByEntitlement(entitlementId: "demo-entitlement") {
      certificateId status csr contact { email } organization { name } rootType progress serialNumberHex deniedReason } }`,
    exact: true,
    atLeast: 1,
  },
  {
    name: 'entitlement (all two certificates), every detail field: complete records, no detail load',
    query: `{ certificatesByEntitlement(entitlementId: "demo-entitlement", latest: false) {
      certificateId status csr contact { email } organization { name } rootType progress serialNumberHex deniedReason } }`,
    exact: true,
    atLeast: 1,
  },
  {
    name: 'entitlement (all), verifications: refused before any call (no customer)',
    query: `{ certificatesByEntitlement(entitlementId: "demo-entitlement", latest: false) {
      certificateId domainVerifications { domain } domainVerification(domain: "shop02.example.com") { domain } } }`,
    exact: true,
    errors: /certificate customer/,
    atLeast: 1,
  },
  {
    name: 'certificate bundle',
    query: `{ certificateBundle(entitlementId: "demo-entitlement") { serialNumber pems { certificate } subject } }`,
    exact: true,
    atLeast: 1,
  },
  {
    name: 'subscription search (first 15)',
    query: `{ certificateSubscriptions(first: 15) { totalCount edges { node { guid certificateId status raw } } } }`,
    exact: true,
    atLeast: 1,
  },
  {
    name: 'subscription search, filtered, after a cursor (first 4)',
    query: `query($after: String) { certificateSubscriptions(first: 4, after: $after, filter: { status: ACTIVE, validation: DV }) {
      pageInfo { hasNextPage } edges { node { commonName domains type validation } } } }`,
    variables: { after: Buffer.from('o:2').toString('base64url') },
    exact: true,
    atLeast: 1,
  },
  {
    name: 'subscription and a page of its certificates (first 3)',
    query: `{ certificateSubscription(guid: "${GUID}") { guid domain allowedDomains maxDomains status
      certificates(first: 3) { totalCount edges { node { certificateId status } } } } }`,
    exact: true,
    atLeast: 2,
  },
  {
    name: 'subscription and its default page (the loader shares the parent’s call)',
    query: `{ certificateSubscription(guid: "${GUID}") { guid certificates { edges { node { certificateId } } } } }`,
    atLeast: 1,
  },
  {
    name: 'node: a customer certificate, a detail and its verifications',
    query: `query($id: ID!) { node(id: $id) { id ... on Certificate { certificateId csr domainVerifications { domain } } } }`,
    variables: { id: encodeGlobalId('Certificate', 'c', CUSTOMER, 'cert-0004') },
    atLeast: 2,
  },
  {
    name: 'node: an entitlement certificate',
    query: `query($id: ID!) { node(id: $id) { id ... on Certificate { certificateId rootType } } }`,
    variables: { id: encodeGlobalId('Certificate', 'e', 'demo-entitlement', 'cert-0002') },
    atLeast: 1,
  },
  {
    name: 'node: two certificates (aliases)',
    query: `query($a: ID!, $b: ID!) { a: node(id: $a) { id } b: node(id: $b) { id } }`,
    variables: {
      a: encodeGlobalId('Certificate', 'c', CUSTOMER, 'cert-0011'),
      b: encodeGlobalId('Certificate', 'c', CUSTOMER, 'cert-0012'),
    },
    exact: true,
    atLeast: 2,
  },
  {
    name: 'node: an id that does not decode (refused before any call)',
    query: `{ node(id: "definitely-not-an-id") { id } }`,
    exact: true,
    errors: /Malformed global id/,
  },
];

let stack: Stack;
const seen: { name: string; bound: number; actual: number }[] = [];

beforeAll(async () => {
  stack = await startStack({
    env: {
      UPSTREAM_CACHE: 'off',
      RESPONSE_CACHE: 'false',
      // This file measures the bound, it does not test the policy: no refusal on the way.
      LIMIT_MAX_UPSTREAM_CALLS: '100000',
    },
  });
});
afterAll(async () => {
  console.log(
    `certificates: bound / actual upstream calls (empty cache)\n${seen
      .map(
        ({ name, bound, actual }) =>
          `  ${String(bound).padStart(4)} / ${String(actual).padEnd(4)} ${name}`,
      )
      .join('\n')}`,
  );
  await stack.close();
});
beforeEach(() => stack.resetCounts());

async function measure(c: Case): Promise<void> {
  const bound = await boundOf(c.query, c.variables ?? {});
  const { body } = await stack.gql(c.query, c.variables);
  const actual = await stack.upstreamCalls();
  seen.push({ name: c.name, bound: bound.calls, actual });
  if (c.errors) {
    expect(body.errors?.map((e: { message: string }) => e.message).join('\n')).toMatch(c.errors);
  } else {
    expect(body.errors).toBeUndefined();
  }
  expect(actual).toBeGreaterThanOrEqual(c.atLeast ?? 0);
  expect(actual).toBeLessThanOrEqual(bound.calls);
  if (c.exact) expect(bound.calls).toBe(actual);
}

describe('certificates: bound ≥ actual upstream calls, empty cache', () => {
  it.each(READS.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await measure(c);
  });

  it('orderCertificate: one write', async () => {
    const csr = await createCsr('www.bound-check.example.com');
    await measure({
      name: 'orderCertificate',
      query: `mutation($input: OrderCertificateInput!) { orderCertificate(input: $input) { certificateId subscriptionId userErrors { code } } }`,
      variables: { input: { csr, productType: 'DV_SSL', period: 1 } },
      exact: true,
      atLeast: 1,
    });
  });

  it('reissueCertificate: one write', async () => {
    const csr = await createCsr('www.shop06.example.com');
    await measure({
      name: 'reissueCertificate',
      query: `mutation($input: ReissueCertificateInput!) { reissueCertificate(input: $input) { certificateId userErrors { code } } }`,
      variables: { input: { certificateId: 'cert-0006', csr } },
      exact: true,
      atLeast: 1,
    });
  });

  it('orderCertificate refused by its input check: no call, within the bound', async () => {
    await measure({
      name: 'orderCertificate, malformed csr',
      query: `mutation { orderCertificate(input: { csr: "not a csr", productType: "DV_SSL", period: 1 }) { userErrors { code } } }`,
      atLeast: 0,
    });
    expect(await stack.upstreamCalls()).toBe(0);
  });
});

describe('the exact cases catch an undercount', () => {
  it('a list of details whose detail field declared no call bounds below its actual calls', async () => {
    const c = READS.find((each) => each.name.startsWith('list of details'))!;
    await measure(c);
    const actual = await stack.upstreamCalls();
    const schema = await buildGatewaySchema();
    const document = parse(c.query);
    const operation = document.definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    )!;
    const undercounted = { ...callBounds(), 'Certificate.csr': { calls: 0 } };
    const wrong = upstreamCallBound(schema, document, operation, {}, undercounted);
    expect(wrong.calls).toBeLessThan(actual);
  });
});

describe('node(id:) bound', () => {
  it('declares a cost for every Node type of the schema', async () => {
    const schema = await buildGatewaySchema();
    const node = schema.getType('Node');
    if (!isInterfaceType(node)) throw new Error('no Node interface');
    const types = schema
      .getPossibleTypes(node)
      .map((type) => type.name)
      .sort();
    expect(Object.keys(NODE_CALLS).sort()).toEqual(types);
  });

  it('counts the type the id names, and the costliest for one it cannot read', async () => {
    const query = `query($id: ID!) { node(id: $id) { id } }`;
    const certificate = encodeGlobalId('Certificate', 'c', CUSTOMER, 'cert-0001');
    const channel = encodeGlobalId('Channel', 'some-channel');
    expect((await boundOf(query, { id: certificate })).calls).toBe(1);
    expect((await boundOf(query, { id: channel })).calls).toBe(NODE_CALLS['Channel']);
    const unknown = encodeGlobalId('Unheard', 'x');
    expect((await boundOf(query, { id: unknown })).calls).toBe(
      Math.max(...Object.values(NODE_CALLS)),
    );
  });
});
