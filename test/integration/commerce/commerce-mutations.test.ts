import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_CACHE: 'off' } });
});
afterAll(() => stack.close());

const A = COMMERCE_IDS.storeA;

const CREATE = `mutation($input: CreateStoreCustomerInput!) { createStoreCustomer(input: $input) {
  customer { id customerId storeId raw } userErrors { code message path } } }`;
const UPDATE = `mutation($input: UpdateStoreCustomerInput!) { updateStoreCustomer(input: $input) {
  customer { customerId raw } userErrors { code message path } } }`;

describe('createStoreCustomer / updateStoreCustomer', () => {
  it('creates a customer that the next read sees', async () => {
    const { body } = await stack.gql(CREATE, {
      input: { storeId: A, customer: { email: 'new.buyer@example.com', givenName: 'New' } },
    });
    expect(body.errors).toBeUndefined();
    const payload = body.data.createStoreCustomer;
    expect(payload.userErrors).toEqual([]);
    expect(payload.customer).toMatchObject({
      storeId: A,
      raw: { email: 'new.buyer@example.com', givenName: 'New' },
    });
    const read = await stack.gql(
      `query($s: ID!, $c: ID!) { store(storeId: $s) { customer(customerId: $c) { raw } } }`,
      { s: A, c: payload.customer.customerId },
    );
    expect(read.body.data.store.customer.raw.email).toBe('new.buyer@example.com');
  });

  it('updates a customer partially', async () => {
    const { body } = await stack.gql(UPDATE, {
      input: {
        storeId: A,
        customerId: COMMERCE_IDS.firstCustomerA,
        customer: { familyName: 'Updated', tags: ['vip'] },
      },
    });
    expect(body.data.updateStoreCustomer.userErrors).toEqual([]);
    expect(body.data.updateStoreCustomer.customer.raw).toMatchObject({
      familyName: 'Updated',
      tags: ['vip'],
    });
  });

  it('reports upstream validation problems as userErrors with paths into input.customer', async () => {
    const { body } = await stack.gql(CREATE, {
      input: { storeId: A, customer: { email: 'not-an-email', tags: ['ok', ''] } },
    });
    expect(body.errors).toBeUndefined();
    const { customer, userErrors } = body.data.createStoreCustomer;
    expect(customer).toBeNull();
    expect(userErrors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'INVALID_FORMAT', path: ['input', 'customer', 'email'] }),
        expect.objectContaining({ path: ['input', 'customer', 'tags', '1'] }),
      ]),
    );
  });

  it('reports a duplicate email (409) as a userError', async () => {
    const input = { storeId: A, customer: { email: 'twice@example.com' } };
    await stack.gql(CREATE, { input });
    const { body } = await stack.gql(CREATE, { input });
    expect(body.data.createStoreCustomer.userErrors[0]).toMatchObject({
      code: 'CUSTOMER_EXISTS',
      path: ['input', 'customer', 'email'],
    });
  });

  it('checks the store id and the body shape before any call', async () => {
    await stack.resetCounts();
    const badStore = await stack.gql(CREATE, {
      input: { storeId: 'store-a', customer: { email: 'x@example.com' } },
    });
    expect(badStore.body.data.createStoreCustomer.userErrors[0]).toMatchObject({
      code: 'INVALID_INPUT',
      path: ['input', 'storeId'],
    });
    const notObject = await stack.gql(UPDATE, {
      input: { storeId: A, customerId: COMMERCE_IDS.firstCustomerA, customer: ['email'] },
    });
    expect(notObject.body.data.updateStoreCustomer.userErrors[0].path).toEqual([
      'input',
      'customer',
    ]);
    expect(await stack.upstreamCalls()).toBe(0);
  });

  it('fails an update of an unknown customer with NOT_FOUND', async () => {
    const { body } = await stack.gql(UPDATE, {
      input: {
        storeId: A,
        customerId: 'c0ffee00-0000-4000-8000-000000000000',
        customer: { givenName: 'Ghost' },
      },
    });
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
