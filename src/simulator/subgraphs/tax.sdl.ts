/**
 * The tax subgraph's shared SDL: the types every sub-domain uses and the root types the
 * sub-domains (tax-*.ts) extend. See tax.schema.ts for how the schema is put together.
 */
export const taxTypeDefs = /* GraphQL */ `
  "Whether a classification or a rate applies."
  enum Status {
    "Applies."
    ACTIVE
    "Kept, but does not apply."
    INACTIVE
  }

  "Where a page of a list ends (forward pagination only)."
  type PageInfo {
    "Whether items follow this page."
    hasNextPage: Boolean!
    "Cursor of the last item of the page: pass it as after for the next page."
    endCursor: String
  }

  "An amount in minor currency units."
  type TaxAmount {
    "Integer amount in minor currency units."
    value: Int!
    "ISO 4217 currency code, e.g. USD."
    currencyCode: String!
  }

  "The outcome of a delete."
  type DeleteResult {
    "The id of the deleted object."
    id: ID!
    "Always true: a delete that fails is an error instead."
    deleted: Boolean!
  }

  "The tax service's entry points for reads; every one needs commerce.tax:read."
  type Query

  "The tax service's entry points for changes: create* needs commerce.tax:create, delete* commerce.tax:delete, every other commerce.tax:write."
  type Mutation
`;
