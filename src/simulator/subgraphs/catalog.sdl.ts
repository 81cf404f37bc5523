/**
 * The catalog subgraph's shared SDL: the types every sub-domain uses and the root types the
 * sub-domains (catalog-*.ts) extend. See catalog.schema.ts for how the schema is put together.
 */
export const catalogTypeDefs = /* GraphQL */ `
  "An object with a catalog-wide id."
  interface Node {
    "The object's id, unique in the catalog."
    id: ID!
  }

  "Lifecycle of SKUs, SKU groups and price lists."
  enum Status {
    "Being prepared: not sellable, not published."
    DRAFT
    "Live: sellable and publishable."
    ACTIVE
    "Retired: kept for history and no longer changes."
    ARCHIVED
  }

  "An amount in minor currency units (1999 = 19.99 in a two-decimal currency)."
  type Money {
    "Integer amount in minor currency units."
    value: Int!
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

  "Where a page of a list starts and ends."
  type PageInfo {
    "Whether items follow this page."
    hasNextPage: Boolean!
    "Whether items precede this page."
    hasPreviousPage: Boolean!
    "Cursor of the first item of the page; null for an empty page."
    startCursor: String
    "Cursor of the last item of the page: pass it as after for the next page."
    endCursor: String
  }

  "The outcome of a delete."
  type DeletePayload {
    "The id of the deleted object."
    id: ID!
    "Always true: a delete that fails is an error instead."
    deleted: Boolean!
  }

  "The catalog's entry points for reads."
  type Query {
    "Any catalog object by its id: SKU, SKU group, category, option, price list, location, media asset, channel listing, attribute definition or bulk operation."
    node("The object's id." id: ID!): Node
  }

  "The catalog's entry points for changes; every one needs commerce.product:write."
  type Mutation
`;
