/**
 * The order subgraph's shared SDL: the types every sub-domain uses and the root types the
 * sub-domains (order-*.ts) extend. See order.schema.ts for how the schema is put together.
 */
export const orderTypeDefs = /* GraphQL */ `
  "An object with a global id."
  interface Node {
    "The object's id, unique across stores."
    id: ID!
  }

  "An amount in minor currency units (1999 = 19.99 in a two-decimal currency)."
  type Money {
    "Integer amount in minor currency units."
    amount: Int!
    "ISO 4217 currency code, e.g. USD."
    currencyCode: String!
  }

  "An amount in minor currency units (1999 = 19.99 in a two-decimal currency)."
  input SimpleMoneyInput {
    "Integer amount in minor currency units; never negative."
    value: Int!
    "ISO 4217 currency code, e.g. USD."
    currencyCode: String!
  }

  "Where a page of a list ends (forward pagination only)."
  type PageInfo {
    "Whether items follow this page."
    hasNextPage: Boolean!
    "Cursor of the last item of the page: pass it as after for the next page."
    endCursor: String
  }

  "The order service's entry points for reads; every one needs commerce.order:read."
  type Query {
    "Any order object by id: order, line item, fulfilment, return or refund; null when none is visible."
    node("The object's id." id: ID!): Node
  }

  "The order service's entry points for changes; each needs one of commerce.order:create, :update, :cancel or :complete."
  type Mutation
`;
