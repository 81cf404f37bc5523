/** The order subgraph's SDL (see order.schema.ts for the resolvers and the decisions). */
export const orderTypeDefs = /* GraphQL */ `
  "An object with a global id."
  interface Node {
    id: ID!
  }

  enum OrderStatus {
    OPEN
    COMPLETED
    CANCELED
  }

  "An amount in minor currency units (1999 = 19.99 in a two-decimal currency)."
  type Money {
    amount: Int!
    currencyCode: String!
  }

  "An amount in minor currency units (1999 = 19.99 in a two-decimal currency)."
  input SimpleMoneyInput {
    value: Int!
    currencyCode: String!
  }

  type PageInfo {
    hasNextPage: Boolean!
    endCursor: String
  }

  type LineItem implements Node {
    id: ID!
    "A catalog SKU id."
    skuId: String!
    name: String!
    quantity: Int!
    unitPrice: Money!
    subtotal: Money!
    taxTotal: Money!
    total: Money!
  }

  type OrderTotals {
    subtotal: Money!
    taxTotal: Money!
    total: Money!
  }

  type Order implements Node {
    id: ID!
    "Human-readable order number, e.g. A-1001."
    number: String!
    storeId: ID!
    status: OrderStatus!
    customerId: ID
    email: String
    currencyCode: String!
    lineItems: [LineItem!]!
    itemCount: Int!
    totals: OrderTotals!
    notes: String
    cancelReason: String
    createdAt: String!
    updatedAt: String!
    completedAt: String
    canceledAt: String
  }

  type OrderEdge {
    cursor: String!
    node: Order!
  }

  type OrderConnection {
    edges: [OrderEdge!]!
    nodes: [Order!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }

  input LineItemInput {
    skuId: String!
    quantity: Int!
    "Defaults to the SKU's LIST price in the order's currency."
    unitPrice: SimpleMoneyInput
  }

  input CreateOrderInput {
    storeId: ID!
    customerId: ID
    email: String
    "Defaults to the store's currency."
    currencyCode: String
    lineItems: [LineItemInput!]!
    notes: String
  }

  input UpdateOrderInput {
    id: ID!
    customerId: ID
    email: String
    notes: String
    "Replaces every line of the order."
    lineItems: [LineItemInput!]
  }

  type Query {
    node(id: ID!): Node
    order(id: ID!): Order
    "Newest first. Without storeId: the orders of every store of the caller's account."
    orders(storeId: ID, first: Int, after: String, status: OrderStatus): OrderConnection!
  }

  type Mutation {
    createOrder(input: CreateOrderInput!): Order
    updateOrder(input: UpdateOrderInput!): Order
    cancelOrder(id: ID!, reason: String): Order
    completeOrder(id: ID!): Order
  }
`;
