/**
 * An order's addresses and staff comments. Addresses change only while the order is OPEN
 * (CONFLICT otherwise); comments can be written on an order in any status (staff keep notes on
 * completed and canceled orders too).
 */
import { nextId, type AddressRecord, type OrderRecord } from '../fixtures/subgraph.fixtures.ts';
import { openOrder, orders, visible } from './order.lookups.ts';
import {
  badInput,
  checkCountry,
  gqlError,
  isoNow,
  requireText,
  rootField,
  type SubgraphContext,
} from './subgraph-common.ts';
import type { SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "A postal address of an order."
  type Address {
    "Who receives at this address; null when not given."
    name: String
    "Street and number."
    line1: String!
    "Apartment, suite, floor; null when none."
    line2: String
    "City."
    city: String!
    "State or province; null when the country has none."
    region: String
    "Postal code."
    postalCode: String!
    "ISO 3166-1 alpha-2 country code."
    countryCode: String!
  }

  "A staff comment on an order."
  type OrderComment {
    "The comment's id (cmt_…)."
    id: ID!
    "The text."
    body: String!
    "When it was written (ISO 8601)."
    createdAt: String!
    "When it was last edited (ISO 8601)."
    updatedAt: String!
  }

  "A postal address to set on an order."
  input AddressInput {
    "Who receives at this address."
    name: String
    "Street and number, not empty."
    line1: String!
    "Apartment, suite, floor."
    line2: String
    "City, not empty."
    city: String!
    "State or province."
    region: String
    "Postal code, not empty."
    postalCode: String!
    "ISO 3166-1 alpha-2 country code."
    countryCode: String!
  }

  "The addresses of an order: at least one of the two."
  input SetOrderAddressesInput {
    "The order."
    orderId: ID!
    "Where it ships; unchanged unless given."
    shippingAddress: AddressInput
    "Where it is billed; unchanged unless given."
    billingAddress: AddressInput
  }

  extend type Order {
    "Where it ships; null when not set."
    shippingAddress: Address
    "Where it is billed; null when not set."
    billingAddress: Address
    "Staff comments, oldest first."
    comments: [OrderComment!]!
  }

  extend type Mutation {
    "Sets the shipping and/or billing address of an OPEN order (needs commerce.order:update)."
    setOrderAddresses("The order and its addresses." input: SetOrderAddressesInput!): Order
    "Adds a staff comment to an order (needs commerce.order:update)."
    addOrderComment("The order." orderId: ID!, "The text, not empty." body: String!): Order
    "Edits a staff comment (needs commerce.order:update)."
    updateOrderComment(
      "The comment."
      commentId: ID!
      "The new text, not empty."
      body: String!
    ): Order
    "Deletes a staff comment (needs commerce.order:update)."
    deleteOrderComment("The comment." commentId: ID!): Order
  }
`;

interface AddressInput {
  name?: string | null;
  line1: string;
  line2?: string | null;
  city: string;
  region?: string | null;
  postalCode: string;
  countryCode: string;
}

const checkAddress = (address: AddressInput, field: string): AddressRecord => ({
  name: address.name?.trim() || null,
  line1: requireText(address.line1, `${field}.line1`),
  line2: address.line2?.trim() || null,
  city: requireText(address.city, `${field}.city`),
  region: address.region?.trim() || null,
  postalCode: requireText(address.postalCode, `${field}.postalCode`),
  countryCode: checkCountry(address.countryCode, `${field}.countryCode`),
});

/** The visible order holding a comment: NOT_FOUND when there is none. */
function commentOrThrow(ctx: SubgraphContext, commentId: string) {
  for (const order of visible(ctx, ctx.state.orders)) {
    const comment = order.comments.find((c) => c.id === commentId);
    if (comment) return { order, comment };
  }
  throw gqlError('NOT_FOUND', `comment ${commentId} was not found`);
}

const touchOrder = (ctx: SubgraphContext, order: OrderRecord): OrderRecord => {
  order.updatedAt = isoNow(ctx);
  return order;
};

export const detailModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Mutation: {
      setOrderAddresses: rootField(
        (
          {
            input,
          }: {
            input: {
              orderId: string;
              shippingAddress?: AddressInput | null;
              billingAddress?: AddressInput | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const order = openOrder(ctx, input.orderId);
          if (!input.shippingAddress && !input.billingAddress) {
            throw badInput('give shippingAddress, billingAddress or both', 'shippingAddress');
          }
          const shipping = input.shippingAddress
            ? checkAddress(input.shippingAddress, 'shippingAddress')
            : order.shippingAddress;
          const billing = input.billingAddress
            ? checkAddress(input.billingAddress, 'billingAddress')
            : order.billingAddress;
          Object.assign(order, { shippingAddress: shipping, billingAddress: billing });
          return touchOrder(ctx, order);
        },
      ),
      addOrderComment: rootField(
        (args: { orderId: string; body: string }, ctx: SubgraphContext) => {
          const order = orders.get(ctx, args.orderId);
          const body = requireText(args.body, 'body');
          const now = isoNow(ctx);
          order.comments.push({
            id: nextId(ctx.state, 'cmt'),
            body,
            createdAt: now,
            updatedAt: now,
          });
          return touchOrder(ctx, order);
        },
      ),
      updateOrderComment: rootField(
        (args: { commentId: string; body: string }, ctx: SubgraphContext) => {
          const { order, comment } = commentOrThrow(ctx, args.commentId);
          comment.body = requireText(args.body, 'body');
          comment.updatedAt = isoNow(ctx);
          return touchOrder(ctx, order);
        },
      ),
      deleteOrderComment: rootField((args: { commentId: string }, ctx: SubgraphContext) => {
        const { order, comment } = commentOrThrow(ctx, args.commentId);
        order.comments = order.comments.filter((c) => c.id !== comment.id);
        return touchOrder(ctx, order);
      }),
    },
  },
};
