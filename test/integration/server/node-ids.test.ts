/**
 * `node(id:)` checks a global id's parts as the type's own fields check the same ids, before any
 * upstream call: a part whose documented format it breaks (a store id that is not a uuid …), or that
 * is not a safe path segment, is BAD_USER_INPUT naming `id` and costs no upstream call — for every
 * type that implements `Node`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeGlobalId } from '../../../src/kit/global-id.ts';
import { COMMERCE_IDS } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.resetCounts());

const NOT_A_UUID = 'not-a-uuid';

/**
 * Every `Node` type: the parts of a global id this graph returns, and for each part whose format the
 * upstream's document gives, a value that breaks it (`undefined`: no documented format beyond a safe
 * path segment).
 */
const NODE_TYPES: Record<string, { parts: string[]; malformed: (string | undefined)[] }> = {
  Certificate: {
    parts: ['c', 'demo-customer', 'cert-0001'],
    malformed: [undefined, undefined, undefined],
  },
  App: { parts: ['app-0001'], malformed: [undefined] },
  Store: { parts: [COMMERCE_IDS.storeA], malformed: [NOT_A_UUID] },
  Channel: {
    parts: [COMMERCE_IDS.channelWebA, COMMERCE_IDS.storeA],
    malformed: [NOT_A_UUID, NOT_A_UUID],
  },
  StoreCustomer: {
    parts: [COMMERCE_IDS.storeA, COMMERCE_IDS.firstCustomerA],
    malformed: [NOT_A_UUID, 'not an id!'],
  },
  Transaction: {
    parts: [COMMERCE_IDS.storeA, COMMERCE_IDS.canaryTransaction],
    malformed: [NOT_A_UUID, NOT_A_UUID],
  },
};

const nodeQuery = (typename: string, parts: string[]) =>
  `{ node(id: ${JSON.stringify(encodeGlobalId(typename, ...parts))}) { __typename id } }`;

/** The parts with part `index` replaced by `value`. */
const withPart = (parts: string[], index: number, value: string) =>
  parts.map((part, i) => (i === index ? value : part));

async function expectRefusedLocally(query: string, what: string) {
  const { body } = await stack.gql(query);
  expect(body.errors?.[0]?.extensions, what).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
  expect(body.data?.node ?? null, what).toBeNull();
  expect(await stack.upstreamCalls(), what).toBe(0);
}

describe('node(id:) checks the parts of a global id before any upstream call', () => {
  it('covers every type that implements Node', async () => {
    const { body } = await stack.gql('{ __type(name: "Node") { possibleTypes { name } } }');
    const implementations = body.data.__type.possibleTypes.map(
      (type: { name: string }) => type.name,
    );
    expect(new Set(Object.keys(NODE_TYPES))).toEqual(new Set(implementations));
  });

  it('resolves the ids the graph returns', async () => {
    for (const [typename, { parts }] of Object.entries(NODE_TYPES)) {
      const { body } = await stack.gql(nodeQuery(typename, parts));
      expect(body.errors, typename).toBeUndefined();
      expect(body.data.node?.__typename, typename).toBe(typename);
    }
  });

  for (const [typename, { parts, malformed }] of Object.entries(NODE_TYPES)) {
    it(`refuses a ${typename} id whose parts break their documented format`, async () => {
      for (const [index, value] of malformed.entries()) {
        if (value === undefined) continue;
        await stack.resetCounts();
        await expectRefusedLocally(
          nodeQuery(typename, withPart(parts, index, value)),
          `${typename} part ${index} = ${value}`,
        );
      }
    });

    it(`refuses a ${typename} id with a part that is not a safe path segment`, async () => {
      for (const [index] of parts.entries()) {
        for (const value of ['..', 'a/b', 'x'.repeat(300)]) {
          await stack.resetCounts();
          await expectRefusedLocally(
            nodeQuery(typename, withPart(parts, index, value)),
            `${typename} part ${index} = ${value.slice(0, 20)}`,
          );
        }
      }
    });
  }

  it('refuses a Store id exactly when store(storeId:) refuses the same id', async () => {
    const candidates = [
      NOT_A_UUID,
      COMMERCE_IDS.storeA.toUpperCase(),
      ` ${COMMERCE_IDS.storeA} `,
      COMMERCE_IDS.storeA.replaceAll('-', ''),
      `${COMMERCE_IDS.storeA}0`,
    ];
    for (const storeId of candidates) {
      const field = await stack.gql(`{ store(storeId: ${JSON.stringify(storeId)}) { storeId } }`);
      const node = await stack.gql(nodeQuery('Store', [storeId]));
      const fieldRefused = field.body.errors?.[0]?.extensions?.code === 'BAD_USER_INPUT';
      const nodeRefused = node.body.errors?.[0]?.extensions?.code === 'BAD_USER_INPUT';
      expect(nodeRefused, storeId).toBe(fieldRefused);
      if (nodeRefused) expect(node.body.errors[0].message, storeId).toMatch(/storeId/);
    }
  });
});
